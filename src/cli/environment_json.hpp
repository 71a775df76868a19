#pragma once
// The Environment and findings as JSON (schema: docs/json.md, "doctor").

#include <nlohmann/json.hpp>

#include "env/environment.hpp"
#include "env/findings.hpp"

namespace flashfit::cli {

nlohmann::json environment_json(const env::Environment& env);
nlohmann::json findings_json(const std::vector<env::Finding>& findings);

}  // namespace flashfit::cli
