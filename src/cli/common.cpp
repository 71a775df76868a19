#include "cli/common.hpp"

#include <cstdio>
#include <cstdlib>

namespace flashfit::cli {

std::optional<std::string> getenv_opt(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

void write_stdout(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

}  // namespace flashfit::cli
