#pragma once
// The local wheel cache (docs/cache.md): wheels stored by sha256 under
// <cache_root>/wheels/<aa>/<sha256>/<filename>, each with an entry.json
// (package, version, filename, source URL, variant fields, inspect verdicts,
// installs, last use). A wheel is never downloaded twice: fetches are keyed
// by URL (and by sha256 when known) under a file lock, so concurrent flashfit
// processes share one download and never see a partial entry (temp dir +
// rename). Anything unreadable in the cache is skipped with a warning, never
// fatal.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "net/download.hpp"
#include "store/build_record.hpp"
#include "util/error.hpp"

namespace flashfit::store {

struct InspectRecord {
  std::string
      environment;  // a key of the environment it was judged against (python, torch, abi, gpus)
  bool compatible = false;
  std::string summary;           // the first failure, or "compatible"
  std::string at;                // ISO 8601 UTC
  bool torch_extension = false;  // a module calls into torch (import torch first)
};

struct CacheEntry {
  std::string sha256;
  std::string filename;
  std::string package;            // canonical name
  std::string version;            // from the file name
  std::vector<std::string> urls;  // every URL it was fetched from (keys the fetch dedupe)
  EntryOrigin origin;             // entry.json's "source"
  std::uint64_t size = 0;
  std::string added_at;  // ISO 8601 UTC
  std::string last_used_at;
  // What it was built for, when known (from the label, or a build's own record).
  BuildRecord record;
  std::vector<InspectRecord> inspections;
  std::vector<std::string> installed_in;  // site-packages dirs it was installed into
  std::filesystem::path path;             // the wheel file
};

// Whether some site dir in `installed_in` still holds this package at this
// version: a <name>-<version>.dist-info directory there with the same
// canonical name and public version (gc keeps such entries).
bool entry_installed(const CacheEntry& entry);

class WheelCache {
 public:
  // Creates <root>/wheels and its CACHEDIR.TAG on first use.
  static util::Result<WheelCache> open(const std::filesystem::path& cache_root);

  // The entry for this URL, downloading it once if needed. `expected_sha256`
  // (from the index) is checked; a mismatch stores nothing. Concurrent calls
  // for one URL (threads or processes) download once.
  util::Result<CacheEntry> fetch(const std::string& url,
                                 const std::optional<std::string>& expected_sha256,
                                 const EntryOrigin& origin, net::DownloadRequest options = {});
  // Copies a local wheel in (flashfit cache add, a finished build).
  util::Result<CacheEntry> add(const std::filesystem::path& wheel, const EntryOrigin& origin);

  std::vector<CacheEntry> list(std::vector<std::string>* warnings = nullptr) const;
  std::optional<CacheEntry> find_sha256(const std::string& sha256) const;
  // Atomically rewrites an entry's metadata (inspections, installed_in, last use).
  util::Result<void> update(const CacheEntry& entry);
  util::Result<void> remove(const std::string& sha256);

  struct GcReport {
    std::size_t removed = 0;
    std::uint64_t freed_bytes = 0;
    std::size_t kept = 0;
    std::vector<CacheEntry> removed_entries;  // what was (or, dry run, would be) removed
    std::size_t temp_files_removed =
        0;  // stale downloads and temp dirs in tmp/ (bytes in freed_bytes)
  };
  // Removes entries neither installed (a recorded site dir still holds the
  // package at that version) nor used within `keep_recent`.
  util::Result<GcReport> gc(std::chrono::hours keep_recent, bool dry_run);

  const std::filesystem::path& root() const { return root_; }  // <cache_root>/wheels

 private:
  std::filesystem::path root_;
};

}  // namespace flashfit::store
