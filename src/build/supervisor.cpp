// Runs a build command for as long as it takes and keeps it under control:
// its output goes to a log and to a callback line by line, the memory governor
// ticks between reads, and whatever ends the run (the command exiting,
// Ctrl-C, a timeout, an unwritable log) ends with no process of the build
// left, stopped ones included. The spawn, the waits and the clock are
// util/child's, as for util::run_process; this loop adds what a build needs:
// the session's process groups, the log and its lines, the governor's tick.
#include "build/supervisor.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <set>
#include <system_error>
#include <thread>

#include "build/gate.hpp"
#include "build/process_tree.hpp"
#include "build/sentinel.hpp"
#include "build/supervisor_io.hpp"
#include "util/child.hpp"
#include "util/interrupt.hpp"

namespace flashfit::build {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Without a governor the group is still sampled, for peak_group_bytes.
constexpr milliseconds kDefaultSampleInterval{100};
// How often a stopping group is checked for being gone.
constexpr milliseconds kStopPoll{10};
// Reads per wake-up before the loop looks at the clock again, so a flood of
// output cannot starve the governor.
constexpr int kReadsPerWake = 16;
constexpr int kDrainReads = 1024;

// Whether any process of the build is alive: its root's process group and,
// the root leading a session, the process groups ninja makes in it. Zombies
// (ours not yet reaped, or orphans whose new parent reaps late) hold no
// memory and run nothing, and kill(-pgid, 0) cannot see the other groups, so
// this reads /proc.
bool group_alive(int pgid) {
  return !sample_process_group(pgid).empty();
}

// Sends `sig` to the root's process group and every other process group of
// the build (each ninja job has its own).
void signal_build(int pgid, int sig) {
  ::kill(-pgid, sig);
  std::set<int> groups;
  for (const auto& p : sample_process_group(pgid)) {
    if (p.pgrp > 1 && p.pgrp != pgid) groups.insert(p.pgrp);
  }
  for (const int group : groups) ::kill(-group, sig);
}

// SIGTERM, then SIGCONT: a stopped process acts on SIGTERM only once continued.
void terminate_build(int pgid) {
  signal_build(pgid, SIGTERM);
  signal_build(pgid, SIGCONT);
}

// Orphans of the group are re-parented to this process while it supervises,
// so they are reaped here (not by an init that may reap late) and the group
// really disappears once stopped. The previous setting comes back after.
class SubreaperScope {
 public:
  SubreaperScope() {
    int previous = 0;
    if (::prctl(PR_GET_CHILD_SUBREAPER, &previous, 0, 0, 0) == 0) previous_ = previous;
    ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  }
  ~SubreaperScope() { ::prctl(PR_SET_CHILD_SUBREAPER, previous_, 0, 0, 0); }
  SubreaperScope(const SubreaperScope&) = delete;
  SubreaperScope& operator=(const SubreaperScope&) = delete;

 private:
  unsigned long previous_ = 0;
};

// The root child (util::Child keeps its exit status) and every orphan of
// its group re-parented here.
class Group {
 public:
  explicit Group(util::Child& root) : child_(root), root_(root.pid()) {}
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;
  // Whatever path we leave by (an exception from a callback included), no
  // process of the group survives us.
  ~Group() {
    if (finished_) return;
    signal_build(root_, SIGKILL);
    child_.reap_blocking();
    reap(true);
  }
  pid_t pid() const { return root_; }
  bool root_reaped() const { return child_.reaped(); }
  int root_status() const { return child_.status(); }
  void mark_finished() { finished_ = true; }

  // Collects every exited child of the build, the root's status kept: the
  // root, and the orphans re-parented here (`orphans`: found in /proc, which
  // costs a scan; the root's own group is free).
  void reap(bool orphans = false) {
    while (true) {
      int status = 0;
      const pid_t r = ::waitpid(-root_, &status, WNOHANG);
      if (r <= 0) {
        if (r < 0 && errno == EINTR) continue;
        break;
      }
      note(r, status);
    }
    // waitpid(-pgid) cannot see the root once it left its group (setpgid).
    child_.try_reap();
    if (!orphans) return;
    for (const int pid : build_children_of(root_, static_cast<int>(::getpid()))) {
      int status = 0;
      if (pid != root_ && ::waitpid(pid, &status, WNOHANG) == pid) note(pid, status);
    }
  }

 private:
  void note(pid_t pid, int status) {
    if (pid == root_) child_.note_reaped(status);
  }
  util::Child& child_;
  pid_t root_;
  bool finished_ = false;
};

enum class StopReason { none, root_exited, interrupted, timed_out, log_failed };

// Between samples the loop also wakes when a process of the build exits
// (through its pidfd), so the governor looks again a few milliseconds later:
// ninja starts the next job, and nvcc its next phase, the moment one ends, and
// a newborn caught then is paused while it holds almost nothing, where one
// found an interval later may already hold a large part of its peak.
class ExitWatch {
 public:
  static constexpr std::size_t kMaxWatched = 256;

  // Watches the processes of this sample, the root aside (it has its own).
  void update(const std::vector<ProcessSample>& samples, int root) {
    std::vector<Entry> next;
    for (const auto& s : samples) {
      if (s.pid == root) continue;
      auto it = std::find_if(watched_.begin(), watched_.end(), [&](const Entry& e) {
        return e.pid == s.pid && e.start_ticks == s.start_ticks;
      });
      if (it != watched_.end()) {
        next.push_back(std::move(*it));
      } else if (next.size() < kMaxWatched) {
        util::UniqueFd fd(static_cast<int>(::syscall(SYS_pidfd_open, s.pid, 0)));
        if (fd) next.push_back({s.pid, s.start_ticks, std::move(fd)});
      }
    }
    watched_ = std::move(next);
  }
  void add_to(std::vector<pollfd>& fds) const {
    for (const auto& e : watched_) fds.push_back({e.fd.get(), POLLIN, 0});
  }
  // Forgets the watched processes that exited; true if any did.
  bool take_exits(const std::vector<pollfd>& fds) {
    bool any = false;
    for (const auto& p : fds) {
      if (p.revents == 0) continue;
      auto it = std::find_if(watched_.begin(), watched_.end(),
                             [&](const Entry& e) { return e.fd.get() == p.fd; });
      if (it == watched_.end()) continue;
      watched_.erase(it);
      any = true;
    }
    return any;
  }
  void clear() { watched_.clear(); }

 private:
  struct Entry {
    int pid;
    std::uint64_t start_ticks;
    util::UniqueFd fd;
  };
  std::vector<Entry> watched_;
};

// How soon the governor looks again after an exit, and after a sample that
// found new processes (a burst of births is under way), at most kFastTicks
// times in a row before the normal interval resumes.
constexpr milliseconds kAfterExit{5};
constexpr milliseconds kFastTick{10};
constexpr int kFastTicks = 5;

std::string quoted_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : argv) {
    if (!out.empty()) out += ' ';
    out += arg;
    if (out.size() > 200) break;
  }
  return out;
}

// The build sentinel (build/sentinel.hpp) for the build rooted at `root`:
// its stdin is a pipe this process holds open until it ends. Without a
// registered executable (tests of the library) there is none; when it cannot
// start, the build runs without one and the log says so.
std::optional<util::Child> start_sentinel(int root, milliseconds grace, LogFile& log) {
  const auto executable = sentinel_executable();
  if (!executable) return std::nullopt;
  util::ChildSpec spec;
  spec.argv = sentinel_argv(*executable, root, grace);
  spec.stdin_pipe = true;
  auto started = util::Child::spawn(spec);
  if (started) return std::move(*started);
  const std::string line = "flashfit: no build sentinel (" + started.error().message +
                           "): if flashfit is killed, this build is not stopped with it\n";
  log.write(line.data(), line.size());
  return std::nullopt;
}

}  // namespace

std::string SupervisedRun::describe() const {
  return util::describe_exit(exit_code, term_signal, timed_out, elapsed);
}

bool stop_process_group(int pgid, std::chrono::milliseconds grace) {
  if (pgid <= 1) return false;  // never every process, never init's group
  if (grace.count() < 0) grace = milliseconds{0};
  terminate_build(pgid);
  const auto start = Clock::now();
  const auto end = start + std::max(grace * 2, grace + milliseconds{1000});
  while (true) {
    if (!group_alive(pgid)) return true;
    const auto now = Clock::now();
    if (now - start >= grace) {
      signal_build(pgid, SIGKILL);  // again each round: a fork may have raced the last
    }
    if (now >= end) return !group_alive(pgid);
    std::this_thread::sleep_for(kStopPoll);
  }
}

util::Result<SupervisedRun> supervise(const SupervisorOptions& options) {
  if (options.argv.empty() || options.argv[0].empty()) {
    return util::fail(util::ErrorKind::internal, "supervise called without a program");
  }
  const std::string command = quoted_command(options.argv);
  if (options.cwd) {
    std::error_code ec;
    if (!std::filesystem::is_directory(*options.cwd, ec)) {
      return util::input_error("the build directory does not exist", options.cwd->string());
    }
  }
  auto log = LogFile::create(options.log_path);
  if (!log) return tl::unexpected(log.error());
  SubreaperScope subreaper;  // before the spawn: no orphan may slip past
  // Own session, and so own process group: Ctrl-C reaches flashfit alone,
  // which then ends the build, and every process of the build, in whatever
  // process group ninja puts it, stays findable by its session. stdout and
  // stderr share one pipe, so the log has them in order.
  util::ChildSpec spec;
  spec.argv = options.argv;
  // Behind the gate (build/gate.hpp) whenever there is a sentinel to start:
  // the build runs only once the sentinel watches it.
  const auto sentinel_exe = sentinel_executable();
  const auto program = sentinel_exe ? gate_program(options.argv[0], options.cwd) : std::nullopt;
  if (program) {
    spec.argv = gate_argv(*sentinel_exe, *program, options.argv);
    spec.stdin_pipe = true;
  }
  spec.cwd = options.cwd;
  spec.set_env = options.set_env;
  spec.unset_env = options.unset_env;
  spec.merge_output = true;
  spec.own_session = true;
  auto spawned = util::Child::spawn(spec);
  if (!spawned) return tl::unexpected(spawned.error());
  util::Child& child = *spawned;
  Group group(child);
  // Declared after the group: on every way out it is stopped first, while
  // this process is alive to stop the build itself.
  std::optional<util::Child> sentinel = start_sentinel(child.pid(), options.grace, *log);
  // Open the gate: with the sentinel up, or without one (the log says so).
  if (program) child.set_stdin(std::string(1, kGateOpen));
  util::RunClock clock(options.timeout, options.grace);

  std::optional<MemoryGovernor> governor;
  if (options.governor) governor.emplace(*options.governor);
  milliseconds interval = governor ? governor->config().interval : kDefaultSampleInterval;
  interval = std::clamp(interval, milliseconds{5}, milliseconds{5000});

  SupervisedRun run;
  LineSplitter lines([&](std::string_view line) {
    ++run.lines;
    if (options.on_line) options.on_line(line);
  });

  StopReason stop = StopReason::none;
  auto next_sample = clock.started();
  ExitWatch exits;
  std::set<int> known_pids;
  int fast_ticks = 0;

  auto begin_stop = [&](StopReason reason) {
    exits.clear();
    stop = reason;
    clock.begin_stop(reason == StopReason::interrupted ? util::RunClock::Cause::interrupted
                     : reason == StopReason::timed_out ? util::RunClock::Cause::timed_out
                                                       : util::RunClock::Cause::other,
                     Clock::now());
    terminate_build(group.pid());
  };
  // Every byte to the log (one that fails stops the build), and to the lines.
  const util::Child::Sink output = [&](util::ChildStream, std::string_view bytes) {
    if (!log->write(bytes.data(), bytes.size()) && stop == StopReason::none)
      begin_stop(StopReason::log_failed);
    lines.feed(bytes);
  };

  // One sample; returns when the next one is due.
  auto sample = [&](Clock::time_point now) {
    const auto samples = sample_process_group(group.pid(), options.proc_root);
    std::uint64_t total = 0;
    for (const auto& s : samples) total += s.rss_bytes;
    run.peak_group_bytes = std::max(run.peak_group_bytes, total);
    if (!governor) return now + interval;
    const auto actions =
        governor->decide(samples, group.pid(), sample_available_memory(options.root));
    MemoryGovernor::apply(actions);
    if (options.on_governor_action) {
      for (const auto& action : actions) options.on_governor_action(action);
    }
    exits.update(samples, group.pid());
    bool births = false;
    std::set<int> pids;
    for (const auto& s : samples) {
      pids.insert(s.pid);
      if (known_pids.count(s.pid) == 0) births = true;
    }
    known_pids = std::move(pids);
    fast_ticks = births ? fast_ticks + 1 : 0;
    return now + (births && fast_ticks <= kFastTicks ? std::min(kFastTick, interval) : interval);
  };

  while (true) {
    auto now = Clock::now();
    milliseconds wait = kStopPoll;
    if (stop == StopReason::none) {
      wait = std::chrono::ceil<milliseconds>(next_sample - now);
      wait = std::clamp(wait, milliseconds{0}, interval);
    }
    std::vector<pollfd> watched;
    if (stop == StopReason::none) exits.add_to(watched);
    child.wait(wait, output, kReadsPerWake, &watched, !group.root_reaped());
    if (exits.take_exits(watched)) next_sample = std::min(next_sample, Clock::now() + kAfterExit);
    group.reap();
    now = Clock::now();

    if (stop == StopReason::none) {
      const auto due = clock.due(now);
      if (due == util::RunClock::Cause::interrupted) {
        begin_stop(StopReason::interrupted);
      } else if (due == util::RunClock::Cause::timed_out) {
        begin_stop(StopReason::timed_out);
      } else if (group.root_reaped()) {
        // The command is done; whatever it left in its group (a daemon, a
        // stray compiler) is stopped, not waited for.
        if (!group_alive(group.pid())) break;
        begin_stop(StopReason::root_exited);
      } else if (now >= next_sample) {
        next_sample = sample(now);
      }
    }
    if (stop != StopReason::none) {
      if (clock.grace_over(now)) {
        signal_build(group.pid(), SIGKILL);  // again each round: a fork may have raced the last
      }
      group.reap(true);
      if (group.root_reaped() && !group_alive(group.pid())) break;
      if (clock.since_stop(now) >= options.grace * 2 + milliseconds{10000} && group.root_reaped()) {
        break;  // something in uninterruptible sleep outlived SIGKILL: as stopped as it gets
      }
    }
  }

  // What the group wrote before it went is still in the pipe; a process that
  // escaped the group (setsid) may keep it open, so read only what is there.
  child.drain(output, kDrainReads);
  lines.finish();
  group.reap(true);
  group.mark_finished();
  const bool log_ok = log->close() && stop != StopReason::log_failed;

  run.elapsed = clock.elapsed();
  const int status = group.root_status();
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.term_signal = WTERMSIG(status);
  run.timed_out = stop == StopReason::timed_out;
  if (governor) {
    run.governor = governor->stats();
    run.peak_group_bytes = std::max(run.peak_group_bytes, run.governor.peak_group_bytes);
  }
  if (stop == StopReason::interrupted || util::interrupted()) {
    return util::fail(util::ErrorKind::interrupted, "interrupted while building", command);
  }
  if (!log_ok) {
    return util::fail(util::ErrorKind::failed, "cannot write the build log",
                      options.log_path.string(), "check the free space of that disk");
  }
  return run;
}

}  // namespace flashfit::build
