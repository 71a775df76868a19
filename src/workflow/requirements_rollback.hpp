#pragma once
// install -r's promise for the compiled packages it takes: when one fails, or
// the run is interrupted, those installed before it in the same run are
// rolled back too, newest first, so the run leaves none of flashfit's own
// installs half done.
//
// Each successful `flashfit install` leaves the record `install --undo`
// reads (workflow/undo), and the next install removes the backup that record
// names. Between the packages of one run this keeps every record (and its
// backup) instead: a package that replaced a version is undone from its
// backup, one that was new is uninstalled. When the run succeeds the last
// record is put back, as after a plain `flashfit install`, and the older
// backups go.
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "env/environment.hpp"
#include "util/error.hpp"
#include "workflow/undo.hpp"

namespace flashfit::workflow {

// What rolling one package back did.
struct RolledBack {
  std::string package;
  bool ok = false;
  std::string outcome;  // "restored 2.7.4", "removed (it was new)", or why it could not be
};

// "what this run installed before, newest first: ffa: restored 0.9; ffb: ..."
// (empty when nothing was rolled back), for an error that ends a run.
std::string describe_rolled_back(const std::vector<RolledBack>& rolled);

class HeldInstalls {
 public:
  // Notes the record there is now (an earlier run's), which is never held.
  explicit HeldInstalls(std::filesystem::path cache_root);
  HeldInstalls(const HeldInstalls&) = delete;
  HeldInstalls& operator=(const HeldInstalls&) = delete;

  // After `package`'s successful install: the record it left moves into this
  // run's keeping, so that the next install does not remove its backup. A
  // record of another package, or the one there was before, is left alone.
  util::Result<void> hold(std::string_view package);
  // A later package failed, or the run was interrupted: every held install
  // undone, newest first. Interrupted while it runs, the rest are left
  // installed ("not rolled back: interrupted"), the newest of them recorded
  // for `install --undo`, every backup kept.
  std::vector<RolledBack> roll_back(const env::Environment& environment,
                                    const std::function<void(std::string_view)>& progress);
  // Interrupted (Ctrl-C, SIGTERM): roll_back with the interrupt cleared while
  // it runs (a second one stops it), set again after; `error` comes back with
  // each outcome appended, newest first. `probe` gives the environment to roll
  // back in, called once the interrupt is cleared (probing may spawn).
  util::Error roll_back_interrupted(util::Error error,
                                    const std::function<env::Environment()>& probe,
                                    const std::function<void(std::string_view)>& progress);
  // The run succeeded: the newest record is put back for `install --undo`,
  // the older backups removed.
  util::Result<void> release();
  // The packages held so far, oldest first.
  std::vector<std::string> packages() const;

 private:
  std::filesystem::path cache_root_;
  std::vector<InstallRecord> held_;
  std::string earlier_time_;  // the record there was before the run: not this run's
};

}  // namespace flashfit::workflow
