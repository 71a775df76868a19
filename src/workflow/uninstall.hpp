#pragma once
// flashfit uninstall NAME: the installer's own uninstall, with install's
// safety: the files the RECORD lists are backed up first, the removal is
// proven (no metadata of it left where the installer writes), and on any
// failure or Ctrl-C a RestoreGuard puts the version back as it was.
// `install --undo` (workflow/undo.*) removes the same way before it restores.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "env/environment.hpp"
#include "install/installer.hpp"
#include "install/restore_guard.hpp"
#include "util/error.hpp"

namespace flashfit::workflow {

struct UninstallOptions {
  std::filesystem::path backup_dir;  // the removed version's files until the removal is proven
  std::function<void(std::string_view)> progress;
};

struct UninstallOutcome {
  std::string installer;  // "pip 23.0.1 from ..." / "uv ..."
  std::string package;    // as its metadata spells it
  std::string version;    // the version removed
  std::string site_dir;
  std::string argv;  // the installer command that ran
  // Another version still visible to the interpreter (a system package under a venv).
  std::optional<std::string> still_visible;
};

// Where the interpreter's installer writes, and what a restore may touch.
install::RestoreScope restore_scope(const env::Interpreter& interpreter,
                                    const std::string& package);

// Runs the installer's uninstall of `package` (guard already holding its
// backup) and proves it gone from the scope's target dirs.
util::Result<std::string> uninstall_proven(const install::Installer& installer,
                                           const install::RestoreScope& scope,
                                           install::RestoreGuard& guard);

// Errors: not installed (input), installed outside where the installer
// writes (failed: a system package), the installer failing (its output in
// the message; the version restored).
util::Result<UninstallOutcome> uninstall_package(const env::Environment& environment,
                                                 const std::string& package,
                                                 const UninstallOptions& options);

}  // namespace flashfit::workflow
