#pragma once
// Running child processes: the interpreter query, pip, nvcc, builds.
// Children get their own process group and stdin from /dev/null (or a pipe
// with the given data); a timeout or Ctrl-C ends the whole group with
// SIGTERM, then SIGKILL after a grace period, so nothing is left orphaned.

#include <spawn.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/error.hpp"

namespace flashfit::util {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH when it has no '/'
  std::optional<std::filesystem::path> cwd;
  std::vector<std::pair<std::string, std::string>> set_env;
  std::vector<std::string> unset_env;
  std::optional<std::string> stdin_data;           // nullopt: stdin is /dev/null
  std::chrono::milliseconds timeout{0};            // 0: no limit
  std::chrono::milliseconds grace{2000};           // between SIGTERM and SIGKILL
  std::size_t max_output = std::size_t{64} << 20;  // per stream; the rest is drained and dropped
  // Output to unlinked files instead of pipes (util::ChildSpec::output_to_files):
  // for children that change state and must finish even if flashfit is killed.
  bool output_to_files = false;
};

struct ProcessResult {
  int exit_code = -1;   // when the child exited normally
  int term_signal = 0;  // when a signal ended it
  bool timed_out = false;
  bool output_truncated = false;
  std::chrono::milliseconds elapsed{0};
  std::string out;
  std::string err;

  bool succeeded() const { return !timed_out && term_signal == 0 && exit_code == 0; }
  // "exited with status 3", "killed by signal 9 (Killed)", "timed out after 5.0 s"
  std::string describe() const;
};

// Runs the child to completion. Fails (as a value) only when the child could
// not be started, or flashfit was interrupted; a child that exits non-zero is
// a successful run with exit_code set.
Result<ProcessResult> run_process(const ProcessSpec& spec);

class Child;  // util/child.hpp

// A child started now and told what to do later, on its stdin: an interpreter
// that imports torch while pip runs, then imports what pip installed.
// Destroying one that was not finished ends its process group (as Child
// does), so an abandoned start leaves nothing behind.
class StartedProcess {
 public:
  // spec.stdin_data is ignored: stdin is a pipe, written by finish().
  static Result<StartedProcess> start(ProcessSpec spec);
  StartedProcess(StartedProcess&&) noexcept;
  StartedProcess& operator=(StartedProcess&&) noexcept;
  StartedProcess(const StartedProcess&) = delete;
  StartedProcess& operator=(const StartedProcess&) = delete;
  ~StartedProcess();

  // Writes `input` to its stdin (closed once written) and waits for it as
  // run_process does, the timeout (`timeout` if given, else spec.timeout)
  // counted from this call. Once only.
  Result<ProcessResult> finish(std::string input,
                               std::optional<std::chrono::milliseconds> timeout = std::nullopt);

 private:
  StartedProcess(ProcessSpec spec, Child child);
  ProcessSpec spec_;
  std::unique_ptr<Child> child_;
};

// For a posix_spawn'ed child: default dispositions for the signals flashfit
// catches or ignores (SIGINT, SIGTERM, SIGPIPE: a child must not inherit an
// ignored SIGPIPE) and an empty signal mask. Returns the flags that make
// posix_spawn apply them, to OR into the attribute's flags.
short reset_child_signals(posix_spawnattr_t& attr);

}  // namespace flashfit::util
