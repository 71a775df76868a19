#include "install/install.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "install/install_plan.hpp"
#include "install/install_steps.hpp"
#include "install/installed.hpp"
#include "install/lines_run.hpp"
#include "install/preloaded_check.hpp"
#include "install/restore_guard.hpp"
#include "pkg/version.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"

namespace flashfit::install {
namespace {
namespace fs = std::filesystem;

void say(const InstallOptions& options, const std::string& line) {
  if (options.progress) options.progress(line);
}

// Whether pip would skip `wheel_version` over the installed version (the
// same version, local label included, is "already satisfied" without
// --force-reinstall, which a run over the user's lines cannot take).
// Unreadable: assumed so.
bool installer_may_skip(const std::optional<InstalledDist>& before,
                        const std::string& wheel_version) {
  if (!before) return false;
  auto installed = pkg::Version::parse(before->version);
  auto wheel = pkg::Version::parse(wheel_version);
  return !installed || !wheel || *installed == *wheel;
}

// The attempt's installer run. install -r's other lines, while still to
// run, go into it (one installer start instead of two); a combined run that
// fails leaves the verdict to the lines by themselves and then to the wheel
// by itself, so neither is blamed for the other. Lines that cannot share
// this run go in first by themselves, as without sharing: nothing of the
// package is installed before them.
util::Result<util::ProcessResult> install_run(const PlanRun& w, InstallSteps& steps,
                                              const store::CacheEntry& entry) {
  const InstallOptions& options = w.options;
  SharedLinesRun* lines = options.lines.get();
  if (lines != nullptr && lines->pending() && !installer_may_skip(w.before, entry.version)) {
    say(options, fmt::format("installing {} with the requirements' other lines, in one {} run",
                             entry.filename, to_string(w.installer.kind)));
    auto ran = lines->run_with(entry.path);
    if (!ran || ran->succeeded()) return ran;
    say(options, fmt::format("that run {}: the lines by themselves, then {} by itself",
                             ran->describe(), entry.filename));
  }
  if (lines != nullptr) {
    if (lines->pending())
      say(options, fmt::format("{} {} is installed: the requirements' other lines first, by "
                               "themselves (pip would take the same version as satisfied)",
                               w.plan.package, entry.version));
    if (auto alone = lines->ensure_lines(); !alone) return tl::unexpected(alone.error());
  }
  say(options,
      fmt::format("installing {} with {} --no-deps", entry.filename, to_string(w.installer.kind)));
  return steps.run_installer(install_argv(w.installer, entry.path));
}

// Tries the plan's candidates in order until one is installed and proven.
// Every return, error or not, leaves the restore to the caller's guard.
util::Result<void> try_candidates(const PlanRun& w, InstallSteps& steps, RestoreGuard& guard,
                                  InstallOutcome& outcome) {
  const auto& interpreter = *w.environment.python.interpreter;
  const std::string package = w.plan.package;
  const InstallOptions& options = w.options;
  for (const PlannedCandidate& planned : w.plan.candidates) {
    const resolve::Candidate& candidate = *planned.judged->candidate;
    if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
    Attempt attempt{candidate.filename,
                    candidate.url,
                    candidate.source,
                    AttemptStage::download,
                    false,
                    "",
                    candidate.sha256,
                    {}};
    if (options.dry_run) {
      attempt.stage = AttemptStage::would_install;
      attempt.ok = true;
      attempt.detail =
          fmt::format("would download, inspect, install with {} --no-deps, then import {}",
                      to_string(w.installer.kind),
                      util::join(w.recipe && !w.recipe->binary_module.empty()
                                     ? std::vector<std::string>{w.recipe->binary_module}
                                     : std::vector<std::string>{"its modules"},
                                 ", "));
      outcome.attempts.push_back(std::move(attempt));
      break;
    }
    say(options, fmt::format("fetching {} ({})", candidate.filename, candidate.source));
    auto entry = steps.fetch(candidate);
    if (!entry) {
      if (entry.error().kind == util::ErrorKind::interrupted) return tl::unexpected(entry.error());
      attempt.detail = entry.error().message;
      outcome.attempts.push_back(std::move(attempt));
      continue;
    }
    attempt.sha256 = entry->sha256;

    attempt.stage = AttemptStage::inspect;
    bool torch_extension = w.recipe != nullptr;
    auto verdict = steps.inspect(*entry);
    if (!verdict) {
      if (verdict.error().kind == util::ErrorKind::interrupted)
        return tl::unexpected(verdict.error());
      attempt.detail = verdict.error().message;
      outcome.attempts.push_back(std::move(attempt));
      continue;
    }
    const store::InspectRecord& record = verdict->record;
    torch_extension = torch_extension || record.torch_extension;
    say(options, verdict->reused
                     ? fmt::format("{} was inspected for this environment before: {}",
                                   entry->filename, record.summary)
                     : fmt::format("inspected {}: {}", entry->filename, record.summary));
    if (!record.compatible) {
      attempt.detail = "rejected before installing: " + record.summary;
      say(options, attempt.detail);
      outcome.attempts.push_back(std::move(attempt));
      continue;
    }

    // The installer replaces only what is where it writes: a version in
    // another site dir (a system package seen through --system-site-packages)
    // stays untouched and needs no backup (the plan says which).
    // The check's interpreter starts now: it imports torch while the installer runs.
    steps.start_import_check(torch_extension);
    if (w.before && w.plan.backup_previous && !guard.backup()) {
      auto made = steps.backup(*w.before, options.backup_dir);
      if (!made) return tl::unexpected(made.error());
      guard.keep_backup(std::move(*made));
    }
    attempt.stage = AttemptStage::install;
    // From here the environment may change, even when pip fails or is stopped.
    guard.changing(steps.members(entry->path));
    auto ran = install_run(w, steps, *entry);
    if (!ran) return tl::unexpected(ran.error());
    if (!ran->succeeded()) {
      attempt.detail = fmt::format("{} {}: {}", to_string(w.installer.kind), ran->describe(),
                                   util::printable(std::string(util::trim(ran->err)), 600));
      outcome.attempts.push_back(std::move(attempt));
      continue;
    }

    attempt.stage = AttemptStage::import_check;
    say(options, "checking the import");
    bool gpu_present = w.environment.gpu.gpus.known() && !w.environment.gpu.gpus->empty();
    const std::vector<std::string> modules = steps.modules(entry->path);
    auto check = steps.check_imports(
        {interpreter.executable, modules, gpu_present, torch_extension, options.import_timeout});
    if (!check) return tl::unexpected(check.error());
    if (!check->redone_because.empty()) {
      say(options, fmt::format("the interpreter started before the install was set aside ({}): "
                               "checked again in a fresh interpreter",
                               check->redone_because));
    } else if (check->preloaded) {
      say(options,
          "checked in the interpreter started before the install: nothing it had "
          "loaded changed");
    }
    attempt.import_check = *check;
    if (!check->ok()) {
      attempt.detail = "rolled back: " + check->first_failure();
      say(options, attempt.detail);
      auto removed = steps.run_installer(w.plan.uninstall_argv);
      if (!removed) {
        outcome.attempts.push_back(std::move(attempt));
        return tl::unexpected(removed.error());
      }
      if (!removed->succeeded()) {
        // The environment is in a state pip could not undo: no further wheel
        // goes on top of it; the guard puts the previous version back.
        attempt.detail += fmt::format("; uninstalling it failed ({} {}: {})",
                                      to_string(w.installer.kind), removed->describe(),
                                      util::printable(std::string(util::trim(removed->err)), 300));
        outcome.attempts.push_back(std::move(attempt));
        break;
      }
      outcome.attempts.push_back(std::move(attempt));
      continue;
    }
    attempt.stage = AttemptStage::installed;
    attempt.ok = true;
    // Only what was imported is said to import.
    attempt.detail =
        modules.empty()
            ? fmt::format(
                  "{} {} installed; no import was checked: the wheel holds no importable module",
                  package, entry->version)
            : fmt::format("{} {} installed; imports {}", package, entry->version,
                          util::join(modules, ", "));
    if (options.keep_replaced) outcome.replaced = guard.release_backup();
    guard.commit();
    entry->installed_in.push_back(w.before ? w.before->site_dir.string() : interpreter.purelib);
    steps.record_installed(*entry);
    outcome.installed = outcome.attempts.size();
    outcome.attempts.push_back(std::move(attempt));
    break;
  }
  return {};
}

}  // namespace

util::Result<void> run_plan(const PlanRun& run, InstallSteps& steps, InstallOutcome& outcome) {
  const auto& interpreter = *run.environment.python.interpreter;
  RestoreScope scope{run.plan.package, interpreter.site_dirs, installer_target_dirs(interpreter),
                     interpreter.prefix};
  RestoreGuard guard(std::move(scope), run.options.progress);
  util::Result<void> tried = try_candidates(run, steps, guard, outcome);
  // Every way out of the attempts, errors and Ctrl-C included: put back what
  // was there before unless a new version was installed and proven.
  outcome.restore = guard.settle();
  if (!tried) {
    util::Error error = std::move(tried.error());
    if (!outcome.restore.empty()) error.message += "; " + outcome.restore;
    return tl::unexpected(std::move(error));
  }
  return {};
}

std::string_view to_string(AttemptStage stage) {
  switch (stage) {
    case AttemptStage::download:
      return "download";
    case AttemptStage::inspect:
      return "inspect";
    case AttemptStage::install:
      return "install";
    case AttemptStage::import_check:
      return "import";
    case AttemptStage::installed:
      return "installed";
    case AttemptStage::would_install:
      return "would install";
  }
  return "unknown";
}

util::Result<InstallOutcome> install_resolution(const resolve::Resolution& resolution,
                                                const resolve::Recipe* recipe,
                                                const env::Environment& environment,
                                                store::WheelCache& cache,
                                                const InstallOptions& options) {
  InstallOutcome outcome;
  auto installer = choose_installer(environment);
  if (!installer) return tl::unexpected(installer.error());
  outcome.installer = installer->version;
  const auto& interpreter = *environment.python.interpreter;
  const std::string package = resolution.request.name;

  std::optional<InstalledDist> before = find_installed(interpreter.site_dirs, package);
  if (before) outcome.previous = before->version;
  // torch's libraries and dist metadata: what a reinstall of torch would replace.
  const std::vector<std::string> torch_before = torch_fingerprint(environment);

  PlanInputs plan_inputs{&resolution,          recipe,  &interpreter,
                         &*installer,          &before, options.max_attempts,
                         options.try_rejected, {}};
  // The cache's files for the bytes it already holds: their paths go into the plan.
  // (Only those the plan can hold: the first max_attempts that may be tried.)
  std::size_t looked = 0;
  for (const resolve::Judged& j : resolution.candidates) {
    if ((!j.compatible() && !options.try_rejected) || looked++ >= options.max_attempts) break;
    if (!j.candidate->sha256) continue;
    if (auto hit = cache.find_sha256(*j.candidate->sha256))
      plan_inputs.cached.emplace(*j.candidate->sha256, hit->path);
  }
  outcome.plan = plan_install(plan_inputs);

  RealInstallSteps steps(cache, environment, recipe, options.temp_dir, options.preloaded);
  util::Result<void> ran =
      run_plan({*outcome.plan, recipe, environment, *installer, before, options}, steps, outcome);
  if (!torch_before.empty() && !options.dry_run) {
    outcome.torch_untouched = torch_fingerprint(environment) == torch_before;
    outcome.torch_note =
        outcome.torch_untouched ? "torch's files are unchanged" : "torch's files changed";
  }
  if (!ran) return tl::unexpected(ran.error());
  return outcome;
}

}  // namespace flashfit::install
