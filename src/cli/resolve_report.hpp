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

struct ResolveReport {
  const resolve::Resolution& resolution;
  const resolve::Recipe* recipe;
  const env::Environment& environment;
  const std::vector<resolve::SourceReport>& sources;
  bool all = false;  // every candidate, not only the nearest rejections
  const std::vector<resolve::ConfigEffect>* config_effects = nullptr;  // resolve's own report
};

std::string resolve_text(const ResolveReport& report);
nlohmann::json resolve_json(const ResolveReport& report);

}  // namespace flashfit::cli
