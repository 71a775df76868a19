#pragma once
// The one engine for child processes, shared by util::run_process (collect a
// command's output) and build::supervise (a build's hours of output, its
// process tree and the memory governor). It owns the mechanics both need:
//   - the spawn: argv (PATH lookup when argv[0] has no '/'), cwd, environment
//     changes, stdin from /dev/null or a pipe, stdout and stderr separate or
//     merged, a process group or a session of its own, signals as a fresh
//     process has them;
//   - the wait: one poll over the child's pipes, its pidfd and the caller's
//     descriptors, then the reads (non-blocking, bounded per wake-up) into the
//     caller's sink and the writes of pending stdin;
//   - the clock: Ctrl-C (util::interrupted) and the timeout, and the stop
//     sequence: a terminate step, then a kill step once the grace is over.
// What is signalled (one process group, or every group of a session, stopped
// members included), who reaps and what is sampled between waits stay with
// the callers.
#include <poll.h>
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/error.hpp"
#include "util/unique_fd.hpp"

namespace flashfit::util {

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH when it has no '/'
  std::optional<std::filesystem::path> cwd;
  std::vector<std::pair<std::string, std::string>> set_env;
  std::vector<std::string> unset_env;
  bool stdin_pipe = false;    // false: stdin is /dev/null
  bool merge_output = false;  // stderr into stdout's pipe (one stream, in order)
  bool own_session = false;   // a session of its own (so also a process group); else a group
  // stdout and stderr go to unlinked temporary files, read back once the child
  // has ended, instead of pipes: a child that outlives a SIGKILLed flashfit
  // keeps writing without a broken pipe. pip dies of one half-way through a
  // reinstall (its "Successfully uninstalled" log line raises after the old
  // files were moved away, before the new ones are in), leaving neither.
  bool output_to_files = false;
};

enum class ChildStream { out, err };

// A spawned child's ends of its pipes, non-blocking, and its pidfd (readable
// once it exits; -1 on kernels without pidfd_open, where waits just time out).
// Its pid is also its process group (and its session with own_session).
class Child {
 public:
  static Result<Child> spawn(const ChildSpec& spec);

  Child(Child&& other) noexcept;
  Child& operator=(Child&&) = delete;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  // Never leaves a child behind, whatever path the caller leaves by: one not
  // yet reaped gets SIGKILL (its process group) and is reaped.
  ~Child();

  pid_t pid() const { return pid_; }

  // Its exit: reaped here without blocking, or noted by a caller that reaped
  // it another way (waitpid on its group). The wait status is kept.
  bool try_reap();
  void reap_blocking();
  void note_reaped(int status);
  bool reaped() const { return reaped_; }
  int status() const { return status_; }
  bool output_open() const { return static_cast<bool>(out_) || static_cast<bool>(err_); }

  // Data for stdin (spec.stdin_pipe): written as the child reads it; the pipe
  // is closed once all is written or the child stops reading (EPIPE).
  void set_stdin(std::string data);

  using Sink = std::function<void(ChildStream, std::string_view)>;
  // One wake-up: polls the open pipes, the pidfd (unless `watch_exit` is
  // false) and `extra` (their revents set on return) for up to `slice`, then
  // reads each readable pipe at most `reads` times (a flood of output cannot
  // starve the caller's clock) and writes pending stdin. A pipe at EOF, or
  // with an error that will not go away, is closed.
  void wait(std::chrono::milliseconds slice, const Sink& sink, int reads = 1,
            std::vector<pollfd>* extra = nullptr, bool watch_exit = true);
  // Reads what is in the pipes now, at most `reads` times each, without
  // waiting (a process that escaped may keep a pipe open).
  void drain(const Sink& sink, int reads);
  // spec.output_to_files: all the child wrote, from the start, into the sink
  // (call once it has ended).
  void read_output_files(const Sink& sink);

 private:
  Child() = default;
  bool read_some(UniqueFd& fd, ChildStream stream, const Sink& sink, int reads);
  void write_stdin();

  pid_t pid_ = -1;
  bool reaped_ = true;  // nothing to reap until spawned
  int status_ = 0;
  UniqueFd in_, out_, err_, pidfd_;
  UniqueFd out_file_, err_file_;  // spec.output_to_files
  std::string stdin_data_;
  std::size_t stdin_written_ = 0;
};

// Ctrl-C, the timeout, then the stop sequence, on one clock.
class RunClock {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Cause { none, interrupted, timed_out, other };

  // timeout 0: none.
  RunClock(std::chrono::milliseconds timeout, std::chrono::milliseconds grace);

  Clock::time_point started() const { return started_; }
  std::chrono::milliseconds elapsed() const;
  // Ctrl-C or the deadline: the cause when a stop should begin now (checked
  // only while none has begun; Ctrl-C wins over the deadline).
  Cause due(Clock::time_point now) const;

  // The stop sequence. begin_stop records why and when; the caller then sends
  // its terminate signal(s).
  void begin_stop(Cause cause, Clock::time_point now);
  bool stopping() const { return cause_ != Cause::none; }
  Cause cause() const { return cause_; }
  // Whether the grace since the stop began is over (time for SIGKILL).
  bool grace_over(Clock::time_point now) const;
  std::chrono::milliseconds since_stop(Clock::time_point now) const;

 private:
  Clock::time_point started_;
  std::chrono::milliseconds timeout_;
  std::chrono::milliseconds grace_;
  Cause cause_ = Cause::none;
  Clock::time_point stop_began_{};
};

// exited with status N / killed by signal N (name) / timed out after N s: one wording.
std::string describe_exit(int exit_code, int term_signal, bool timed_out,
                          std::chrono::milliseconds elapsed);

}  // namespace flashfit::util
