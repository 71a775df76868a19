#pragma once
// A scratch directory tree for env probe tests: fixture /proc, /sys and /etc
// trees and fake tools are written at test time, never committed.

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace flashfit::env::testing {

class TempTree {
 public:
  TempTree() {
    std::string pattern = (std::filesystem::temp_directory_path() / "flashfit-env-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = pattern;
  }
  ~TempTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const std::filesystem::path& root() const { return root_; }

  // Writes `content` to root/<relative>, creating parents; returns the full path.
  std::filesystem::path write(const std::string& relative, const std::string& content) const {
    const auto path = root_ / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }

  std::filesystem::path mkdir(const std::string& relative) const {
    const auto path = root_ / relative;
    std::filesystem::create_directories(path);
    return path;
  }

  // An executable /bin/sh script at root/<relative> running `body`.
  std::filesystem::path script(const std::string& relative, const std::string& body) const {
    const auto path = write(relative, "#!/bin/sh\n" + body + "\n");
    ::chmod(path.c_str(), 0755);
    return path;
  }

 private:
  std::filesystem::path root_;
};

}  // namespace flashfit::env::testing
