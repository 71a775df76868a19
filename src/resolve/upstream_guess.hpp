#pragma once
// The wheel file name and URL upstream's setup.py (CachedWheelsCommand) would
// guess for this environment (docs/background.md §23, §9): used to check that the
// resolver agrees with upstream wherever upstream's guess is right, and to
// explain what `pip install flash-attn` would have tried.
#include <optional>
#include <string>

#include "resolve/recipe.hpp"
#include "resolve/target.hpp"

namespace flashfit::resolve {

struct UpstreamGuess {
  std::string filename;
  std::string url;
};

// nullopt when setup.py could not form a name here (no torch, a CPU torch —
// it crashes on torch.version.cuda being None —, no CUDA token for torch's
// CUDA major, or an unknown Python or ABI).
std::optional<UpstreamGuess> upstream_guess(const Recipe& recipe, const std::string& version,
                                            const ResolveTarget& target);

}  // namespace flashfit::resolve
