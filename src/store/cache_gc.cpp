// Garbage collection of the wheel cache: entries neither installed anywhere
// they were installed to nor used recently go; so do stale temp files, URL
// index files of gone entries and unused lock files (docs/cache.md).
#include <fmt/format.h>
#include <sys/stat.h>

#include <ctime>

#include "pkg/name.hpp"
#include "pkg/version.hpp"
#include "store/cache_layout.hpp"
#include "store/file_lock.hpp"
#include "store/wheel_cache.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace flashfit::store {
namespace {

using namespace detail;

// Entries and partial downloads get `keep_recent`; temp entry directories
// and finished-but-unmoved downloads belong to a process that died, unless
// very fresh.
constexpr std::time_t kTempGrace = 3600;

std::optional<std::time_t> modified_at(const std::filesystem::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return std::nullopt;
  return info.st_mtime;
}

// When the entry was last used: its own record, else when it was added,
// else when its metadata was written.
std::time_t last_use(const CacheEntry& e) {
  if (auto t = parse_time(e.last_used_at)) return *t;
  if (auto t = parse_time(e.added_at)) return *t;
  return modified_at(e.path.parent_path() / kEntryFile).value_or(0);
}

bool keep(const CacheEntry& e, std::time_t cutoff) {
  return last_use(e) >= cutoff || entry_installed(e);
}

}  // namespace

bool entry_installed(const CacheEntry& entry) {
  auto version = pkg::Version::parse(entry.version);
  if (!version || entry.package.empty()) return false;
  const std::string canonical = pkg::canonicalize_name(entry.package);
  for (const std::string& site : entry.installed_in) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(site, ec), end; !ec && it != end;
         it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!util::ends_with(name, ".dist-info")) continue;
      const std::string_view stem = std::string_view(name).substr(0, name.size() - 10);
      const auto dash = stem.find('-');
      if (dash == std::string_view::npos ||
          pkg::canonicalize_name(stem.substr(0, dash)) != canonical)
        continue;
      auto installed = pkg::Version::parse(stem.substr(dash + 1));
      std::error_code dir_ec;
      if (installed && installed->compare_public(*version) == 0 && it->is_directory(dir_ec))
        return true;
    }
  }
  return false;
}

util::Result<WheelCache::GcReport> WheelCache::gc(std::chrono::hours keep_recent, bool dry_run) {
  GcReport report;
  const std::time_t now = std::time(nullptr);
  const std::time_t cutoff =
      now - static_cast<std::time_t>(std::chrono::seconds(keep_recent).count());
  std::error_code ec;

  for (const CacheEntry& entry : list()) {
    if (keep(entry, cutoff)) {
      ++report.kept;
      continue;
    }
    const auto dir = entry.path.parent_path();
    const std::uint64_t bytes = directory_bytes(dir);
    if (!dry_run) {
      // Another process may be using it right now: decide again under its lock.
      auto lock = FileLock::acquire(entry_lock_path(root_, entry.sha256), std::chrono::seconds(5),
                                    "the cache entry " + entry.sha256);
      auto again =
          lock ? read_entry_dir(dir) : util::Result<CacheEntry>(tl::unexpect, util::Error{});
      if (!lock || (again && keep(*again, cutoff)) || !remove_entry_unlocked(root_, entry.sha256)) {
        ++report.kept;
        continue;
      }
    }
    ++report.removed;
    report.freed_bytes += bytes;
    report.removed_entries.push_back(entry);
  }

  // Entry directories whose metadata cannot be read: list() skips them with a
  // warning; once old, nothing can use them.
  for (std::filesystem::directory_iterator shard(root_, ec), end; !ec && shard != end;
       shard.increment(ec)) {
    if (shard->path().filename().string().size() != 2) continue;
    std::error_code inner;
    for (std::filesystem::directory_iterator it(shard->path(), inner); !inner && it != end;
         it.increment(inner)) {
      const std::string sha = it->path().filename().string();
      if (!is_sha256_hex(sha) || read_entry_dir(it->path()) ||
          modified_at(it->path()).value_or(now) >= cutoff) {
        continue;
      }
      const std::uint64_t bytes = directory_bytes(it->path());
      if (!dry_run && !discard_dir(root_, it->path())) continue;
      CacheEntry broken;
      broken.sha256 = sha;
      broken.path = it->path();
      ++report.removed;
      report.freed_bytes += bytes;
      report.removed_entries.push_back(std::move(broken));
    }
  }

  // tmp/: partial downloads (resumable, so they get keep_recent) and the
  // leftovers of processes that died mid-way.
  for (std::filesystem::directory_iterator it(root_ / "tmp", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::time_t grace = util::ends_with(name, ".part") ? now - cutoff : kTempGrace;
    if (modified_at(it->path()).value_or(now) + grace > now) continue;
    const std::uint64_t bytes = directory_bytes(it->path());
    std::error_code rm;
    if (!dry_run && std::filesystem::remove_all(it->path(), rm) == 0) continue;
    ++report.temp_files_removed;
    report.freed_bytes += bytes;
  }
  if (dry_run) return report;

  // URL index files of entries that are gone, and lock files no one holds.
  for (std::filesystem::directory_iterator it(root_ / "urls", ec), end; !ec && it != end;
       it.increment(ec)) {
    auto sha = util::read_small_file(it->path(), 256);
    const std::string value = sha ? std::string(util::trim(*sha)) : std::string();
    std::error_code gone;
    if (!is_sha256_hex(value) ||
        !std::filesystem::exists(entry_dir(root_, value) / kEntryFile, gone)) {
      std::filesystem::remove(it->path(), gone);
    }
  }
  for (std::filesystem::directory_iterator it(root_ / "locks", ec), end; !ec && it != end;
       it.increment(ec)) {
    (void)FileLock::remove_if_unused(it->path());
  }
  return report;
}

}  // namespace flashfit::store
