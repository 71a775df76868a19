// The supervisor's plumbing (supervisor_io.hpp): spawn with merged output,
// the log file, line splitting. Kept apart so supervisor.cpp reads as the
// loop it is.
#include "build/supervisor_io.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <system_error>
#include <vector>

#include "util/env_vars.hpp"
#include "util/process.hpp"


namespace flashfit::build {
namespace {

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


util::Result<LogFile> LogFile::create(const std::filesystem::path& path) {
  if (path.empty()) {
    return util::fail(util::ErrorKind::internal, "supervise called without a log path");
  }
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return util::fail(util::ErrorKind::failed,
                      std::string("cannot create the build log: ") + std::strerror(errno),
                      path.string(), "choose a writable cache directory");
  }
  LogFile log;
  log.fd_.reset(fd);
  return log;
}

bool LogFile::write(const char* data, std::size_t size) {
  while (ok_ && size > 0) {
    const ssize_t n = ::write(fd_.get(), data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok_ = false;
      break;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return ok_;
}

bool LogFile::close() {
  if (fd_ && ::close(fd_.get()) != 0) ok_ = false;
  fd_ = util::UniqueFd(-1);  // closed above: only forget the number
  return ok_;
}

void LineSplitter::emit(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (emit_) emit_(line);
}

void LineSplitter::feed(std::string_view chunk) {
  while (!chunk.empty()) {
    const auto newline = chunk.find('\n');
    const auto piece = chunk.substr(0, newline);
    if (!skipping_) {
      const std::size_t room = max_line_ - pending_.size();
      if (piece.size() > room) {
        pending_.append(piece.substr(0, room));
        emit(pending_);
        pending_.clear();
        skipping_ = true;
      } else {
        pending_.append(piece);
      }
    }
    if (newline == std::string_view::npos) break;
    if (!skipping_) {
      emit(pending_);
      pending_.clear();
    }
    skipping_ = false;
    chunk.remove_prefix(newline + 1);
  }
}

void LineSplitter::finish() {
  if (!skipping_ && !pending_.empty()) emit(pending_);
  pending_.clear();
  skipping_ = false;
}

util::Result<SpawnedBuild> spawn_with_merged_output(const SupervisorOptions& options) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return util::fail(util::ErrorKind::failed,
                      std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  util::UniqueFd read_end(fds[0]);
  util::UniqueFd write_end(fds[1]);

  SpawnSetup setup;
  posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, write_end.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, write_end.get(), STDERR_FILENO);
  if (options.cwd) posix_spawn_file_actions_addchdir_np(&setup.actions, options.cwd->c_str());
  // Own session, and so own process group: Ctrl-C reaches flashfit alone,
  // which then ends the build, and every process of the build, in whatever
  // process group ninja puts it, stays findable by its session; signals as
  // a fresh process has them.
  const short signal_flags = util::reset_child_signals(setup.attr);
  posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETSID | signal_flags);

  std::vector<std::string> argv_strings = options.argv;
  std::vector<std::string> env_strings = util::environment_with(options.unset_env, options.set_env);
  auto argv = c_strings(argv_strings);
  auto envp = c_strings(env_strings);

  pid_t pid = -1;
  // posix_spawnp searches PATH as it is in *our* environment, which is what a
  // user means by "python3 on PATH".
  const int rc =
      options.argv[0].find('/') == std::string::npos
          ? ::posix_spawnp(&pid, argv[0], &setup.actions, &setup.attr, argv.data(), envp.data())
          : ::posix_spawn(&pid, argv[0], &setup.actions, &setup.attr, argv.data(), envp.data());
  if (rc != 0) {
    const bool missing = rc == ENOENT;
    return util::fail(missing ? util::ErrorKind::input : util::ErrorKind::failed,
                      std::string("cannot run '") + options.argv[0] + "': " + std::strerror(rc), "",
                      missing ? "check that the program exists and is on PATH" : "");
  }
  // Only the child may hold the write end, or the pipe never reports EOF.
  write_end.reset();
  ::fcntl(read_end.get(), F_SETFL, ::fcntl(read_end.get(), F_GETFL) | O_NONBLOCK);
  SpawnedBuild out;
  out.pid = pid;
  out.output = std::move(read_end);
  return out;
}

}  // namespace flashfit::build
