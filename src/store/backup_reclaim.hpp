#pragma once
// `cache gc`'s reclaiming of orphaned backups (<cache>/backups/): the facts
// store::decide_backup_gc needs, read from the disk and /proc, then the
// removals it decides, each decided again just before (docs/cache.md).
#include <chrono>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "store/backup_gc.hpp"

namespace flashfit::store {

// The process with this pid on this host, as /proc shows it (proc_root for
// tests). A process counts as flashfit when its comm, its executable's file
// name or its argv[0]'s file name begins with "flashfit".
OwnerState probe_backup_owner(int pid, const std::filesystem::path& proc_root = "/proc");

struct ReclaimedBackup {
  std::string name;
  std::filesystem::path path;
  BackupVerdict verdict = BackupVerdict::reclaim_owner_gone;
  std::uint64_t bytes = 0;
  std::time_t modified = 0;
};

struct BackupGcReport {
  std::vector<ReclaimedBackup> reclaimed;  // removed (or, dry run, would be)
  std::size_t kept = 0;                    // backups with flashfit's names that stay
  std::uint64_t freed_bytes = 0;
};

// Reclaims <cache_root>/backups/ entries decide_backup_gc marks; removal
// renames each out to <cache_root>/wheels/tmp/ first. No backups/ directory:
// an empty report.
BackupGcReport gc_backups(const std::filesystem::path& cache_root, const UndoRecordFacts& record,
                          std::chrono::hours keep_recent, bool dry_run,
                          const std::filesystem::path& proc_root = "/proc");

}  // namespace flashfit::store
