#pragma once
// What `flashfit install` prints: each attempt and the end state (text), the
// plan a dry run would carry out (install::plan_text), or the JSON object
// (docs/json.md, "install"), from the install flow's typed values.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "env/environment.hpp"
#include "install/install.hpp"
#include "resolve/gather.hpp"
#include "resolve/resolver.hpp"
#include "workflow/install_package.hpp"

namespace flashfit::cli {

nlohmann::json attempt_json(const install::Attempt& attempt);
nlohmann::json plan_json(const install::InstallPlan& plan);
std::string outcome_text(const install::InstallOutcome& outcome, bool dry_run);

// Everything install's report shows: the last pass's resolution and outcome,
// and a source build's part when one took over (null / empty otherwise).
struct InstallReport {
  const resolve::Resolution& resolution;
  const resolve::Recipe* recipe;
  const env::Environment& environment;
  const std::vector<resolve::SourceReport>& sources;
  const install::InstallOutcome& outcome;
  bool named_file = false;  // a local .whl was named
  bool ok = false;          // installed (a dry run: something would be tried)
  bool dry_run = false;
  const nlohmann::json& build;    // build's JSON part: null without a hand-over
  const std::string& build_text;  // a failed build's text, shown last
};

// A hand-over's part of the report: build's JSON (a build that could not
// start: ok false, stage "source", the failure and its hint) and the text
// shown last (a failed build's result, or why none started; empty after a
// successful build, whose result was shown before the second pass).
struct HandOverParts {
  nlohmann::json json;  // null without a hand-over
  std::string text;
};
HandOverParts hand_over_parts(const std::string& spec,
                              const std::optional<workflow::HandOver>& hand_over);

nlohmann::json install_json(const InstallReport& report);
std::string install_text(const InstallReport& report);

}  // namespace flashfit::cli
