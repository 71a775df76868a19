#pragma once
// Runs a build command (pip wheel ... -> setup.py -> ninja -> compilers) and
// keeps it alive: every output line (stdout and stderr, merged) is appended
// to a log file and handed to a callback; a memory governor ticks several
// times a second; Ctrl-C / SIGTERM (util::interrupted), a timeout or an
// unwritable log stops the whole build, paused processes included (SIGTERM +
// SIGCONT, SIGKILL after a grace), and returns only once no process of it is
// left. When the command itself exits, what it left behind (a daemon, a
// stray compiler holding the output pipe) is stopped the same way rather than
// waited for.
//
// The command runs in a session of its own (so also a process group of its
// own): ninja starts every job in a process group of its own, so the group
// alone would miss the compilers; the session holds them all (a process that
// calls setsid itself escapes, as daemons mean to). While it runs, this
// process is a child subreaper (prctl), so the build's orphans are reaped
// here and the build really disappears; the previous setting is restored.
// The governor also wakes on the exit of any build process (pidfds) and
// samples a few milliseconds later, and then every 10 ms while processes
// keep appearing (at most 5 times in a row), so a newborn compiler is seen
// before it holds much.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "build/governor.hpp"
#include "util/error.hpp"

namespace flashfit::build {

struct SupervisorOptions {
  std::vector<std::string> argv;  // argv[0] looked up on PATH when it has no '/'
  std::optional<std::filesystem::path> cwd;
  std::vector<std::pair<std::string, std::string>> set_env;
  std::vector<std::string> unset_env;
  // Created (parents too) and truncated; every byte of output lands here.
  std::filesystem::path log_path;
  // Each line, without the newline (and a trailing '\r'); one longer than
  // 64 KiB is cut there (the log keeps it whole). May be empty.
  std::function<void(std::string_view line)> on_line;
  std::optional<GovernorConfig> governor;                         // nullopt: no governor
  std::function<void(const GovernorAction&)> on_governor_action;  // may be empty
  // Tests: a fixture tree for the governor's samples (stopping the build
  // always reads the real /proc).
  std::filesystem::path proc_root = "/proc";
  std::filesystem::path root = "/";       // for sample_available_memory
  std::chrono::milliseconds grace{5000};  // SIGTERM -> SIGKILL when stopping the build
  std::chrono::milliseconds timeout{0};   // 0: none
};

struct SupervisedRun {
  int exit_code = -1;   // when the command exited normally
  int term_signal = 0;  // when a signal ended it (9 after an OOM kill)
  bool timed_out = false;
  std::chrono::milliseconds elapsed{0};
  // Largest sum of RSS over the build's processes, sampled with or without a
  // governor (every 100 ms without one).
  std::uint64_t peak_group_bytes = 0;
  GovernorStats governor;  // zeros without a governor
  std::size_t lines = 0;
  bool succeeded() const { return !timed_out && term_signal == 0 && exit_code == 0; }
  std::string describe() const;  // "exited with status 1", "killed by signal 9 (Killed)"
};

// Fails (as a value) when the command cannot be started (input: not found, or
// no such cwd), the log cannot be created or written (failed; a log that
// fails mid-run stops the build first), and with ErrorKind::interrupted
// after Ctrl-C, once the build is gone. A command that exits non-zero, is
// killed or times out is a successful run: see SupervisedRun.
util::Result<SupervisedRun> supervise(const SupervisorOptions& options);

// Stops every process of the build rooted at `pgid` (its process group and,
// if it leads one, its session: see sample_process_group): SIGTERM and
// SIGCONT to each of their process groups (a stopped process cannot act on
// SIGTERM), then SIGKILL after `grace`; returns once none is left (zombies
// aside) or `grace` x 2, at least grace + 1 s, has passed (true when none is
// left). Never reaps: a caller's child keeps its exit status.
bool stop_process_group(int pgid, std::chrono::milliseconds grace);

}  // namespace flashfit::build
