// The child-process engine (child.hpp): spawn, wait, read, write, the clock.
#include "util/child.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <utility>

#include "util/env_vars.hpp"
#include "util/interrupt.hpp"
#include "util/process.hpp"

namespace flashfit::util {
namespace {

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

// A temporary file with no name: nothing is left on disk whichever of flashfit
// and the child dies first.
Result<UniqueFd> make_unlinked_file() {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {  // a file system without O_TMPFILE
    std::string pattern = (dir / "flashfit-output-XXXXXX").string();
    fd = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(pattern.c_str());
  }
  if (fd < 0) {
    return fail(ErrorKind::failed, "cannot create a temporary file for a child's output in " +
                                       dir.string() + ": " + std::strerror(errno));
  }
  return UniqueFd(fd);
}

void set_nonblocking(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// RAII for the posix_spawn attribute objects, so every return path frees them.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

}  // namespace

Result<Child> Child::spawn(const ChildSpec& spec) {
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
    return fail(ErrorKind::internal, "a child process was started without a program");
  }
  Pipe out_pipe, err_pipe;
  UniqueFd out_file, err_file;
  if (spec.output_to_files) {
    auto out = make_unlinked_file();
    if (!out) return tl::unexpected(out.error());
    out_file = std::move(*out);
    if (!spec.merge_output) {
      auto err = make_unlinked_file();
      if (!err) return tl::unexpected(err.error());
      err_file = std::move(*err);
    }
  } else {
    auto out = make_pipe();
    if (!out) return tl::unexpected(out.error());
    out_pipe = std::move(*out);
    if (!spec.merge_output) {
      auto err = make_pipe();
      if (!err) return tl::unexpected(err.error());
      err_pipe = std::move(*err);
    }
  }
  const int out_fd = spec.output_to_files ? out_file.get() : out_pipe.write.get();
  const int err_fd = spec.merge_output      ? out_fd
                     : spec.output_to_files ? err_file.get()
                                            : err_pipe.write.get();
  Pipe in_pipe;
  if (spec.stdin_pipe) {
    auto p = make_pipe();
    if (!p) return tl::unexpected(p.error());
    in_pipe = std::move(*p);
    // Our end must not block: a child busy writing its stdout while we write a
    // large stdin would otherwise deadlock against us.
    set_nonblocking(in_pipe.write.get());
  }

  SpawnSetup setup;
  if (spec.stdin_pipe) {
    posix_spawn_file_actions_adddup2(&setup.actions, in_pipe.read.get(), STDIN_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&setup.actions, out_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, err_fd, STDERR_FILENO);
  if (spec.cwd) posix_spawn_file_actions_addchdir_np(&setup.actions, spec.cwd->c_str());
  // A group (or session) of its own, so Ctrl-C reaches flashfit alone, which
  // then ends the child's processes; signals as a fresh process has them.
  const short signal_flags = reset_child_signals(setup.attr);
  if (spec.own_session) {
    posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETSID | signal_flags);
  } else {
    posix_spawnattr_setpgroup(&setup.attr, 0);
    posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETPGROUP | signal_flags);
  }

  std::vector<std::string> argv_strings = spec.argv;
  std::vector<std::string> env_strings = environment_with(spec.unset_env, spec.set_env);
  auto argv = c_strings(argv_strings);
  auto envp = c_strings(env_strings);

  pid_t pid = -1;
  // posix_spawnp searches PATH as it is in *our* environment, which is what a
  // user means by "python3 on PATH".
  const int rc =
      spec.argv[0].find('/') == std::string::npos
          ? ::posix_spawnp(&pid, argv[0], &setup.actions, &setup.attr, argv.data(), envp.data())
          : ::posix_spawn(&pid, argv[0], &setup.actions, &setup.attr, argv.data(), envp.data());
  if (rc != 0) {
    const bool missing = rc == ENOENT;
    return fail(missing ? ErrorKind::input : ErrorKind::failed,
                std::string("cannot run '") + spec.argv[0] + "': " + std::strerror(rc), "",
                missing ? "check that the program exists and is on PATH" : "");
  }
  Child child;
  child.pid_ = pid;
  child.reaped_ = false;
  child.pidfd_.reset(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  // Only the child may hold the write ends, or the pipes never report EOF.
  out_pipe.write.reset();
  err_pipe.write.reset();
  in_pipe.read.reset();
  child.out_ = std::move(out_pipe.read);
  child.err_ = std::move(err_pipe.read);
  child.in_ = std::move(in_pipe.write);
  child.out_file_ = std::move(out_file);
  child.err_file_ = std::move(err_file);
  if (child.out_) set_nonblocking(child.out_.get());
  if (child.err_) set_nonblocking(child.err_.get());
  return child;
}

Child::Child(Child&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      reaped_(std::exchange(other.reaped_, true)),
      status_(other.status_),
      in_(std::move(other.in_)),
      out_(std::move(other.out_)),
      err_(std::move(other.err_)),
      pidfd_(std::move(other.pidfd_)),
      out_file_(std::move(other.out_file_)),
      err_file_(std::move(other.err_file_)),
      stdin_data_(std::move(other.stdin_data_)),
      stdin_written_(other.stdin_written_) {}

Child::~Child() {
  if (reaped_ || pid_ <= 0) return;
  ::kill(-pid_, SIGKILL);
  reap_blocking();
}

bool Child::try_reap() {
  if (reaped_) return true;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) note_reaped(status);
  return reaped_;
}

void Child::reap_blocking() {
  while (!reaped_) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, 0);
    if (r == pid_) {
      note_reaped(status);
    } else if (r < 0 && errno != EINTR) {
      reaped_ = true;  // not ours to wait for any more (reaped elsewhere)
    }
  }
}

void Child::note_reaped(int status) {
  reaped_ = true;
  status_ = status;
}

void Child::set_stdin(std::string data) {
  stdin_data_ = std::move(data);
  stdin_written_ = 0;
}

bool Child::read_some(UniqueFd& fd, ChildStream stream, const Sink& sink, int reads) {
  char buffer[65536];
  for (int i = 0; fd && i < reads; ++i) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n > 0) {
      sink(stream, std::string_view(buffer, static_cast<std::size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;
    fd.reset();  // EOF, or an error that will not go away
  }
  return static_cast<bool>(fd);
}

void Child::write_stdin() {
  if (!in_) return;
  const ssize_t n = stdin_written_ < stdin_data_.size()
                        ? ::write(in_.get(), stdin_data_.data() + stdin_written_,
                                  stdin_data_.size() - stdin_written_)
                        : 0;
  if (n > 0) stdin_written_ += static_cast<std::size_t>(n);
  if (stdin_written_ >= stdin_data_.size() || (n < 0 && errno != EINTR && errno != EAGAIN)) {
    in_.reset();  // EOF for the child, or it stopped reading (EPIPE)
  }
}

void Child::wait(std::chrono::milliseconds slice, const Sink& sink, int reads,
                 std::vector<pollfd>* extra, bool watch_exit) {
  std::vector<pollfd> fds;
  if (out_) fds.push_back({out_.get(), POLLIN, 0});
  if (err_) fds.push_back({err_.get(), POLLIN, 0});
  if (in_) fds.push_back({in_.get(), POLLOUT, 0});
  if (watch_exit && pidfd_) fds.push_back({pidfd_.get(), POLLIN, 0});
  const std::size_t own = fds.size();
  if (extra) fds.insert(fds.end(), extra->begin(), extra->end());
  const int timeout = static_cast<int>(std::max<std::chrono::milliseconds::rep>(slice.count(), 0));
  if (fds.empty()) {
    ::poll(nullptr, 0, timeout);
  } else {
    ::poll(fds.data(), fds.size(), timeout);
  }
  if (extra) {
    for (std::size_t i = 0; i < extra->size(); ++i) (*extra)[i].revents = fds[own + i].revents;
  }
  for (std::size_t i = 0; i < own; ++i) {
    const pollfd& p = fds[i];
    if (p.revents == 0) continue;
    if (out_ && p.fd == out_.get()) {
      read_some(out_, ChildStream::out, sink, reads);
    } else if (err_ && p.fd == err_.get()) {
      read_some(err_, ChildStream::err, sink, reads);
    } else if (in_ && p.fd == in_.get()) {
      write_stdin();
    }
  }
}

void Child::read_output_files(const Sink& sink) {
  char buffer[65536];
  for (auto [fd, stream] : {std::pair{out_file_.get(), ChildStream::out},
                            std::pair{err_file_.get(), ChildStream::err}}) {
    if (fd < 0) continue;
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      sink(stream, std::string_view(buffer, static_cast<std::size_t>(n)));
      at += n;
    }
  }
}

void Child::drain(const Sink& sink, int reads) {
  read_some(out_, ChildStream::out, sink, reads);
  read_some(err_, ChildStream::err, sink, reads);
}

RunClock::RunClock(std::chrono::milliseconds timeout, std::chrono::milliseconds grace)
    : started_(Clock::now()), timeout_(timeout), grace_(grace) {}

std::chrono::milliseconds RunClock::elapsed() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_);
}

RunClock::Cause RunClock::due(Clock::time_point now) const {
  if (interrupted()) return Cause::interrupted;
  if (timeout_.count() > 0 && now - started_ >= timeout_) return Cause::timed_out;
  return Cause::none;
}

void RunClock::begin_stop(Cause cause, Clock::time_point now) {
  cause_ = cause;
  stop_began_ = now;
}

bool RunClock::grace_over(Clock::time_point now) const {
  return stopping() && now - stop_began_ >= grace_;
}

std::chrono::milliseconds RunClock::since_stop(Clock::time_point now) const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(now - stop_began_);
}

std::string describe_exit(int exit_code, int term_signal, bool timed_out,
                          std::chrono::milliseconds elapsed) {
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

}  // namespace flashfit::util
