#include "workflow/install_flow.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "install/installed.hpp"
#include "store/wheel_cache.hpp"
#include "util/paths.hpp"
#include "util/utc_time.hpp"
#include "workflow/undo.hpp"

namespace flashfit::workflow {

namespace fs = std::filesystem;

util::Result<InstallPass> install_resolved(std::unique_ptr<Resolved> resolved,
                                           const InstallPassOptions& options) {
  InstallPass pass;
  std::error_code ec;
  pass.resolved = std::move(resolved);
  const Resolved& r = *pass.resolved;
  pass.named_file = options.wheel_file && !r.resolution.candidates.empty();
  if (pass.named_file && !r.resolution.selected) {
    for (const resolve::Reason& reason : r.resolution.candidates.front().reasons) {
      if (options.warning) {
        options.warning(fmt::format("{}: {} (the file's bytes will decide)",
                                    resolve::to_string(reason.code), reason.message));
      }
    }
  }
  if (r.resolution.selected || pass.named_file) {
    auto cache_root = util::require_cache_root();
    if (!cache_root) return tl::unexpected(cache_root.error());
    auto cache = store::WheelCache::open(*cache_root);
    if (!cache) return tl::unexpected(cache.error());
    install::InstallOptions install_options;
    install_options.dry_run = options.dry_run;
    install_options.max_attempts = options.max_attempts;
    install_options.try_rejected = pass.named_file;
    install_options.temp_dir = *cache_root / "tmp" / fmt::format("install-{}", ::getpid());
    fs::create_directories(install_options.temp_dir, ec);
    // Not inside temp_dir: a backup outlives this run when its restore cannot be proven.
    install_options.backup_dir =
        *cache_root / "backups" / fmt::format("{}-{}", r.resolution.request.name, ::getpid());
    install_options.progress = options.progress;
    install_options.keep_replaced = !options.dry_run;  // for install --undo
    install_options.preloaded = options.preloaded;
    install_options.lines = options.lines;
    auto done =
        install::install_resolution(r.resolution, r.recipe, r.environment, *cache, install_options);
    fs::remove_all(install_options.temp_dir, ec);
    if (!done) return tl::unexpected(done.error());
    if (auto saved = remember_install(*cache_root, r.environment, r.resolution.request.name, *done);
        !saved && options.warning) {
      options.warning("install --undo will not know this install: " + saved.error().message);
    }
    pass.outcome = std::move(*done);
  }
  return pass;
}

bool installed_ok(const InstallPass& pass, bool dry_run) {
  return pass.outcome.installed.has_value() || (dry_run && !pass.outcome.attempts.empty());
}

bool hand_over_to_build(const InstallPass& pass, bool no_build, bool dry_run) {
  if (no_build || dry_run || pass.named_file || installed_ok(pass, dry_run)) return false;
  const auto& suggestions = pass.resolved->resolution.suggestions;
  return std::none_of(suggestions.begin(), suggestions.end(),
                      [](const auto& s) { return s.kind == resolve::SuggestionKind::fallback; });
}

util::Result<void> remember_install(const fs::path& cache_root, const env::Environment& environment,
                                    const std::string& package, install::InstallOutcome& outcome) {
  if (!outcome.installed || !environment.python.interpreter.known()) return {};
  const env::Interpreter& interpreter = *environment.python.interpreter;
  auto now = install::find_installed(interpreter.site_dirs, package);
  if (!now) return {};
  InstallRecord record{interpreter.executable, now->name, now->version, std::move(outcome.replaced),
                       util::now_utc()};
  return record_install(cache_root, record);
}

}  // namespace flashfit::workflow
