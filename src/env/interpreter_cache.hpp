#pragma once
// The interpreter's answer is cached on disk, so a warm `doctor` costs no
// interpreter start. The key is the interpreter as invoked (a venv's python
// resolves to its base interpreter's file, yet has other facts), the file it
// resolves to (size, mtime, inode: a reinstall or upgrade changes them), the
// variables that move sys.prefix and sys.path, and the script version.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace flashfit::env {

struct InterpreterStamp {
  std::string program;   // absolute path as invoked
  std::string resolved;  // symlinks resolved
  std::uintmax_t size = 0;
  std::int64_t mtime_ns = 0;
  std::uint64_t inode = 0;
  std::string
      environment;  // PYTHONHOME, PYTHONPATH, PYTHONUSERBASE, PYTHONNOUSERSITE, HOME as set now
  int script_version = 0;

  friend bool operator==(const InterpreterStamp&, const InterpreterStamp&) = default;
};

// nullopt when the program cannot be stat'ed or is not an ELF executable
// (a script such as a pyenv shim): then nothing is cached.
std::optional<InterpreterStamp> stamp_interpreter(const std::string& program);

// $PYTHONPATH with its relative entries made absolute against the working
// directory (flashfit asks Python from "/", where they would name other
// directories than the caller's Python sees); empty entries are kept (Python
// reads them as its own working directory). nullopt when it is not set.
std::optional<std::string> absolute_pythonpath();

class InterpreterCache {
 public:
  explicit InterpreterCache(std::filesystem::path root) : root_(std::move(root)) {}

  // The cached answer for exactly this stamp; a stale, corrupt or foreign
  // entry reads as a miss.
  std::optional<std::string> load(const InterpreterStamp& stamp) const;
  // Best effort: a cache that cannot be written only costs speed.
  void store(const InterpreterStamp& stamp, std::string_view answer) const;

  std::filesystem::path entry_path(const InterpreterStamp& stamp) const;

 private:
  std::filesystem::path root_;
};

}  // namespace flashfit::env
