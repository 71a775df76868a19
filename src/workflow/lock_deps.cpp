#include "workflow/lock_deps.hpp"

#include <fmt/core.h>

#include "pkg/name.hpp"
#include "pkg/requirement.hpp"
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

}  // namespace flashfit::workflow
