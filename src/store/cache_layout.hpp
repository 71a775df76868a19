#pragma once
// The wheel cache's on-disk layout and small shared helpers (docs/cache.md):
//   <root>/<sha[0:2]>/<sha>/<filename>      the wheel
//   <root>/<sha[0:2]>/<sha>/entry.json      its metadata (cache_entry_json.cpp)
//   <root>/urls/<sha256(url)>               the wheel's sha256, for fetch-by-URL
//   <root>/locks/<sha256(url)>.lock         held while that URL downloads
//   <root>/locks/entry-<sha>.lock           held while an entry.json changes
//   <root>/tmp/                             downloads (.part) and entries being built
// where <root> is <cache_root>/wheels. Internal to store/.
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "store/wheel_cache.hpp"
#include "util/error.hpp"

namespace flashfit::store::detail {

inline constexpr const char* kEntryFile = "entry.json";
inline constexpr std::size_t kMaxEntryJson = std::size_t{4} << 20;

bool is_sha256_hex(std::string_view text);  // 64 lower-case hex digits
// A file name safe to join to a directory: not empty, no '/', not "." or
// "..", no control or non-ASCII bytes, at most 255 bytes.
bool is_safe_basename(std::string_view name);

std::filesystem::path entry_dir(const std::filesystem::path& root, const std::string& sha256);
// The URL as a cache key: without its fragment ("#sha256=..." is not sent to servers).
std::string url_key(std::string_view url);
std::filesystem::path url_index_path(const std::filesystem::path& root, std::string_view url);
std::filesystem::path url_lock_path(const std::filesystem::path& root, std::string_view url);
std::filesystem::path entry_lock_path(const std::filesystem::path& root, const std::string& sha256);

// The inverse of util::format_utc ("2025-06-01T12:00:00Z" exactly); nullopt otherwise.
std::optional<std::time_t> parse_time(std::string_view text);

// entry.json <-> CacheEntry (path excluded: it is where the entry lies).
std::string entry_to_json(const CacheEntry& entry);
// Hostile or garbled text is an error naming what is wrong, never a throw.
util::Result<CacheEntry> entry_from_json(std::string_view text);

// Reads <dir>/entry.json and checks it against its directory name and its
// wheel file; sets `path`.
util::Result<CacheEntry> read_entry_dir(const std::filesystem::path& dir);

// Moves a directory out of sight (into <root>/tmp/) and deletes it, so a
// reader sees a whole entry or none of it.
util::Result<void> discard_dir(const std::filesystem::path& root, const std::filesystem::path& dir);
// Removes an entry and the URL index files that point at it. The caller
// holds the entry's lock (flock excludes this process's other descriptors
// too, so it must not be taken twice).
util::Result<void> remove_entry_unlocked(const std::filesystem::path& root,
                                         const std::string& sha256);

// Bytes of the regular files under `dir` (not following links).
std::uint64_t directory_bytes(const std::filesystem::path& dir);

}  // namespace flashfit::store::detail
