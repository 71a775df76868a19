#pragma once
// What `flashfit install` prints: each attempt and the end state (text), the
// plan a dry run would carry out (install::plan_text), or the parts of the
// JSON object (docs/json.md, "install").

#include <nlohmann/json.hpp>
#include <string>

#include "install/install.hpp"

namespace flashfit::cli {

nlohmann::json attempt_json(const install::Attempt& attempt);
nlohmann::json plan_json(const install::InstallPlan& plan);
std::string outcome_text(const install::InstallOutcome& outcome, bool dry_run);

}  // namespace flashfit::cli
