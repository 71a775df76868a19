#pragma once
// Runs a build command (pip wheel ... -> setup.py -> ninja -> compilers) in
// its own process group and keeps it alive: every output line (stdout and
// stderr, merged) is appended to a log file and handed to a callback; a
// memory governor ticks several times a second; Ctrl-C / SIGTERM
// (util::interrupted) or a fatal error stops the whole group, paused
// processes included (SIGTERM + SIGCONT, SIGKILL after a grace), and waits
// until no process of the group is left.

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
  std::filesystem::path log_path;  // created (parents too) and truncated; every output line lands here
  std::function<void(std::string_view line)> on_line;  // each line, without the newline; may be empty
  std::optional<GovernorConfig> governor;               // nullopt: no governor
  std::function<void(const GovernorAction&)> on_governor_action;  // may be empty
  std::filesystem::path proc_root = "/proc";  // tests: a fixture tree (only the governor's samples use it)
  std::filesystem::path root = "/";           // for sample_available_memory
  std::chrono::milliseconds grace{5000};      // SIGTERM -> SIGKILL when stopping the group
  std::chrono::milliseconds timeout{0};       // 0: none
};

struct SupervisedRun {
  int exit_code = -1;   // when the command exited normally
  int term_signal = 0;  // when a signal ended it (9 after an OOM kill)
  bool timed_out = false;
  std::chrono::milliseconds elapsed{0};
  std::uint64_t peak_group_bytes = 0;  // largest sum of RSS over the group (sampled)
  GovernorStats governor;              // zeros without a governor
  std::size_t lines = 0;
  bool succeeded() const { return !timed_out && term_signal == 0 && exit_code == 0; }
  std::string describe() const;  // "exited with status 1", "killed by signal 9 (Killed)"
};

// Fails (as a value) when the command cannot be started or the log cannot be
// written (input/failed), and with ErrorKind::interrupted after Ctrl-C, once
// the group is gone. A command that exits non-zero is a successful run.
util::Result<SupervisedRun> supervise(const SupervisorOptions& options);

// Stops every process of group `pgid`: SIGTERM and SIGCONT (a stopped process
// cannot act on SIGTERM), then SIGKILL after `grace`; returns once none is
// left or `grace` x 2 passed (true when none is left).
bool stop_process_group(int pgid, std::chrono::milliseconds grace);

}  // namespace flashfit::build
