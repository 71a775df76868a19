#pragma once
// The memory governor: keeps a build under its memory budget without killing
// anything. Several times a second the supervisor hands it a sample of the
// build's processes and the machine's available memory; it answers with
// SIGSTOP / SIGCONT decisions for the "workers" (the leaf processes of the
// group: cicc, ptxas, cc1plus, a test's memory hog), youngest paused first,
// oldest resumed first, and never pauses the last running worker, so the
// build always makes progress. The policy (`decide`) is a pure function of
// the samples and the governor's own bookkeeping, so tests drive it with
// made-up samples; `apply` sends the signals.
//
// A worker is a leaf of the group other than the root that has exec'd: a
// child still bearing its parent's name is between fork and exec, and a vfork
// child (posix_spawn) stopped there would freeze its parent with it. So a
// leaf named as its parent (python3 under python3) is never governed.
//
// Policy, in order:
// 1. Admission: a worker is expected to grow to its kind's (comm's) estimate:
//    the configured one until workers of that kind have finished; then, if
//    their largest peak confirms it (peak <= estimate <= peak + 10%), still the
//    configured one, else that peak plus 10%; never less than the largest
//    peak a live worker of that kind has reached. Kinds matter: a
//    preprocessor finishing first must not set the estimate of the compilers
//    after it. Running workers whose expected growth does not fit in the
//    headroom are paused, youngest first (one already at its expected peak is
//    left to finish: pausing it would only hold its memory longer); a worker
//    paused at birth holds almost nothing. Without a configured estimate, a
//    kind none of whose workers has finished is unknown, and only one worker
//    of unknown kind runs at a time: nothing says how far it grows, and
//    reacting once many grow at once is too late.
// 2. Pressure: growth no estimate accounts for (what workers already past
//    their estimate, or without one, grew over the last interval) is
//    projected two intervals ahead (samples come late on a loaded machine);
//    when it would take the headroom below the low-water mark, the youngest
//    running workers still growing are paused until it no longer would (if
//    it cannot, all but the last running). Growth within the estimates needs
//    no band: admission already fits it.
// 3. Recovery: in a tick that paused nothing, paused workers are resumed,
//    oldest first, each one whose expected growth fits in the headroom with
//    1% of the budget to spare (against noise in the samples; a younger one
//    that fits may pass an older one that does not); if no worker is
//    running, the oldest paused one is resumed regardless.
// Headroom = min(budget - the group's RSS, machine available - reserve), with
// whichever is known; when neither is, nothing is paused and every paused
// worker is resumed. A process the governor did not stop but finds stopped
// (state T) is neither running nor ever resumed by it.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "build/process_tree.hpp"

namespace flashfit::build {

// One kind of compile unit with its own expected peak (a plan's unit kinds:
// flash-attn's backward units peak half as high again as its forward ones).
// nvcc names its intermediate files after the unit
// (/tmp/tmpxft_0000abcd_00000000-6_flash_bwd_hdim128_fp16_sm80.cpp1.ii), so a
// worker's arguments tell which unit it compiles.
struct UnitClass {
  std::string kind;                   // "backward"
  std::vector<std::string> patterns;  // the recipe's file-name patterns ("flash_bwd_*.cu")
  std::uint64_t estimate_bytes = 0;   // expected peak of one worker compiling it
};

// The first class one of `args` (a worker's command line) belongs to: an
// argument's file name, without nvcc's "tmpxft_..._N-M_" prefix, matches a
// pattern with its ".cu" turned into "*" (nvcc's .ii, .ptx, .cubin names).
// nullptr when none does.
const UnitClass* unit_class_of(const std::vector<UnitClass>& classes,
                               const std::vector<std::string>& args);

struct GovernorConfig {
  std::uint64_t budget_bytes = 0;   // the build's processes together may use at most this
  std::uint64_t reserve_bytes = 0;  // and the machine keeps at least this available
  // Expected peak RSS of one worker (a plan's per-compile estimate, with its
  // margin); nullopt: learn it, one worker at a time until one finishes.
  std::optional<std::uint64_t> worker_estimate_bytes;
  // Per-kind estimates, by the worker's arguments (read once per worker by
  // `worker_args`: the supervisor reads /proc/<pid>/cmdline; tests pass a
  // map). A worker of no class gets worker_estimate_bytes.
  std::vector<UnitClass> unit_classes;
  std::function<std::vector<std::string>(int pid)> worker_args;
  double low_water_fraction = 0.05;         // band kept against unexpected growth, x budget
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
  std::size_t max_paused = 0;  // most workers paused at once
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

  // Pids currently paused by the governor (stopping the build resumes every
  // process anyway).
  std::vector<int> paused() const;
  const GovernorStats& stats() const { return stats_; }
  const GovernorConfig& config() const { return config_; }

 private:
  struct Tracked {
    std::uint64_t start_ticks = 0;
    std::uint64_t rss = 0;
    std::uint64_t peak_rss = 0;
    std::uint64_t growth = 0;  // RSS gained since the previous sample
    bool paused = false;       // by this governor
    bool stopped = false;      // state T in the sample (by us or by someone else)
    std::string comm;
    std::string kind_key;  // what its peak is learned under: comm, or "comm/kind" for a unit class
    std::optional<std::uint64_t> configured;  // its class's estimate, else worker_estimate_bytes
  };

  GovernorConfig config_;
  GovernorStats stats_;
  std::map<int, Tracked> tracked_;  // workers seen and still alive
  std::map<std::string, std::uint64_t> finished_peak_by_comm_;
  std::uint64_t finished_peak_ = 0;  // over every finished worker
};

}  // namespace flashfit::build
