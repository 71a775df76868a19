#pragma once
// What would make a wheel fit, when none does, ranked by how little each
// change disturbs: another package version, enabling a source, another torch
// minor (same CUDA major and Python), another Python, a source build, and the
// standard-attention fallback when no GPU here can ever run the package.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "resolve/resolver.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {

std::vector<Suggestion> suggest(const Resolution& resolution, const Recipe* recipe,
                                const ResolveTarget& target, const BuildOutlook& build,
                                const CommandContext& commands = {});

// The lowest compute capability any release of the recipe's package runs on
// (its releases' min_compute_capability); nullopt: none says.
std::optional<env::ComputeCapability> package_min_cc(const Recipe& recipe);
// The highest compute capability any release runs on, when every release is
// bounded (a block for all versions sets a maximum); nullopt: unbounded.
std::optional<env::ComputeCapability> package_max_cc(const Recipe& recipe);

// ' quoting for a POSIX shell (its home is util/strings).
using util::shell_quote;

}  // namespace flashfit::resolve
