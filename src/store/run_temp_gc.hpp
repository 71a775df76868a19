#pragma once
// `cache gc`'s reclaiming of the per-run work directories under <cache>/tmp/
// that a run killed with SIGKILL leaves behind: `install-<pid>`,
// `install-r-<pid>`, `lock-<pid>`, `calibration-<pid>` and a build's
// `build-<pid>-<time>-<n>` (its whole source tree and objects: gigabytes).
// The rule is the backups' (store/backup_gc.hpp): reclaimed when no flashfit
// runs with that pid on this host and the directory is older than the keep
// period; a running flashfit with the pid, or an owner that cannot be checked,
// keeps it, and other names are never touched. On a cache shared between hosts
// a pid cannot be checked across them: the keep period is the guard there
// (docs/cache.md).
#include <chrono>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/backup_gc.hpp"

namespace flashfit::store {

// The pid a run-directory name carries; nullopt for any other name.
std::optional<int> run_temp_owner_pid(std::string_view name);

struct RunTempFacts {
  std::string name;
  bool is_directory = false;  // a real directory (lstat), not a link or a file
  std::time_t modified = 0;
  OwnerState owner = OwnerState::unknown;
};

enum class RunTempVerdict {
  reclaim_owner_gone,  // no process has its pid; older than the keep period
  reclaim_pid_reused,  // its pid is a program that is not flashfit; older than the keep period
  keep_owner_running,  // a flashfit process has its pid
  keep_owner_unknown,  // whether its owner runs cannot be told
  keep_recent,         // changed within the keep period (or in the future)
  keep_unknown_name,   // not a name flashfit gives a run directory
  keep_not_directory,  // a file or a link
};

bool reclaims(RunTempVerdict verdict);
RunTempVerdict decide_run_temp(const RunTempFacts& facts, std::time_t now, std::time_t keep);

struct ReclaimedRunTemp {
  std::string name;
  std::filesystem::path path;
  RunTempVerdict verdict = RunTempVerdict::reclaim_owner_gone;
  std::uint64_t bytes = 0;
  std::time_t modified = 0;
};

struct RunTempGcReport {
  std::vector<ReclaimedRunTemp> reclaimed;  // removed (or, dry run, would be)
  std::uint64_t freed_bytes = 0;
};

// Reclaims what decide_run_temp marks in <cache_root>/tmp/, deciding again
// just before each removal (a new run may have taken the pid).
RunTempGcReport gc_run_temps(const std::filesystem::path& cache_root,
                             std::chrono::hours keep_recent, bool dry_run,
                             const std::filesystem::path& proc_root = "/proc");

}  // namespace flashfit::store
