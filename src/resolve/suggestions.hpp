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

// Why no GPU in `gpus` can run any release of the recipe's package: every one
// is below the lowest compute capability a release supports or above the
// highest every release keeps ("no GPU here can run FlashAttention (it runs
// on compute capability 8.0 or newer)"). nullopt: one can, the facts set no
// bound, or `gpus` is empty (no GPU is another answer).
std::optional<std::string> no_gpu_runs(const Recipe& recipe,
                                       const std::vector<env::ComputeCapability>& gpus);

// ' quoting for a POSIX shell (its home is util/strings).
using util::shell_quote;

}  // namespace flashfit::resolve
