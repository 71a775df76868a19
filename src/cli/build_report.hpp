#pragma once
// What `flashfit build` prints: the plan and preflight before anything
// compiles (text), the result at the end (text), or everything as one JSON
// object (docs/json.md, "build").

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "build/build.hpp"

namespace flashfit::cli {

std::string plan_text(const build::SourceTree& source, const std::string& package,
                      const build::BuildPlan& plan, const build::PreflightReport& preflight);
std::string build_outcome_text(const build::BuildOutcome& outcome);
nlohmann::json build_json(const std::string& spec, const build::BuildOutcome& outcome);

}  // namespace flashfit::cli
