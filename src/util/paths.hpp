#pragma once
// Where flashfit keeps things on a user's machine (../shared/DESIGN.md).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace flashfit::util {

// $FLASHFIT_CACHE_DIR, else $XDG_CACHE_HOME/flashfit, else ~/.cache/flashfit.
// nullopt when none can be formed (no HOME): callers then work uncached.
std::optional<std::filesystem::path> cache_root();
// cache_root() for a command that cannot work without one: else the one error
// every command gives ("no cache directory[ <purpose>]", set FLASHFIT_CACHE_DIR or HOME).
Result<std::filesystem::path> require_cache_root(std::string_view purpose = {});
// Which variable chose cache_root(): "$FLASHFIT_CACHE_DIR", "$XDG_CACHE_HOME", "$HOME", or ""
// (none).
std::string cache_root_origin();

// Creates `dir` (and parents) and, at the cache root, a CACHEDIR.TAG so backup
// tools skip it. Returns false when it cannot be created.
bool ensure_cache_dir(const std::filesystem::path& root, const std::filesystem::path& dir);

}  // namespace flashfit::util
