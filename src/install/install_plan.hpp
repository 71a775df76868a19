#pragma once
// Plan, then act: what `flashfit install` will do, computed before anything
// is fetched or changed. The real run walks `candidates` in order; `--dry-run`
// prints the same value. Pure: every fact comes in as an argument (the
// previous install, the cache paths already known), nothing is probed here.
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "env/environment.hpp"
#include "install/installed.hpp"
#include "install/installer.hpp"
#include "resolve/resolver.hpp"

namespace flashfit::install {

struct PlannedCandidate {
  const resolve::Judged* judged = nullptr;  // owned by the Resolution
  std::string filename, url, source;
  std::optional<std::string> sha256;  // nullopt: unknown until the bytes are fetched
  // The file the installer is given, the cache's copy: known when the cache
  // already holds these bytes; nullopt: known once it is fetched (or copied) in.
  std::optional<std::filesystem::path> wheel_path;
  // The exact installer command line; when wheel_path is unknown its last
  // word is a placeholder naming the cache entry to be made.
  std::vector<std::string> installer_argv;
};

struct InstallPlan {
  std::string package;
  std::string interpreter;                   // the target sys.executable
  std::vector<std::string> site_dirs;        // where the installer writes (purelib, platlib)
  std::string installer;                     // "pip 26.2.1" / "uv 0.13.9"
  std::vector<PlannedCandidate> candidates;  // in the order they are tried
  // The version installed before, and whether its files are backed up before
  // the first installer run (only when the installer writes where it lives).
  std::optional<std::string> previous;
  std::optional<std::filesystem::path> previous_site_dir;
  bool backup_previous = false;
  std::vector<std::string> uninstall_argv;  // undoes a wheel whose import fails
  std::vector<std::string> import_modules;  // empty: the wheel's own modules (known once fetched)
  std::string restore;                      // how the environment is put back when nothing works
};

struct PlanInputs {
  const resolve::Resolution* resolution = nullptr;
  const resolve::Recipe* recipe = nullptr;
  const env::Interpreter* interpreter = nullptr;
  const Installer* installer = nullptr;
  const std::optional<InstalledDist>* before = nullptr;
  std::size_t max_attempts = 5;
  bool try_rejected = false;  // a named wheel file: tried even when its label is rejected
  // sha256 -> the cache's file for those bytes (only the hits).
  std::map<std::string, std::filesystem::path> cached;
};

// The directories the installer writes into: purelib and platlib, once each.
std::vector<std::filesystem::path> installer_target_dirs(const env::Interpreter& interpreter);

InstallPlan plan_install(const PlanInputs& inputs);

// The plan as the lines `install --dry-run` prints.
std::string plan_text(const InstallPlan& plan);

}  // namespace flashfit::install
