#pragma once
// resolve's output: text for people (the pick first, then the nearest
// rejections and the suggestions) and JSON (docs/json.md).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "env/environment.hpp"
#include "resolve/config_effect.hpp"
#include "resolve/gather.hpp"
#include "resolve/recipe.hpp"
#include "resolve/resolver.hpp"

namespace flashfit::cli {

// Rejections shown by default (text and JSON); the rest only with --all. The
// pipeline explains (builds messages for) only these.
constexpr std::size_t kResolveNearestShown = 8;

struct ResolveReport {
  const resolve::Resolution& resolution;
  const resolve::Recipe* recipe;
  const env::Environment& environment;
  const std::vector<resolve::SourceReport>& sources;
  bool all = false;  // every candidate, not only the nearest rejections
  const std::vector<resolve::ConfigEffect>* config_effects = nullptr;  // resolve's own report
};

// How many rejected candidates carry each reason (one candidate may carry
// several), most frequent first: text and JSON show the same counts.
std::vector<std::pair<resolve::ReasonCode, std::size_t>> rejections_by_reason(
    const resolve::Resolution& resolution);

std::string resolve_text(const ResolveReport& report);
// By default the selected candidate, the nearest rejections and the counts
// (what the text shows); with report.all every candidate (docs/json.md). The
// printed text (as nlohmann's dump(2)), with its final newline.
std::string resolve_json(const ResolveReport& report);

}  // namespace flashfit::cli
