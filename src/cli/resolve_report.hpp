#pragma once
// resolve's output: text for people (the pick first, then the nearest
// rejections and the suggestions) and JSON (docs/json.md).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "env/environment.hpp"
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
};

std::string resolve_text(const ResolveReport& report);
nlohmann::json resolve_json(const ResolveReport& report);

}  // namespace flashfit::cli
