#pragma once
// The verdict of inspecting a cached wheel against one environment, recorded
// in its cache entry. The cache is content-addressed, so a verdict recorded
// for the same bytes in the same environment still holds and re-reading
// 100+ MB proves nothing new. Shared by install (before installing) and build
// (the wheel it just made).

#include <filesystem>
#include <optional>
#include <string>

#include "binary/inspect.hpp"
#include "env/environment.hpp"
#include "store/wheel_cache.hpp"
#include "util/error.hpp"

namespace flashfit::install {

struct CachedVerdict {
  store::InspectRecord record;
  bool reused = false;                          // recorded earlier for this environment
  std::optional<binary::InspectReport> report;  // when inspected now
};

// Inspects `entry`'s wheel against `host` unless a verdict for this
// environment is recorded; a new verdict is appended to the entry and saved
// (a failure to save is not an error: the verdict still stands).
util::Result<CachedVerdict> inspect_cached(store::WheelCache& cache, store::CacheEntry& entry,
                                           const env::Environment& environment,
                                           const binary::LoadHost& host,
                                           const std::filesystem::path& work_dir);

// What a verdict is keyed by: "python 3.11, torch 1.13.1, cxx11abi, sm 8.9,
// inputs 0123456789abcdef": the readable part, and a digest of every input the
// checks read from `host` (driver CUDA, glibc, arch, the loader's search, the
// interpreter's tags, torch's libraries' identity, ...), so that a verdict is
// reused only where every one of them is the same. It reads nothing from
// host.torch: a host without torch's libraries read gives the same key.
std::string environment_key(const env::Environment& environment, const binary::LoadHost& host);
// The verdict recorded in `entry` under `key` (the latest), if any.
std::optional<store::InspectRecord> recorded_verdict(const store::CacheEntry& entry,
                                                     const std::string& key);
// The first failing check of an inspect report, in one line.
std::string first_failure(const binary::InspectReport& report);

}  // namespace flashfit::install
