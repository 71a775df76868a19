#pragma once
// What `flashfit build` prints: the plan and preflight before anything
// compiles (text), the result at the end (text), or everything as one JSON
// object (docs/json.md, "build").

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "build/build.hpp"
#include "workflow/build_flow.hpp"

namespace flashfit::cli {

std::string plan_text(const build::SourceTree& source, const std::string& package,
                      const build::BuildPlan& plan, const build::PreflightReport& preflight);
// `install_flags`: what the "next: flashfit install" line repeats so that it
// installs into the environment the wheel was built for (" --python '/x/python'").
std::string build_outcome_text(const build::BuildOutcome& outcome,
                               std::string_view install_flags = {});
nlohmann::json build_json(const std::string& spec, const build::BuildOutcome& outcome);

// Where build's lines go, for `flashfit build` and install's hand-over: step
// lines as notes, the toolkit's choice on stderr and the plan on stdout before
// compiling (neither with --json), a progress bar on a terminal.
workflow::BuildSinks build_sinks(bool json);

}  // namespace flashfit::cli
