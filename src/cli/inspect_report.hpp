#pragma once
// Rendering an inspect report: the human text (verdict first, then what
// failed with its fix, then the rest one line each) and the --json document
// (docs/json.md, "flashfit inspect --json").

#include <nlohmann/json.hpp>
#include <string>

#include "binary/verdict.hpp"
#include "env/environment.hpp"

namespace flashfit::cli {

nlohmann::json inspect_json(const binary::InspectReport& report, const env::Environment& env);
std::string inspect_text(const binary::InspectReport& report, const env::Environment& env);

}  // namespace flashfit::cli
