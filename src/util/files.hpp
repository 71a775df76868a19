#pragma once
// File-system lookups shared by the layers above.

#include <filesystem>
#include <optional>
#include <string_view>

namespace flashfit::util {

// The first executable regular file called `name` in the ':'-separated
// `path_env` (empty entries mean the current directory, as in execvp).
std::optional<std::filesystem::path> find_on_path(std::string_view name, std::string_view path_env);

bool is_executable_file(const std::filesystem::path& path);

}  // namespace flashfit::util
