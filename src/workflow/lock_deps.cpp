#include "workflow/lock_deps.hpp"

#include <fmt/core.h>

#include "pkg/name.hpp"
#include "pkg/requirement.hpp"
#include "util/strings.hpp"
#include "workflow/requirements_check.hpp"

namespace flashfit::workflow {

PickDependencies pick_dependencies(const TakenPackage& taken,
                                   const std::vector<std::string>& requires_dist,
                                   const pkg::MarkerEnvironment& markers,
                                   const resolve::RecipeBook& book,
                                   const std::set<std::string>& taken_names) {
  PickDependencies out;
  // Nothing installed: every Requires-Dist that applies here comes back.
  for (const UnmetDependency& dep :
       unmet_dependencies(taken.recipe, requires_dist, markers, {}, taken.extras)) {
    auto requirement = pkg::parse_requirement(dep.wanted);
    if (!requirement) {
      out.not_locked.push_back(fmt::format("{}'s Requires-Dist '{}' cannot be read: not locked",
                                           taken.recipe, dep.requirement));
      continue;
    }
    if (dep.name == "torch") continue;
    const resolve::Recipe* recipe = book.find(dep.name);
    if (taken_names.count(dep.name) != 0 || (recipe && taken_names.count(recipe->name) != 0))
      continue;
    if (recipe) {
      out.not_locked.push_back(
          fmt::format("{} requires {}, which flashfit picks for each environment: not locked; "
                      "add a line `{}` to the requirements and lock again",
                      taken.recipe, dep.requirement, dep.wanted));
      continue;
    }
    pkg::RequirementLine line;
    line.file = taken.recipe + "'s Requires-Dist";
    line.line = out.lines.size() + 1;
    line.text = dep.wanted;
    line.requirement = std::move(*requirement);
    out.lines.push_back(std::move(line));
  }
  return out;
}

util::Result<std::vector<std::string>> check_picks_agree(const std::vector<PickRequirements>& picks,
                                                         const std::optional<std::string>& torch,
                                                         const pkg::MarkerEnvironment& markers) {
  InstalledVersions held;
  for (const PickRequirements& pick : picks) {
    held[pick.name] = pick.version;
    held[pick.taken.recipe] = pick.version;  // a dependency may name the recipe's spelling
  }
  if (torch) held["torch"] = *torch;
  std::vector<std::string> unchecked, disagree;
  std::string where, hint;
  for (const PickRequirements& pick : picks) {
    if (!pick.requires_dist) continue;
    for (const UnmetDependency& dep : unmet_dependencies(pick.taken.recipe, *pick.requires_dist,
                                                         markers, held, pick.taken.extras)) {
      if (!dep.installed) {
        // Neither torch nor a pick: pick_dependencies gave it to the installer or said why not.
        if (dep.name == "torch") {
          unchecked.push_back(
              fmt::format("{} requires {}, and torch's version here is not known: not checked",
                          pick.taken.recipe, dep.requirement));
        }
        continue;
      }
      const bool on_torch = dep.name == "torch";
      disagree.push_back(fmt::format(
          "{} {}'s wheel requires {}, and {} {} {}", pick.taken.recipe, pick.version, dep.wanted,
          on_torch ? "this environment has" : "the lock picks", dep.name, *dep.installed));
      if (!where.empty()) continue;
      where = pick.taken.where;
      hint = on_torch ? fmt::format(
                            "pin {} to a version whose wheel accepts torch {} (a lock is for "
                            "the torch installed here), or install a torch it accepts first",
                            pick.taken.recipe, *dep.installed)
                      : fmt::format(
                            "pin {} to a version {} accepts (a line `{}`), or {} to a version "
                            "whose wheel accepts {} {}",
                            dep.name, pick.taken.recipe, dep.wanted, pick.taken.recipe, dep.name,
                            *dep.installed);
    }
  }
  if (disagree.empty()) return unchecked;
  return util::input_error(
      fmt::format("the picks' own requirements are not met: {}", util::join(disagree, "; ")), where,
      hint);
}

}  // namespace flashfit::workflow
