#include "store/file_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "util/interrupt.hpp"
#include "util/strings.hpp"

namespace flashfit::store {

util::Result<FileLock> FileLock::acquire(const std::filesystem::path& path,
                                         std::chrono::milliseconds wait, std::string_view what,
                                         const std::function<void()>& on_wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  bool told = false;
  while (true) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      return util::fail(
          util::ErrorKind::failed,
          fmt::format("cannot open the lock file for {}: {}", what, std::strerror(errno)),
          path.string(), "check the permissions of the cache directory");
    }
    FileLock lock(fd);
    while (true) {
      if (::flock(fd, LOCK_EX | LOCK_NB) == 0) break;
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) {
        return util::fail(util::ErrorKind::failed,
                          fmt::format("cannot lock {}: {}", what, std::strerror(errno)),
                          path.string());
      }
      if (util::interrupted()) {
        return util::fail(util::ErrorKind::interrupted,
                          fmt::format("interrupted while waiting to lock {}", what));
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        return util::fail(
            util::ErrorKind::failed,
            fmt::format("gave up waiting {} s for the lock on {}",
                        std::chrono::duration_cast<std::chrono::seconds>(wait).count(), what),
            path.string(),
            "another flashfit process holds it (locks die with their process, so it is still "
            "running): wait for it to finish, or stop it");
      }
      if (!told && on_wait) on_wait();
      told = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // gc may have unlinked the file while we waited on it: a lock on a file
    // no longer at `path` excludes no one, so take the one there now.
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 &&
        held.st_ino == named.st_ino && held.st_dev == named.st_dev) {
      return lock;
    }
  }
}

bool FileLock::remove_if_unused(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  FileLock lock(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) return false;
  struct stat held {
  }, named{};
  if (::fstat(fd, &held) != 0 || ::stat(path.c_str(), &named) != 0 || held.st_ino != named.st_ino)
    return false;
  // Unlinked while held: whoever opened it meanwhile finds it gone once it gets the lock, and
  // retries.
  return ::unlink(path.c_str()) == 0;
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace flashfit::store
