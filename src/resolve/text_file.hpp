#pragma once
// Reading a small text file a person wrote (a recipe, the config): regular
// files only (a FIFO or a device would block or never end), with a size cap.
#include <cstddef>
#include <filesystem>
#include <string>

#include "util/error.hpp"

namespace flashfit::resolve::detail {

// The file's bytes; an input error naming the file when it is missing, not a
// regular file, unreadable or larger than `max_bytes`.
util::Result<std::string> read_text_file(const std::filesystem::path& path, std::size_t max_bytes);

}  // namespace flashfit::resolve::detail
