#pragma once
// What `flashfit install -r` prints: the plan (which lines go to the
// installer, which flashfit takes and why a named wheel does not fit here),
// the installer's run and what it changed, each compiled package's own
// install report, the dependency check, and what remains after a failure.
// Text, or one JSON object (docs/json.md, "install -r").
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "workflow/install_requirements.hpp"
#include "workflow/requirements_check.hpp"

namespace flashfit::cli {

// A named wheel judged against this environment by its file name.
struct UrlVerdict {
  bool fits = false;
  std::vector<std::string> reasons;  // why not, one per rule
};

struct PackageRun {
  std::string recipe;
  std::string spec;
  std::optional<int> exit_code;  // nullopt: not attempted (an earlier step failed)
  std::string error;             // an error instead of a report
  std::string report;            // its `flashfit install` report (text, or JSON text)
};

struct InstallRequirementsReport {
  workflow::InstallRequirementsPlan plan;
  std::vector<std::optional<UrlVerdict>> url_verdicts;  // per plan.flashfit entry
  bool dry_run = false;
  std::string installer;                    // "pip 23.0.1 ..." / "uv 0.8.0"
  std::vector<std::string> installer_argv;  // empty: nothing for the installer
  std::optional<bool> installer_ok;         // nullopt: not run
  std::string installer_failure;            // how it ended, its output's tail
  std::vector<workflow::InstalledChange> installer_changes;
  std::vector<PackageRun> packages;
  std::vector<workflow::UnmetDependency> unmet;
  std::string fix_command;  // installs the unmet ones with torch kept
  bool ok = false;
};

std::string requirements_text(const InstallRequirementsReport& report);
nlohmann::json requirements_json(const InstallRequirementsReport& report);

}  // namespace flashfit::cli
