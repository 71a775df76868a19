#include "workflow/uninstall.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "install/installed.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"

namespace flashfit::workflow {
namespace fs = std::filesystem;

install::RestoreScope restore_scope(const env::Interpreter& interpreter,
                                    const std::string& package) {
  install::RestoreScope scope{package, interpreter.site_dirs, {}, interpreter.prefix};
  for (const std::string& dir : {interpreter.purelib, interpreter.platlib}) {
    if (!dir.empty() && std::find(scope.target_dirs.begin(), scope.target_dirs.end(),
                                  fs::path(dir)) == scope.target_dirs.end()) {
      scope.target_dirs.emplace_back(dir);
    }
  }
  return scope;
}

util::Result<std::string> uninstall_proven(const install::Installer& installer,
                                           const install::RestoreScope& scope,
                                           install::RestoreGuard& guard) {
  const std::vector<std::string> argv = install::uninstall_argv(installer, scope.package);
  guard.changing({});
  auto ran = install::run_installer(argv);
  if (!ran) return tl::unexpected(ran.error());
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  if (!ran->succeeded()) {
    return util::fail(util::ErrorKind::failed,
                      fmt::format("{} {}: {}", install::to_string(installer.kind), ran->describe(),
                                  util::printable(std::string(util::trim(ran->err)), 600)));
  }
  // Proof: no metadata of it is left where the installer writes.
  std::vector<std::string> targets;
  for (const fs::path& dir : scope.target_dirs) targets.push_back(dir.string());
  if (auto left = install::find_installed(targets, scope.package)) {
    return util::fail(util::ErrorKind::failed,
                      fmt::format("{} reported success but {} {} is still installed ({})",
                                  install::to_string(installer.kind), left->name, left->version,
                                  left->dist_info.string()));
  }
  return util::join(argv, " ");
}

util::Result<UninstallOutcome> uninstall_package(const env::Environment& environment,
                                                 const std::string& package,
                                                 const UninstallOptions& options) {
  const env::Interpreter& interpreter = *environment.python.interpreter;
  auto found = install::find_installed(interpreter.site_dirs, package);
  if (!found) {
    return util::fail(util::ErrorKind::input,
                      fmt::format("{} is not installed for {}", package, interpreter.executable),
                      {}, "flashfit doctor lists what is installed and what fits");
  }
  install::RestoreScope scope = restore_scope(interpreter, package);
  install::RestoreGuard guard(scope, options.progress);
  if (!guard.writes_into(found->site_dir)) {
    return util::fail(
        util::ErrorKind::failed,
        fmt::format("{} {} is installed in {}, where this interpreter's installer does not write",
                    found->name, found->version, found->site_dir.string()),
        {},
        "it belongs to another environment (a system package seen from a venv): remove it there");
  }
  auto installer = install::choose_installer(environment);
  if (!installer) return tl::unexpected(installer.error());
  UninstallOutcome outcome;
  outcome.installer = installer->version;
  outcome.package = found->name;
  outcome.version = found->version;
  outcome.site_dir = found->site_dir.string();
  if (options.progress)
    options.progress(fmt::format("backing up {} {}", found->name, found->version));
  auto backup = install::backup_installed(*found, options.backup_dir);
  if (!backup) return tl::unexpected(backup.error());
  guard.keep_backup(std::move(*backup));
  if (options.progress)
    options.progress(
        fmt::format("uninstalling {} with {}", found->name, install::to_string(installer->kind)));
  auto removed = uninstall_proven(*installer, scope, guard);
  if (!removed) {
    // Every way out that is not proven: put the version back (the guard proves it).
    util::Error error = std::move(removed.error());
    std::string restore = guard.settle();
    if (!restore.empty()) error.message += "; " + restore;
    return tl::unexpected(std::move(error));
  }
  outcome.argv = *removed;
  guard.commit();
  if (auto other = install::find_installed(interpreter.site_dirs, package)) {
    outcome.still_visible =
        fmt::format("{} {} in {}", other->name, other->version, other->site_dir.string());
  }
  return outcome;
}

}  // namespace flashfit::workflow
