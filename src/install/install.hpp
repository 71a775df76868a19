#pragma once
// The install workflow: for each compatible candidate in rank order, fetch it
// into the cache, inspect the bytes against this environment, install it with
// --no-deps, and prove the import in a fresh interpreter. A candidate that
// fails inspection is never installed; one that fails the import check is
// rolled back and the next is tried (this is how a mislabelled wheel is
// replaced by one that works). If none works, what was installed before is
// restored. Every attempt is reported.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "env/environment.hpp"
#include "install/import_check.hpp"
#include "install/install_plan.hpp"
#include "install/installed.hpp"
#include "install/installer.hpp"
#include "resolve/resolver.hpp"
#include "store/wheel_cache.hpp"
#include "util/error.hpp"

namespace flashfit::install {

class PreloadedCheck;  // install/preloaded_check.hpp
class SharedLinesRun;  // install/lines_run.hpp

struct InstallOptions {
  bool dry_run = false;
  std::size_t max_attempts = 5;
  // A wheel file the user named: its label's claims are only claims, so it is
  // tried even when rejected, and inspection of its bytes decides.
  bool try_rejected = false;
  std::chrono::seconds import_timeout{180};
  std::filesystem::path temp_dir;  // extraction (the caller removes it)
  // The previous version's files while a new one is tried: removed once it is
  // proven restored (or the new one installed), kept otherwise (the message names it).
  std::filesystem::path backup_dir;
  // Keep the replaced version's backup after a successful install (for `install --undo`).
  bool keep_replaced = false;
  // An import check's interpreter started earlier (install -r starts one
  // before its installer run): the first attempt's check uses it when it
  // proves still valid.
  std::shared_ptr<PreloadedCheck> preloaded;
  // install -r's run over its other lines, still to run: the first attempt
  // that reaches the installer takes them into its run (install/lines_run).
  std::shared_ptr<SharedLinesRun> lines;
  std::function<void(std::string_view)> progress;  // one line per step, to stderr
};

// Where an attempt ended (its last step, or the success).
enum class AttemptStage { download, inspect, install, import_check, installed, would_install };
std::string_view to_string(AttemptStage stage);  // "download", ..., "would install"

struct Attempt {
  std::string filename;
  std::string url;
  std::string source;  // the source's name (config and recipes name them)
  AttemptStage stage = AttemptStage::download;
  bool ok = false;
  std::string detail;  // why it stopped there, or what was installed
  std::optional<std::string> sha256;
  std::optional<ImportCheck> import_check;
};

struct InstallOutcome {
  std::string installer;  // "pip 23.0.1 from ..." / "uv ..."
  std::vector<Attempt> attempts;
  std::optional<std::size_t> installed;  // index into attempts
  std::optional<std::string> previous;   // version installed before, if any
  std::string
      restore;  // "", "restored 0.9", "removed (nothing was installed before)", or a failure
  // With keep_replaced: the backup of the version this install replaced; the caller owns it.
  std::optional<Backup> replaced;
  std::optional<InstallPlan> plan;  // what was planned (the dry run's answer)
  bool torch_untouched = true;      // torch's files are the same before and after
  std::string torch_note;
};

class InstallSteps;  // install/install_steps.hpp

// What running a plan needs besides the plan.
struct PlanRun {
  const InstallPlan& plan;
  const resolve::Recipe* recipe;
  const env::Environment& environment;  // the interpreter (known), GPU presence
  const Installer& installer;
  const std::optional<InstalledDist>& before;  // what plan_install was told
  const InstallOptions& options;
};

// Acts on `plan` through `steps`: fills outcome's attempts, installed and
// restore. A RestoreGuard puts the environment back on every way out (an
// error, Ctrl-C at any step, a failed uninstall); an error's message says
// how the restore went.
util::Result<void> run_plan(const PlanRun& run, InstallSteps& steps, InstallOutcome& outcome);

// Runs the workflow over `resolution`'s compatible candidates (in order).
util::Result<InstallOutcome> install_resolution(const resolve::Resolution& resolution,
                                                const resolve::Recipe* recipe,
                                                const env::Environment& environment,
                                                store::WheelCache& cache,
                                                const InstallOptions& options);

}  // namespace flashfit::install
