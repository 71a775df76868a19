#include "util/files.hpp"

#include <unistd.h>

#include "util/strings.hpp"

namespace flashfit::util {

bool is_executable_file(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

std::optional<std::filesystem::path> find_on_path(std::string_view name,
                                                  std::string_view path_env) {
  if (name.empty() || name.find('/') != std::string_view::npos) return std::nullopt;
  for (auto dir : split(path_env, ':')) {
    const std::filesystem::path candidate =
        std::filesystem::path(dir.empty() ? "." : std::string(dir)) / std::string(name);
    if (is_executable_file(candidate)) return candidate;
  }
  return std::nullopt;
}

}  // namespace flashfit::util
