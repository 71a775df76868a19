#include "install/install.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "binary/inspect.hpp"
#include "binary/wheel.hpp"
#include "env/load_host.hpp"
#include "install/cached_verdict.hpp"
#include "install/installed.hpp"
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
std::vector<std::string> modules_to_import(const resolve::Recipe* recipe, const fs::path& wheel_path) {
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

}  // namespace

util::Result<InstallOutcome> install_resolution(const resolve::Resolution& resolution, const resolve::Recipe* recipe,
                                                const env::Environment& environment, store::WheelCache& cache,
                                                const InstallOptions& options) {
  InstallOutcome outcome;
  auto installer = choose_installer(environment);
  if (!installer) return tl::unexpected(installer.error());
  outcome.installer = installer->version;
  const auto& interpreter = *environment.python.interpreter;
  const std::string package = resolution.request.name;
  binary::LoadHost host = env::load_host_for(environment);
  if (recipe && !recipe->binary_module.empty()) host.required_modules = {{recipe->name, recipe->binary_module}};

  std::optional<InstalledDist> before = find_installed(interpreter.site_dirs, package);
  if (before) outcome.previous = before->version;
  std::vector<std::string> torch_before;
  // torch's libraries and dist metadata: what a reinstall of torch would replace.
  auto torch_fingerprint = [&] {
    std::vector<std::string> out;
    if (environment.torch.library_dir.known()) out = tree_fingerprint(*environment.torch.library_dir);
    if (environment.torch.package_dir.known()) {
      std::error_code ec;
      const fs::path version = *environment.torch.package_dir / "version.py";
      auto size = fs::file_size(version, ec);
      auto mtime = fs::last_write_time(version, ec).time_since_epoch().count();
      out.push_back(fmt::format("{} {} {}", version.string(), size, mtime));
    }
    return out;
  };
  if (environment.torch.package_dir.known()) torch_before = torch_fingerprint();

  std::optional<Backup> backup;
  bool replaced = false;  // the previous version is no longer in place
  const fs::path work = options.temp_dir;

  for (const resolve::Judged& j : resolution.candidates) {
    if ((!j.compatible() && !options.try_rejected) || outcome.attempts.size() >= options.max_attempts) break;
    if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
    Attempt attempt{j.candidate->filename, j.candidate->url, j.candidate->source, "download", false, "", j.candidate->sha256, {}};
    if (options.dry_run) {
      attempt.stage = "would install";
      attempt.ok = true;
      attempt.detail = fmt::format("would download, inspect, install with {} --no-deps, then import {}",
                                   installer->kind, util::join(recipe && !recipe->binary_module.empty()
                                                                   ? std::vector<std::string>{recipe->binary_module}
                                                                   : std::vector<std::string>{"its modules"},
                                                               ", "));
      outcome.attempts.push_back(std::move(attempt));
      break;
    }
    say(options, fmt::format("fetching {} ({})", j.candidate->filename, j.candidate->source));
    auto entry = cache.fetch(j.candidate->url, j.candidate->sha256, j.candidate->source);
    if (!entry) {
      if (entry.error().kind == util::ErrorKind::interrupted) return tl::unexpected(entry.error());
      attempt.detail = entry.error().message;
      outcome.attempts.push_back(std::move(attempt));
      continue;
    }
    attempt.sha256 = entry->sha256;

    attempt.stage = "inspect";
    // The cache is content-addressed: a verdict recorded for these bytes in
    // this same environment still holds, and re-reading 100+ MB proves nothing new.
    bool torch_extension = recipe != nullptr;
    auto verdict = inspect_cached(cache, *entry, environment, host, work);
    if (!verdict) {
      attempt.detail = verdict.error().message;
      outcome.attempts.push_back(std::move(attempt));
      continue;
    }
    const std::optional<store::InspectRecord> record = verdict->record;
    torch_extension = torch_extension || record->torch_extension;
    say(options, verdict->reused
                     ? fmt::format("{} was inspected for this environment before: {}", entry->filename, record->summary)
                     : fmt::format("inspected {}: {}", entry->filename, record->summary));
    if (!record->compatible) {
      attempt.detail = "rejected before installing: " + record->summary;
      say(options, attempt.detail);
      outcome.attempts.push_back(std::move(attempt));
      continue;
    }

    if (before && !backup) {
      auto made = backup_installed(*before, work / "previous");
      if (!made) return tl::unexpected(made.error());
      backup = std::move(*made);
    }
    attempt.stage = "install";
    say(options, fmt::format("installing {} with {} --no-deps", entry->filename, installer->kind));
    auto ran = run_installer(install_argv(*installer, entry->path));
    if (!ran) return tl::unexpected(ran.error());
    replaced = replaced || ran->succeeded();  // a failed pip run rolls its own changes back
    if (!ran->succeeded()) {
      attempt.detail = fmt::format("{} {}: {}", installer->kind, ran->describe(),
                                   util::printable(std::string(util::trim(ran->err)), 600));
      outcome.attempts.push_back(std::move(attempt));
      continue;
    }

    attempt.stage = "import";
    say(options, "checking the import in a fresh interpreter");
    bool gpu_present = environment.gpu.gpus.known() && !environment.gpu.gpus->empty();
    auto check = check_imports({interpreter.executable, modules_to_import(recipe, entry->path), gpu_present,
                                torch_extension, options.import_timeout});
    if (!check) return tl::unexpected(check.error());
    attempt.import_check = *check;
    if (!check->ok()) {
      attempt.detail = "rolled back: " + check->first_failure();
      say(options, attempt.detail);
      (void)run_installer(uninstall_argv(*installer, package));
      outcome.attempts.push_back(std::move(attempt));
      continue;
    }
    attempt.stage = "installed";
    attempt.ok = true;
    attempt.detail = fmt::format("{} {} installed and imports", package, entry->version);
    entry->installed_in.push_back(before ? before->site_dir.string() : interpreter.purelib);
    (void)cache.update(*entry);
    outcome.installed = outcome.attempts.size();
    outcome.attempts.push_back(std::move(attempt));
    break;
  }

  if (!outcome.installed && !options.dry_run && replaced) {
    // Nothing worked: put back what was there before (or nothing).
    if (auto now = find_installed(interpreter.site_dirs, package)) {
      (void)run_installer(uninstall_argv(*installer, package));
    }
    if (backup) {
      auto restored = restore_backup(*backup);
      outcome.restore = restored ? "restored " + backup->dist.version : "restore failed: " + restored.error().message;
    } else {
      outcome.restore = "removed: nothing was installed before";
    }
  }
  if (!torch_before.empty() && !options.dry_run) {
    outcome.torch_untouched = torch_fingerprint() == torch_before;
    outcome.torch_note = outcome.torch_untouched ? "torch's files are unchanged" : "torch's files changed";
  }
  std::error_code ec;
  fs::remove_all(work / "previous", ec);
  return outcome;
}

}  // namespace flashfit::install
