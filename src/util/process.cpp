#include "util/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "util/env_vars.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"
#include "util/unique_fd.hpp"
#include "util/verbosity.hpp"

namespace flashfit::util {
namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  UniqueFd read, write;
};

Result<Pipe> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return fail(ErrorKind::failed, std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void append_capped(std::string& sink, const char* data, std::size_t size, std::size_t cap,
                   bool& truncated) {
  const std::size_t room = sink.size() < cap ? cap - sink.size() : 0;
  if (size > room) truncated = true;
  sink.append(data, std::min(size, room));
}

class Spawned {
 public:
  explicit Spawned(pid_t pid)
      : pid_(pid), pidfd_(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))) {}
  Spawned(const Spawned&) = delete;
  Spawned& operator=(const Spawned&) = delete;
  // Never leave a child behind, whatever path we leave by.
  ~Spawned() {
    if (!reaped_) {
      ::kill(-pid_, SIGKILL);
      wait_blocking();
    }
  }
  pid_t pid() const { return pid_; }
  int pidfd() const { return pidfd_.get(); }

  bool try_reap() {
    if (reaped_) return true;
    const pid_t r = ::waitpid(pid_, &status_, WNOHANG);
    if (r == pid_) reaped_ = true;
    return reaped_;
  }
  void wait_blocking() {
    while (!reaped_) {
      const pid_t r = ::waitpid(pid_, &status_, 0);
      if (r == pid_ || (r < 0 && errno != EINTR)) reaped_ = true;
    }
  }
  int status() const { return status_; }

 private:
  pid_t pid_;
  UniqueFd pidfd_;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace

std::string ProcessResult::describe() const {
  if (timed_out) {
    return "timed out after " + std::to_string(elapsed.count() / 1000) + "." +
           std::to_string((elapsed.count() % 1000) / 100) + " s";
  }
  if (term_signal != 0) {
    const char* name = ::strsignal(term_signal);
    return "killed by signal " + std::to_string(term_signal) + " (" + (name ? name : "?") + ")";
  }
  return "exited with status " + std::to_string(exit_code);
}

short reset_child_signals(posix_spawnattr_t& attr) {
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  return POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
}

static Result<ProcessResult> spawn_and_wait(const ProcessSpec& spec);

Result<ProcessResult> run_process(const ProcessSpec& spec) {
  // --verbose: each child's command line, outcome and time.
  std::string line = "run:";
  for (const auto& arg : spec.argv) line += " " + printable(arg, 120);
  TraceSpan span(std::move(line));
  auto result = spawn_and_wait(spec);
  span.set_outcome(result ? result->describe() : result.error().message);
  return result;
}

static Result<ProcessResult> spawn_and_wait(const ProcessSpec& spec) {
  // Writing stdin to a child that already exited raises SIGPIPE, whose default
  // action would kill flashfit; EPIPE from write() is all we need.
  static const bool sigpipe_ignored = [] {
    struct sigaction current {};
    ::sigaction(SIGPIPE, nullptr, &current);
    if (current.sa_handler == SIG_DFL) ::signal(SIGPIPE, SIG_IGN);
    return true;
  }();
  (void)sigpipe_ignored;
  if (spec.argv.empty() || spec.argv[0].empty()) {
    return fail(ErrorKind::internal, "run_process called without a program");
  }
  auto out_pipe = make_pipe();
  auto err_pipe = make_pipe();
  if (!out_pipe) return tl::unexpected(out_pipe.error());
  if (!err_pipe) return tl::unexpected(err_pipe.error());
  Pipe in_pipe;
  if (spec.stdin_data) {
    auto p = make_pipe();
    if (!p) return tl::unexpected(p.error());
    in_pipe = std::move(*p);
    // Our end must not block: a child busy writing its stdout while we write a
    // large stdin would otherwise deadlock against us.
    ::fcntl(in_pipe.write.get(), F_SETFL, ::fcntl(in_pipe.write.get(), F_GETFL) | O_NONBLOCK);
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (spec.stdin_data) {
    posix_spawn_file_actions_adddup2(&actions, in_pipe.read.get(), STDIN_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, out_pipe->write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe->write.get(), STDERR_FILENO);
  if (spec.cwd) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd->c_str());

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group (so Ctrl-C reaches flashfit, which ends the group), and
  // signals as a fresh process has them.
  const short signal_flags = reset_child_signals(attr);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | signal_flags);

  std::vector<std::string> argv_strings = spec.argv;
  std::vector<std::string> env_strings = environment_with(spec.unset_env, spec.set_env);
  auto argv = c_strings(argv_strings);
  auto envp = c_strings(env_strings);

  const auto started = Clock::now();
  pid_t pid = -1;
  // posix_spawnp searches PATH as it is in *our* environment, which is what a
  // user means by "python3 on PATH".
  const int rc = spec.argv[0].find('/') == std::string::npos
                     ? ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data())
                     : ::posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    const bool missing = rc == ENOENT;
    return fail(missing ? ErrorKind::input : ErrorKind::failed,
                std::string("cannot run '") + spec.argv[0] + "': " + std::strerror(rc), "",
                missing ? "check that the program exists and is on PATH" : "");
  }
  Spawned child(pid);
  out_pipe->write.reset();
  err_pipe->write.reset();
  in_pipe.read.reset();

  ProcessResult result;
  std::size_t stdin_written = 0;
  bool stopping = false;
  Clock::time_point kill_deadline{};
  Clock::time_point exited_at{};
  char buffer[65536];

  while (true) {
    std::vector<pollfd> fds;
    if (out_pipe->read) fds.push_back({out_pipe->read.get(), POLLIN, 0});
    if (err_pipe->read) fds.push_back({err_pipe->read.get(), POLLIN, 0});
    if (in_pipe.write) fds.push_back({in_pipe.write.get(), POLLOUT, 0});
    if (child.pidfd() >= 0) fds.push_back({child.pidfd(), POLLIN, 0});
    // Short slices so the interrupt flag and the deadline are seen promptly.
    ::poll(fds.data(), fds.size(), 100);

    for (const auto& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == out_pipe->read.get() || p.fd == err_pipe->read.get()) {
        const bool is_out = p.fd == out_pipe->read.get();
        const ssize_t n = ::read(p.fd, buffer, sizeof buffer);
        if (n > 0) {
          append_capped(is_out ? result.out : result.err, buffer, static_cast<std::size_t>(n),
                        spec.max_output, result.output_truncated);
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          (is_out ? out_pipe->read : err_pipe->read).reset();
        }
      } else if (p.fd == in_pipe.write.get()) {
        const std::string& data = *spec.stdin_data;
        const ssize_t n = stdin_written < data.size() ? ::write(p.fd, data.data() + stdin_written,
                                                                data.size() - stdin_written)
                                                      : 0;
        if (n > 0) stdin_written += static_cast<std::size_t>(n);
        if (stdin_written >= data.size() || (n < 0 && errno != EINTR && errno != EAGAIN)) {
          in_pipe.write.reset();  // EOF for the child, or it stopped reading (EPIPE)
        }
      }
    }

    const bool exited = child.try_reap();
    if (exited && !out_pipe->read && !err_pipe->read) break;
    const auto now = Clock::now();
    // A child that exited but left a descendant holding the pipes open (a
    // daemon): collect output for one grace period more, then stop waiting.
    if (exited) {
      if (exited_at == Clock::time_point{}) exited_at = now;
      if (stopping || now - exited_at >= spec.grace) break;
    }

    if (!stopping) {
      const bool over_time = spec.timeout.count() > 0 && now - started >= spec.timeout;
      if (over_time || interrupted()) {
        result.timed_out = over_time && !interrupted();
        ::kill(-child.pid(), SIGTERM);
        stopping = true;
        kill_deadline = now + spec.grace;
      }
    } else if (now >= kill_deadline) {
      ::kill(-child.pid(), SIGKILL);
      kill_deadline = now + std::chrono::hours(24);
    }
  }

  result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
  const int status = child.status();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  if (stopping) ::kill(-child.pid(), SIGKILL);  // whatever is left of the group
  if (interrupted()) {
    return fail(ErrorKind::interrupted, "interrupted while running '" + spec.argv[0] + "'");
  }
  return result;
}

}  // namespace flashfit::util
