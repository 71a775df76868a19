#include "cli/common.hpp"

#include <cstdio>

namespace flashfit::cli {

void write_stdout(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

}  // namespace flashfit::cli
