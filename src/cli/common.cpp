#include "cli/common.hpp"

#include <cstdio>

#include "util/verbosity.hpp"

namespace flashfit::cli {

void write_stdout(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void note(std::string_view line) {
  if (util::quiet()) return;
  std::fprintf(stderr, "flashfit: %.*s\n", static_cast<int>(line.size()), line.data());
}

}  // namespace flashfit::cli
