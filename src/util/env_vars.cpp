#include "util/env_vars.hpp"

#include <cstdlib>
#include <map>
#include <string_view>

extern char** environ;

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

std::vector<std::string> environment_with(
    const std::vector<std::string>& unset,
    const std::vector<std::pair<std::string, std::string>>& set) {
  std::map<std::string, std::string> vars;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    const auto eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    vars[std::string(text.substr(0, eq))] = std::string(text.substr(eq + 1));
  }
  for (const auto& name : unset) vars.erase(name);
  for (const auto& [name, value] : set) vars[name] = value;
  std::vector<std::string> out;
  out.reserve(vars.size());
  for (const auto& [name, value] : vars) out.push_back(name + "=" + value);
  return out;
}

}  // namespace flashfit::util
