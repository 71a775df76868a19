#pragma once
// Helpers every command shares: writing results.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace flashfit::cli {

// Data goes to stdout in one write; a closed pipe (| head) is not an error.
void write_stdout(std::string_view text);

// While one is alive, write_stdout appends to `into` instead (install -r
// keeps each package's install report for its own).
class StdoutCapture {
 public:
  explicit StdoutCapture(std::string& into);
  ~StdoutCapture();
  StdoutCapture(const StdoutCapture&) = delete;
  StdoutCapture& operator=(const StdoutCapture&) = delete;

 private:
  std::string* previous_;
};

// A progress note on stderr ("flashfit: <line>"); -q/--quiet silences it.
// Warnings and errors do not go through here: -q keeps them.
void note(std::string_view line);

// Where wheels' modules are extracted to be read: under the cache (on disk,
// unlike a tmpfs /tmp: a flash-attn module is hundreds of MB), else the temp dir.
std::filesystem::path wheel_extraction_dir();

}  // namespace flashfit::cli
