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

#include "workflow/install_requirements_flow.hpp"

namespace flashfit::cli {

using workflow::InstallRequirementsReport;
using workflow::PackageRun;
using workflow::UrlVerdict;

std::string requirements_text(const InstallRequirementsReport& report);
nlohmann::json requirements_json(const InstallRequirementsReport& report);

}  // namespace flashfit::cli
