#include "resolve/config_effect.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace flashfit::resolve {
namespace {

struct Variant {
  std::string setting;
  Config config;  // the config without that setting
};

std::vector<Variant> variants_of(const Config& config) {
  std::vector<Variant> out;
  for (std::size_t i = 0; i < config.indexes.size(); ++i) {
    if (!config.indexes[i].enabled) continue;  // never consulted: its wheels are unknown
    Config c = config;
    c.indexes.erase(c.indexes.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back({fmt::format("[[index]] name = \"{}\"", config.indexes[i].name), std::move(c)});
  }
  for (std::size_t i = 0; i < config.enable.size(); ++i) {
    Config c = config;
    c.enable.erase(c.enable.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back({fmt::format("[sources] enable = \"{}\"", config.enable[i]), std::move(c)});
  }
  for (std::size_t i = 0; i < config.disable.size(); ++i) {
    Config c = config;
    c.disable.erase(c.disable.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back({fmt::format("[sources] disable = \"{}\"", config.disable[i]), std::move(c)});
  }
  if (!config.priority.empty()) {
    Config c = config;
    c.priority.clear();
    std::string list;
    for (const std::string& p : config.priority) list += (list.empty() ? "" : ", ") + p;
    out.push_back({"[sources] priority (in effect: " + list + ")", std::move(c)});
  }
  return out;
}

struct Answer {
  std::optional<std::string> pick;
  std::set<std::string> fitting;
};

// The gathered candidates as `plan` would have offered them: wheels of a
// source it lacks are dropped; enabled flags and priorities are the plan's.
Answer answer_under(const std::vector<SourcePlan>& plan, const Request& request,
                    const Recipe* recipe, const ResolveTarget& target,
                    const std::vector<Candidate>& gathered) {
  std::vector<Candidate> candidates;
  for (const Candidate& c : gathered) {
    auto p = std::find_if(plan.begin(), plan.end(),
                          [&](const SourcePlan& s) { return s.name == c.source; });
    if (p == plan.end()) continue;
    Candidate copy = c;
    copy.source_enabled = p->enabled;
    copy.priority = p->priority;
    candidates.push_back(std::move(copy));
  }
  ResolveOptions options;
  options.explain_rejected = 0;
  options.rank_rejected = 0;  // the pick and which wheels fit are compared
  options.suggest = false;
  Resolution r = resolve(request, recipe, target, std::move(candidates), options);
  Answer a;
  // A pick is a file from a source: the same file name from another source is another answer.
  if (r.selected) {
    const Candidate& c = *r.candidates[*r.selected].candidate;
    a.pick = fmt::format("{} (from {})", c.filename, c.source);
  }
  for (const Judged& j : r.candidates) {
    if (j.compatible()) a.fitting.insert(j.candidate->filename);
  }
  return a;
}

}  // namespace

std::vector<ConfigEffect> config_effects(const Request& request, const Recipe* recipe,
                                         const ResolveTarget& target, const Config& config,
                                         const SourceFlags& flags,
                                         const std::optional<std::filesystem::path>& cache_root,
                                         const std::vector<Candidate>& gathered) {
  std::vector<ConfigEffect> out;
  if (!config.path) return out;
  std::vector<Variant> variants = variants_of(config);
  if (variants.empty()) return out;
  auto plan = plan_sources(recipe, config, flags, cache_root);
  if (!plan) return out;
  const Answer actual = answer_under(*plan, request, recipe, target, gathered);
  for (const Variant& v : variants) {
    auto without = plan_sources(recipe, v.config, flags, cache_root);
    if (!without) continue;
    const Answer other = answer_under(*without, request, recipe, target, gathered);
    std::string effect;
    if (other.pick != actual.pick) {
      effect = other.pick ? fmt::format("it changed the pick: without it {} would be selected",
                                        *other.pick)
                          : "it made a wheel fit: without it none would";
    } else if (other.fitting != actual.fitting) {
      const auto more =
          static_cast<long>(actual.fitting.size()) - static_cast<long>(other.fitting.size());
      effect = more >= 0
                   ? fmt::format("it added {} fitting wheel(s); the pick is the same", more)
                   : fmt::format("it removed {} fitting wheel(s); the pick is the same", -more);
      if (more == 0) effect = "it changed which wheels fit; the pick is the same";
    }
    if (!effect.empty()) out.push_back({config.path->string(), v.setting, std::move(effect)});
  }
  return out;
}

}  // namespace flashfit::resolve
