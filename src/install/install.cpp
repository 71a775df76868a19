#include "install/install.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "binary/inspect.hpp"
#include "binary/wheel.hpp"
#include "env/load_host.hpp"
#include "install/cached_verdict.hpp"
#include "install/installed.hpp"
#include "install/restore_guard.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"

namespace flashfit::install {
namespace {
namespace fs = std::filesystem;

void say(const InstallOptions& options, const std::string& line) {
  if (options.progress) options.progress(line);
}

// What proves the binary: the recipe's module, else every extension module
// and top-level package in the wheel.
std::vector<std::string> modules_to_import(const resolve::Recipe* recipe,
                                           const fs::path& wheel_path) {
  if (recipe && !recipe->binary_module.empty()) return {recipe->binary_module};
  auto wheel = binary::open_wheel(wheel_path);
  if (!wheel) return {};
  std::vector<std::string> members;
  for (const binary::WheelMember& m : wheel->members()) members.push_back(m.name);
  std::vector<std::string> top_level;
  if (auto text = wheel->read_member(wheel->dist_info() + "/top_level.txt", 1 << 20)) {
    for (std::string_view line : util::split(*text, '\n')) top_level.emplace_back(util::trim(line));
  }
  return module_names(members, top_level);
}

std::vector<std::string> wheel_members(const fs::path& wheel_path) {
  std::vector<std::string> members;
  if (auto wheel = binary::open_wheel(wheel_path)) {
    for (const binary::WheelMember& m : wheel->members()) members.push_back(m.name);
  }
  return members;
}

struct Workflow {
  const resolve::Resolution& resolution;
  const resolve::Recipe* recipe;
  const env::Environment& environment;
  store::WheelCache& cache;
  const InstallOptions& options;
  const Installer& installer;
  const std::optional<InstalledDist>& before;
  RestoreGuard& guard;
  InstallOutcome& outcome;
};

// Tries the candidates in order until one is installed and proven. Every
// return, error or not, leaves the restore to the caller's guard.
util::Result<void> try_candidates(const Workflow& w) {
  const auto& interpreter = *w.environment.python.interpreter;
  const std::string package = w.resolution.request.name;
  binary::LoadHost host = env::load_host_for(w.environment);
  // The compiled module this package must carry comes from its recipe.
  if (w.recipe && !w.recipe->binary_module.empty())
    host.required_modules = {{w.recipe->name, w.recipe->binary_module}};
  const InstallOptions& options = w.options;
  const fs::path work = options.temp_dir;
  for (const resolve::Judged& j : w.resolution.candidates) {
    if ((!j.compatible() && !options.try_rejected) ||
        w.outcome.attempts.size() >= options.max_attempts)
      break;
    if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
    Attempt attempt{j.candidate->filename,
                    j.candidate->url,
                    j.candidate->source,
                    AttemptStage::download,
                    false,
                    "",
                    j.candidate->sha256,
                    {}};
    if (options.dry_run) {
      attempt.stage = AttemptStage::would_install;
      attempt.ok = true;
      attempt.detail = fmt::format(
          "would download, inspect, install with {} --no-deps, then import {}", to_string(w.installer.kind),
          util::join(w.recipe && !w.recipe->binary_module.empty()
                         ? std::vector<std::string>{w.recipe->binary_module}
                         : std::vector<std::string>{"its modules"},
                     ", "));
      w.outcome.attempts.push_back(std::move(attempt));
      break;
    }
    say(options, fmt::format("fetching {} ({})", j.candidate->filename, j.candidate->source));
    auto entry = w.cache.fetch(j.candidate->url, j.candidate->sha256,
                                 store::EntryOrigin::fetched_from(j.candidate->source));
    if (!entry) {
      if (entry.error().kind == util::ErrorKind::interrupted) return tl::unexpected(entry.error());
      attempt.detail = entry.error().message;
      w.outcome.attempts.push_back(std::move(attempt));
      continue;
    }
    attempt.sha256 = entry->sha256;

    attempt.stage = AttemptStage::inspect;
    // The cache is content-addressed: a verdict recorded for these bytes in
    // this same environment still holds, and re-reading 100+ MB proves nothing new.
    bool torch_extension = w.recipe != nullptr;
    auto verdict = inspect_cached(w.cache, *entry, w.environment, host, work);
    if (!verdict) {
      if (verdict.error().kind == util::ErrorKind::interrupted)
        return tl::unexpected(verdict.error());
      attempt.detail = verdict.error().message;
      w.outcome.attempts.push_back(std::move(attempt));
      continue;
    }
    const std::optional<store::InspectRecord> record = verdict->record;
    torch_extension = torch_extension || record->torch_extension;
    say(options, verdict->reused
                     ? fmt::format("{} was inspected for this environment before: {}",
                                   entry->filename, record->summary)
                     : fmt::format("inspected {}: {}", entry->filename, record->summary));
    if (!record->compatible) {
      attempt.detail = "rejected before installing: " + record->summary;
      say(options, attempt.detail);
      w.outcome.attempts.push_back(std::move(attempt));
      continue;
    }

    // The installer replaces only what is where it writes: a version in
    // another site dir (a system package seen through --system-site-packages)
    // stays untouched and needs no backup.
    if (w.before && !w.guard.backup() && w.guard.writes_into(w.before->site_dir)) {
      auto made = backup_installed(*w.before, options.backup_dir);
      if (!made) return tl::unexpected(made.error());
      w.guard.keep_backup(std::move(*made));
    }
    attempt.stage = AttemptStage::install;
    say(options, fmt::format("installing {} with {} --no-deps", entry->filename, to_string(w.installer.kind)));
    // From here the environment may change, even when pip fails or is stopped.
    w.guard.changing(wheel_members(entry->path));
    auto ran = run_installer(install_argv(w.installer, entry->path));
    if (!ran) return tl::unexpected(ran.error());
    if (!ran->succeeded()) {
      attempt.detail = fmt::format("{} {}: {}", to_string(w.installer.kind), ran->describe(),
                                   util::printable(std::string(util::trim(ran->err)), 600));
      w.outcome.attempts.push_back(std::move(attempt));
      continue;
    }

    attempt.stage = AttemptStage::import_check;
    say(options, "checking the import in a fresh interpreter");
    bool gpu_present = w.environment.gpu.gpus.known() && !w.environment.gpu.gpus->empty();
    const std::vector<std::string> modules = modules_to_import(w.recipe, entry->path);
    auto check = check_imports(
        {interpreter.executable, modules, gpu_present, torch_extension, options.import_timeout});
    if (!check) return tl::unexpected(check.error());
    attempt.import_check = *check;
    if (!check->ok()) {
      attempt.detail = "rolled back: " + check->first_failure();
      say(options, attempt.detail);
      auto removed = run_installer(uninstall_argv(w.installer, package));
      if (!removed) {
        w.outcome.attempts.push_back(std::move(attempt));
        return tl::unexpected(removed.error());
      }
      if (!removed->succeeded()) {
        // The environment is in a state pip could not undo: no further wheel
        // goes on top of it; the guard puts the previous version back.
        attempt.detail += fmt::format("; uninstalling it failed ({} {}: {})", to_string(w.installer.kind),
                                      removed->describe(),
                                      util::printable(std::string(util::trim(removed->err)), 300));
        w.outcome.attempts.push_back(std::move(attempt));
        break;
      }
      w.outcome.attempts.push_back(std::move(attempt));
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
    w.guard.commit();
    entry->installed_in.push_back(w.before ? w.before->site_dir.string() : interpreter.purelib);
    (void)w.cache.update(*entry);
    w.outcome.installed = w.outcome.attempts.size();
    w.outcome.attempts.push_back(std::move(attempt));
    break;
  }
  return {};
}

}  // namespace

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
  auto torch_fingerprint = [&] {
    std::vector<std::string> out;
    if (environment.torch.library_dir.known())
      out = tree_fingerprint(*environment.torch.library_dir);
    if (environment.torch.package_dir.known()) {
      std::error_code ec;
      const fs::path version = *environment.torch.package_dir / "version.py";
      auto size = fs::file_size(version, ec);
      auto mtime = fs::last_write_time(version, ec).time_since_epoch().count();
      out.push_back(fmt::format("{} {} {}", version.string(), size, mtime));
    }
    return out;
  };
  std::vector<std::string> torch_before;
  if (environment.torch.package_dir.known()) torch_before = torch_fingerprint();

  RestoreScope scope{package, interpreter.site_dirs, {}, interpreter.prefix};
  for (const std::string& dir : {interpreter.purelib, interpreter.platlib}) {
    if (!dir.empty() && std::find(scope.target_dirs.begin(), scope.target_dirs.end(),
                                  fs::path(dir)) == scope.target_dirs.end()) {
      scope.target_dirs.emplace_back(dir);
    }
  }
  RestoreGuard guard(std::move(scope), options.progress);
  util::Result<void> tried = try_candidates(
      {resolution, recipe, environment, cache, options, *installer, before, guard, outcome});
  // Every way out of the attempts, errors and Ctrl-C included: put back what
  // was there before unless a new version was installed and proven.
  outcome.restore = guard.settle();
  if (!torch_before.empty() && !options.dry_run) {
    outcome.torch_untouched = torch_fingerprint() == torch_before;
    outcome.torch_note =
        outcome.torch_untouched ? "torch's files are unchanged" : "torch's files changed";
  }
  if (!tried) {
    util::Error error = std::move(tried.error());
    if (!outcome.restore.empty()) error.message += "; " + outcome.restore;
    return tl::unexpected(std::move(error));
  }
  return outcome;
}

}  // namespace flashfit::install
