#pragma once
// The memory governor: keeps a build under its memory budget without killing
// anything. Several times a second the supervisor hands it a sample of the
// build's process group and the machine's available memory; it answers with
// SIGSTOP / SIGCONT decisions for the "workers" (the leaf processes of the
// group: cicc, ptxas, cc1plus, a test's memory hog), youngest paused first,
// oldest resumed first, and never pauses the last running worker, so the
// build always makes progress. The policy (`decide`) is a pure function of
// the samples and the governor's own bookkeeping, so tests drive it with
// made-up samples; `apply` sends the signals.
//
// Policy, in order:
// 1. Admission: a worker is expected to grow to `worker_estimate` (the
//    configured estimate until workers have finished, then the largest peak a
//    finished worker reached, plus a margin). Workers that cannot all reach
//    their expected peak within the headroom are paused, youngest first; a
//    worker paused at birth holds almost nothing.
// 2. Pressure: whatever the estimate says, when measured headroom falls
//    below the low-water mark the youngest running workers are paused.
// 3. Recovery: paused workers are resumed, oldest first, while the headroom
//    covers their expected growth; if no worker is running, the oldest paused
//    one is resumed regardless.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "build/process_tree.hpp"

namespace flashfit::build {

struct GovernorConfig {
  std::uint64_t budget_bytes = 0;   // the build's processes together may use at most this
  std::uint64_t reserve_bytes = 0;  // and the machine keeps at least this available
  std::optional<std::uint64_t> worker_estimate_bytes;  // expected peak RSS of one worker; nullopt: learn it
  double low_water_fraction = 0.05;  // pressure when headroom < this x budget
  std::chrono::milliseconds interval{100};  // sampling period (the supervisor's tick)
};

struct GovernorAction {
  enum class Kind { pause, resume };
  Kind kind = Kind::pause;
  int pid = 0;
  std::string comm;
  std::string why;  // "headroom 310 MiB < expected growth 1.2 GiB of 3 workers"
};

struct GovernorStats {
  std::uint64_t peak_group_bytes = 0;  // largest sum of RSS seen over the group
  std::size_t pauses = 0;
  std::size_t resumes = 0;
  std::size_t max_paused = 0;          // most workers paused at once
  std::size_t samples = 0;
  std::optional<std::uint64_t> learned_estimate_bytes;
};

class MemoryGovernor {
 public:
  explicit MemoryGovernor(GovernorConfig config);

  // One tick. `group` is sample_process_group's answer, `root_pid` the
  // supervised child (never paused), `machine_available` the machine's (and
  // cgroup's) available bytes, when known. Updates the bookkeeping (paused
  // set, peaks, learned estimate) as if the returned actions were applied.
  std::vector<GovernorAction> decide(const std::vector<ProcessSample>& group, int root_pid,
                                     std::optional<std::uint64_t> machine_available);

  // Sends the signals (SIGSTOP / SIGCONT); a process already gone is skipped.
  static void apply(const std::vector<GovernorAction>& actions);

  // Pids currently paused by the governor (to resume them before a kill).
  std::vector<int> paused() const;
  const GovernorStats& stats() const { return stats_; }
  const GovernorConfig& config() const { return config_; }

 private:
  struct Tracked {
    std::uint64_t start_ticks = 0;
    std::uint64_t peak_rss = 0;
    bool paused = false;
    std::string comm;
  };
  GovernorConfig config_;
  GovernorStats stats_;
  std::map<int, Tracked> tracked_;  // workers seen and still alive
};

}  // namespace flashfit::build
