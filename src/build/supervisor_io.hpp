#pragma once
// The supervisor's plumbing, apart from its loop: the log file and the
// splitter that turns output chunks into lines (the spawn, the waits and the
// clock are util/child's). Private to build/supervisor.cpp and its tests.

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "build/supervisor.hpp"
#include "util/error.hpp"
#include "util/unique_fd.hpp"

namespace flashfit::build {

// The build log: created with its parents, truncated, written as the bytes
// come (a line of any length is kept whole here).
class LogFile {
 public:
  static util::Result<LogFile> create(const std::filesystem::path& path);
  bool write(const char* data, std::size_t size);  // false once a write failed
  bool close();                                    // false if any write or the close failed

 private:
  util::UniqueFd fd_;
  bool ok_ = true;
};

// Output chunks in, lines out (without '\n', a trailing '\r' dropped). A line
// longer than `max_line` is handed on cut to that length and the rest of it
// skipped up to its newline; a last line without a newline comes out of
// finish().
class LineSplitter {
 public:
  static constexpr std::size_t kMaxLine = std::size_t{64} << 10;
  explicit LineSplitter(std::function<void(std::string_view)> emit, std::size_t max_line = kMaxLine)
      : emit_(std::move(emit)), max_line_(max_line) {}
  void feed(std::string_view chunk);
  void finish();

 private:
  void emit(std::string_view line);
  std::function<void(std::string_view)> emit_;
  std::size_t max_line_;
  std::string pending_;
  bool skipping_ = false;  // inside a line already handed on cut
};

}  // namespace flashfit::build
