#pragma once
// What an interpreter has installed now, read from its site dirs: the
// versions by name (what an installer's run changed is their diff), and the
// dependencies of compiled packages installed --no-deps that nothing
// installed satisfies (`install -r` and `install --lock` both report them).
#include <string>
#include <vector>

#include "env/interpreter.hpp"
#include "workflow/requirements_check.hpp"

namespace flashfit::workflow {

// Every dist-info / egg-info in the site dirs by canonical name; the first
// site dir (import order) wins.
InstalledVersions installed_versions(const std::vector<std::string>& site_dirs);

// A compiled package installed --no-deps, and the extras its line asked for.
struct InstalledCompiled {
  std::string name;
  std::vector<std::string> extras;
};

// Their Requires-Dist (marker true here) that what is installed now does not
// satisfy, as `pip check` would say; a package whose METADATA cannot be read
// (or that is an egg) is skipped.
std::vector<UnmetDependency> unmet_after_install(const std::vector<InstalledCompiled>& packages,
                                                 const env::Interpreter& interpreter);

}  // namespace flashfit::workflow
