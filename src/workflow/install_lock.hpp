#pragma once
// `flashfit install --lock DIR|FILE`: the lock for this environment chosen
// (a directory's index, or one file's header, compared fact by fact with
// compare_keys), then exactly its bytes installed: every compiled package's
// file fetched into the cache against its locked sha256 before anything is
// changed, the installer's lines in one run with --require-hashes --no-deps
// (the lock holds the whole resolution), then each compiled package through
// install's own flow (inspect, --no-deps, import check, roll back).
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "env/environment.hpp"
#include "install/install.hpp"
#include "resolve/recipe.hpp"
#include "util/error.hpp"
#include "workflow/lock_file.hpp"
#include "workflow/lock_index.hpp"
#include "workflow/requirements_check.hpp"
#include "workflow/requirements_rollback.hpp"

namespace flashfit::workflow {

// The lock install --lock acts on, or why none: each candidate file with
// the facts that differ from here.
struct LockMismatch {
  std::string file;
  std::vector<KeyDifference> differences;
};
struct LockSelection {
  std::filesystem::path file;      // the chosen file (empty when none fits)
  std::optional<ParsedLock> lock;  // set when one fits
  std::vector<LockMismatch> mismatches;
};
// PATH a directory: its index (workflow/lock_dir), the entry whose key is
// `here` (choose_lock), that file parsed and its header checked against the
// index. PATH a file: parsed, its header compared. Bad files are input errors.
util::Result<LockSelection> select_lock(const std::filesystem::path& path, const LockKey& here);

// Pure: what a lock needs before anything is installed. Every installer line
// needs a sha256 (pip installs hashed and unhashed lines together only with
// no hashes at all), and none may install another torch than the header's
// (torch_other_than_key); every compiled line's URL must name a wheel of its
// own project (its file name is what install judges); an error names the line. The compiled lines
// without a sha256 are returned (their bytes cannot be checked: a warning each).
util::Result<std::vector<std::string>> check_installable(const ParsedLock& lock);

// The installer's argv for the lock's lines (a requirements file of them).
std::vector<std::string> locked_lines_argv(const install::Installer& installer,
                                           const std::string& requirements);
// That requirements file's text: `name @ URL --hash=sha256:HEX` per installer line.
std::string locked_lines_text(const ParsedLock& lock);

struct InstallLockRequest {
  const ParsedLock* lock = nullptr;
  const env::Environment* environment = nullptr;  // the probed interpreter (this key's)
  const resolve::RecipeBook* book = nullptr;
  std::filesystem::path cache_root;
  bool dry_run = false;
  std::function<void(std::string_view)> progress;  // one line per step, to stderr
};

struct LockedPackageRun {
  LockedLine line;
  bool ok = false;
  std::string detail;  // what happened: installed FILE, or why not
  std::optional<install::InstallOutcome> outcome;
};

struct InstallLockOutcome {
  std::string installer;  // "pip 23.0.1 from ..."
  std::vector<std::string> installer_argv;
  std::size_t installer_lines = 0;
  std::optional<bool> installer_ok;  // nullopt: not run (none, dry run, or a step before failed)
  std::string installer_failure;
  // A compiled file whose bytes are not the locked ones (or cannot be
  // fetched): nothing at all was installed.
  std::optional<std::string> verify_failure;
  std::vector<LockedPackageRun> packages;  // the compiled lines, in the lock's order
  // A compiled package failed: those installed before it, rolled back newest first.
  std::vector<RolledBack> rolled_back;
  // What the installer's run changed (versions before and after).
  std::vector<InstalledChange> installer_changes;
  // The compiled packages' own dependencies nothing installed satisfies: the
  // lock does not hold them (a compiled package is installed --no-deps).
  std::vector<UnmetDependency> unmet;
  bool ok = false;
};

util::Result<InstallLockOutcome> install_lock(const InstallLockRequest& request);

}  // namespace flashfit::workflow
