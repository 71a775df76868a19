#pragma once
// An in-memory tree of files behind the requirements parser's reader
// interface (pkg::FileReader): what `-r` / `-c` includes read in unit tests.
#include <map>
#include <string>

#include "pkg/requirements_file.hpp"

namespace flashfit::testing {

class MemoryFiles : public pkg::FileReader {
 public:
  std::map<std::string, std::string> files;
  util::Result<std::string> read(const std::string& path) override {
    auto it = files.find(path);
    if (it == files.end()) return util::input_error("no such file", path);
    return it->second;
  }
};

}  // namespace flashfit::testing
