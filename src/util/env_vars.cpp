#include "util/env_vars.hpp"

#include <cstdlib>

namespace flashfit::util {

std::optional<std::string> getenv_opt(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::optional<std::string> getenv_nonempty(const char* name) {
  auto value = getenv_opt(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

}  // namespace flashfit::util
