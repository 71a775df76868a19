#pragma once
// The install workflow's promise, kept on every way out: when no new version
// ends up installed and proven, the environment is put back as it was before
// the first installer run (the previous version's files, or none), whether the
// workflow returns normally, returns an error (Ctrl-C or SIGTERM during pip or
// the import check, a spawn failure) or unwinds.
//
// The restore uses no child process: after Ctrl-C every spawn is refused, and
// pip may be the thing that was interrupted. It removes the files the
// package's current dist-info RECORDs list and those the tried wheels would
// have written, copies the backed-up files back, then proves it (the previous
// version is what is found, every backed-up file is there with its size).
// The backup is removed only once that proof holds; otherwise it is kept and
// the message names it.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "install/installed.hpp"

namespace flashfit::install {

struct RestoreScope {
  std::string package;
  std::vector<std::string>
      site_dirs;  // the interpreter's, import order (to find what is installed)
  std::vector<std::filesystem::path> target_dirs;  // where the installer writes (purelib, platlib)
  std::filesystem::path prefix;                    // sys.prefix: nothing outside it is ever removed
};

class RestoreGuard {
 public:
  // `say` receives the restore's outcome when the destructor has to restore
  // (nobody else is left to report it).
  RestoreGuard(RestoreScope scope, std::function<void(std::string_view)> say);
  ~RestoreGuard();
  RestoreGuard(const RestoreGuard&) = delete;
  RestoreGuard& operator=(const RestoreGuard&) = delete;

  // The previous version's files, taken before the first installer run.
  void keep_backup(Backup backup) { backup_ = std::move(backup); }
  const std::optional<Backup>& backup() const { return backup_; }
  // Hands the backup to the caller (kept for `install --undo`): commit and
  // settle no longer remove it.
  std::optional<Backup> release_backup() { return std::exchange(backup_, std::nullopt); }
  // An installer run is about to change the environment with this wheel
  // (its members say which files it may write).
  void changing(std::vector<std::string> wheel_members);
  // The new version is installed and proven: nothing to restore; the backup goes.
  void commit();
  bool changed() const { return changed_ && !settled_; }
  // Whether the installer writes into `site_dir` (what is there may be replaced).
  bool writes_into(const std::filesystem::path& site_dir) const;

  // Restores now if the environment was changed and not committed (a no-op
  // after commit or an earlier settle): "" when nothing changed, "restored
  // 0.9", "removed: nothing was installed before", or "restore failed: ...
  // (the previous files are kept in DIR)".
  std::string settle();

 private:
  std::string restore();

  RestoreScope scope_;
  std::function<void(std::string_view)> say_;
  std::optional<Backup> backup_;
  std::vector<std::string> members_;  // of every wheel tried
  bool changed_ = false;
  bool settled_ = false;
};

}  // namespace flashfit::install
