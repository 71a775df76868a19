#pragma once
// What a lock must hold besides a compiled package's own file: the
// dependencies its wheel declares. Compiled packages are installed --no-deps,
// so a Requires-Dist that no requirement line brings in is missing after
// `install --lock` on a fresh machine unless the lock names it. Pure: the
// caller reads the METADATA from the pick's bytes.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pkg/marker.hpp"
#include "pkg/requirements_file.hpp"
#include "resolve/recipe.hpp"
#include "util/error.hpp"
#include "workflow/install_requirements.hpp"

namespace flashfit::workflow {

struct PickDependencies {
  // For the installer's resolution beside the requirements' own lines, each
  // without its marker (evaluated here) and named "<package>'s Requires-Dist".
  std::vector<pkg::RequirementLine> lines;
  // Those that are not locked, each saying why and what to do.
  std::vector<std::string> not_locked;
};

// `taken`'s Requires-Dist that apply here (markers evaluated with no extra
// and with each extra its line asks for), less torch (the environment's own:
// the lock's key names it and the pick was judged for it) and less the
// packages `taken_names` already locks as flashfit's picks. A package flashfit
// has a recipe for but the requirements do not name is not given to the
// installer (it would lock its choice, unjudged): listed as not locked.
PickDependencies pick_dependencies(const TakenPackage& taken,
                                   const std::vector<std::string>& requires_dist,
                                   const pkg::MarkerEnvironment& markers,
                                   const resolve::RecipeBook& book,
                                   const std::set<std::string>& taken_names);

// A pick and what its wheel declares, kept until every pick is known.
struct PickRequirements {
  TakenPackage taken;
  std::string name;     // the wheel's canonical name (the recipe's may differ)
  std::string version;  // the pick's, from its file name
  // nullopt: not read (--no-download, ...): its version still counts.
  std::optional<std::vector<std::string>> requires_dist;
};

// What pick_dependencies leaves to the lock itself: each pick's Requires-Dist
// on torch (the version installed here; nullopt: not known) and on the other
// picks, checked against what the lock holds, with the extras its line asks
// for (pip would not resolve such a set either). One that is not met fails
// the lock (nothing is written): the error names each and the first one's
// line, and the hint the pins that would agree. Returns what could not be
// checked (a requirement on torch when its version here is not known), each
// a note.
util::Result<std::vector<std::string>> check_picks_agree(const std::vector<PickRequirements>& picks,
                                                         const std::optional<std::string>& torch,
                                                         const pkg::MarkerEnvironment& markers);

}  // namespace flashfit::workflow
