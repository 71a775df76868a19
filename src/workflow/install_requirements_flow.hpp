#pragma once
// `flashfit install -r FILE [SPEC...]` after the files are parsed: the plan
// (workflow/install_requirements), the probed interpreter's installer run
// over the lines flashfit does not take (what it changed is diffed), each
// named wheel judged by its file name, each compiled package installed through
// the caller's `install_one` (cli: `flashfit install SPEC`'s own flow, its
// report captured), then their own dependencies checked. A typed report;
// cli/install_requirements_report renders it.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "env/environment.hpp"
#include "install/lines_run.hpp"
#include "install/preloaded_check.hpp"
#include "pkg/requirements_file.hpp"
#include "resolve/gather.hpp"
#include "resolve/recipe.hpp"
#include "resolve/target.hpp"
#include "util/error.hpp"
#include "workflow/install_requirements.hpp"
#include "workflow/requirements_check.hpp"
#include "workflow/requirements_rollback.hpp"

namespace flashfit::workflow {

// A named wheel judged against this environment by its file name.
struct UrlVerdict {
  bool fits = false;
  std::vector<std::string> reasons;  // why not, one per rule
};

// Each line that names a wheel file judged against `target` by the file's
// name (nullopt for the other lines): `install -r` installs a fitting local
// one as named, and `lock` locks it.
std::vector<std::optional<UrlVerdict>> judge_named_wheels(const InstallRequirementsPlan& plan,
                                                          const resolve::RecipeBook& book,
                                                          const resolve::ResolveTarget& target);

// Each line naming a local wheel file (a path, or a file:// URL) with --hash:
// one of them (sha256, sha384 or sha512) must be the file's, as pip requires
// of the line. An input error naming the line when it is not, or when the file
// cannot be read; the other lines pass (a remote file is never installed as
// named, so never fetched for this).
util::Result<void> check_named_hashes(const InstallRequirementsPlan& plan);

// What `flashfit install` gets for a taken package: a wheel the file names
// that fits by its name and is a file here (a path, relative to the working
// directory as pip reads it, or a file:// URL), as named, made absolute: it
// is inspected and proven like any other; else the pin, picked from the sources.
std::string install_spec(const TakenPackage& taken, const std::optional<UrlVerdict>& verdict);

struct PackageRun {
  std::string recipe;
  std::string spec;
  std::optional<int> exit_code;  // nullopt: not attempted (an earlier step failed)
  std::string error;             // an error instead of a report
  std::string report;            // its `flashfit install` report (text, or JSON text)
};

struct InstallRequirementsReport {
  InstallRequirementsPlan plan;
  std::vector<std::optional<UrlVerdict>> url_verdicts;  // per plan.flashfit entry
  bool dry_run = false;
  // A dry run whose lines or constraints name torch ("requirements.txt:3"):
  // the installer's run may change torch, and the picks are for the torch
  // installed now (a real run picks again after that run).
  std::optional<std::string> torch_line;
  std::string installer;                    // "pip 23.0.1 ..." / "uv 0.8.0"
  std::vector<std::string> installer_argv;  // empty: nothing for the installer
  std::optional<bool> installer_ok;         // nullopt: not run
  // The lines went in with the first compiled package's wheel, in one run.
  bool installer_shared = false;
  std::string installer_failure;  // how it ended, its output's tail
  std::vector<InstalledChange> installer_changes;
  std::vector<PackageRun> packages;
  // A compiled package failed in a real run: those installed before it, rolled back newest first.
  std::vector<RolledBack> rolled_back;
  std::vector<UnmetDependency> unmet;
  std::string fix_command;  // installs the unmet ones with torch kept
  // Packages flashfit has a recipe for that the installer put in as a
  // dependency of the lines: its choice, neither picked for this environment
  // nor verified by flashfit. The command has flashfit check or replace them.
  std::vector<InstalledChange> unchecked;
  std::string unchecked_command;
  bool ok = false;
};

// One compiled package installed as `flashfit install SPEC` would be, with
// these sources and dry-run setting: its exit code, its report in `report`.
// `preloaded`: an import check's interpreter started before the installer's
// run over the lines (or null), for its first attempt; `lines`: that run, when
// it is to go into the first attempt's installer run (or null).
using InstallOnePackage = std::function<util::Result<int>(
    const std::string& spec, const resolve::SourceFlags& sources, bool dry_run,
    std::shared_ptr<install::PreloadedCheck> preloaded,
    std::shared_ptr<install::SharedLinesRun> lines, std::string& report)>;

struct InstallRequirementsInput {
  const std::vector<pkg::RequirementsFile>* files = nullptr;
  const resolve::RecipeBook* book = nullptr;
  env::ProbeOptions probe;
  resolve::SourceFlags sources;  // the flags; the files' own options go over them
  bool dry_run = false;
  // Whether the probed interpreter can be installed into (the CLI's policy).
  std::function<util::Result<void>(const env::Environment&)> require_interpreter;
  // Told when what-if flags make it a dry run (their descriptions).
  std::function<void(const std::vector<std::string>&)> on_what_if_dry_run;
  std::function<void(std::string_view)> note;  // progress lines
  InstallOnePackage install_one;
};

// Errors: bad input (a conflicting pin, a marker that cannot be evaluated),
// no interpreter, no installer, Ctrl-C; a failed step is in the report.
util::Result<InstallRequirementsReport> install_requirements(const InstallRequirementsInput& input);

}  // namespace flashfit::workflow
