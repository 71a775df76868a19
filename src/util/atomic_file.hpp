#pragma once
// Writes that other processes may read at any moment: a temp file in the same
// directory, fsync, rename. A reader sees the old content or the new, never
// a torn file, and a crash leaves at most a stray temp file.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace flashfit::util {

// Whether the new content must survive a crash (fsync before the rename), or
// only be atomic for readers: a file whose loss or emptiness after a crash
// reads as absent and costs only a redo (the wheel cache's URL index) need not
// pay a journal commit and a disk cache flush.
enum class Durability { durable, atomic_only };

Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view content,
                               Durability durability = Durability::durable);

// fsyncs a directory, so that a rename into it survives a crash (after
// renaming a finished file into place).
Result<void> sync_directory(const std::filesystem::path& dir);

// The whole file, or nullopt when it cannot be read or is larger than max_size.
std::optional<std::string> read_small_file(const std::filesystem::path& path,
                                           std::size_t max_size = std::size_t{16} << 20);

}  // namespace flashfit::util
