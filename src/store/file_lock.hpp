#pragma once
// An exclusive flock(2) on a lock file, held for the object's lifetime.
// flock locks belong to an open file description, so they exclude other
// processes and other threads of this one alike, and the kernel drops them
// when their holder dies: a killed flashfit never leaves a stale lock.
// A lock file may be deleted only by `remove_if_unused`, which holds the
// lock while unlinking; `acquire` checks, once it holds a lock, that the file
// is still the one at the path (else a waiter on the unlinked file and a
// newcomer on a new file would both "hold" it) and tries again.
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace flashfit::store {

class FileLock {
 public:
  // Takes the lock on `path` (created when missing), waiting up to `wait`
  // and polling Ctrl-C. `what` names the locked thing in errors ("the
  // download of x.whl"); `on_wait` is called once if the lock is busy.
  static util::Result<FileLock> acquire(const std::filesystem::path& path,
                                        std::chrono::milliseconds wait, std::string_view what,
                                        const std::function<void()>& on_wait = {});

  // Deletes the lock file when no one holds it (gc); false when busy or absent.
  static bool remove_if_unused(const std::filesystem::path& path);

  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace flashfit::store
