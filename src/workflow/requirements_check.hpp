#pragma once
// After `flashfit install -r`: what the installer's run changed (installed
// versions before vs after), and the dependencies of the compiled packages
// (installed --no-deps) that the environment does not satisfy, as
// `pip check` would say. Pure: the callers read the site dirs.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pkg/marker.hpp"

namespace flashfit::workflow {

// Canonical name -> version ("" when the metadata's name carries none).
using InstalledVersions = std::map<std::string, std::string>;

struct InstalledChange {
  std::string name;
  std::optional<std::string> before;  // nullopt: newly installed
  std::optional<std::string> after;   // nullopt: removed
};

// Sorted by name; unchanged distributions are left out.
std::vector<InstalledChange> diff_installed(const InstalledVersions& before,
                                            const InstalledVersions& after);

// "requests 2.31.0 (was 2.28.1)", "einops 0.8.0 (new)", "six (removed, was 1.16)".
std::string describe(const InstalledChange& change);

struct UnmetDependency {
  std::string package;                   // the compiled package that needs it
  std::string requirement;               // its Requires-Dist, as written
  std::string name;                      // canonical
  std::optional<std::string> installed;  // the version there is, if any
  // What installs it, without its marker ("causal-conv1d>=1.2.0" for
  // `causal-conv1d>=1.2.0; extra == "causal-conv1d"`: given as is, the
  // installer would skip it, no extra being asked for on its command line).
  std::string wanted;
};

// "flash-attn requires einops (not installed)", "... (installed: 0.6.0)".
std::string describe(const UnmetDependency& unmet);

// The package's Requires-Dist lines whose marker applies here, with no extra
// or one of `extras` asked for (the line's [extras]), and that `installed`
// does not satisfy. A line that cannot be parsed is reported as unmet (pip
// check reports it too).
std::vector<UnmetDependency> unmet_dependencies(const std::string& package,
                                                const std::vector<std::string>& requires_dist,
                                                const pkg::MarkerEnvironment& markers,
                                                const InstalledVersions& installed,
                                                const std::vector<std::string>& extras = {});

// The Requires-Dist values of a METADATA / PKG-INFO text (its header part).
std::vector<std::string> requires_dist(const std::string& metadata);

}  // namespace flashfit::workflow
