#pragma once
// Questions about a recipe's [build] knobs that both the resolver's build
// suggestion and the build planner ask: which arch token serves a GPU (an 8.9
// GPU runs FlashAttention-2's "80", whose "89" token does nothing), and how
// much memory one compile job takes. One answer, so the suggestion and the
// real build never disagree.
#include <optional>
#include <string>
#include <vector>

#include "env/gpu.hpp"
#include "resolve/recipe.hpp"

namespace flashfit::resolve {

// The capability range an arch token serves ("80" -> 8.0 .. 8.9); nullopt
// only for a token the recipe parser would have refused.
struct CapabilityRange {
  env::ComputeCapability low;
  env::ComputeCapability high;
  bool contains(const env::ComputeCapability& cc) const { return low <= cc && cc <= high; }
  std::string str() const;  // "8.0-8.9", or "9.0" when low == high
};
std::optional<CapabilityRange> capability_range(const BuildKnobs::ArchToken& token);

// The token whose SASS runs on `cc`, or nullptr when none does (7.5 for FA2).
const BuildKnobs::ArchToken* token_serving(const BuildKnobs& build,
                                           const env::ComputeCapability& cc);

// The tokens serving these GPUs, each once, in the recipe's token order.
// GPUs no token serves are left out.
std::vector<std::string> tokens_serving(const BuildKnobs& build,
                                        const std::vector<env::ComputeCapability>& gpus);

// nvcc --threads N compiles the -gencode targets in parallel, so a job with
// `archs` targets runs at most that many threads at once.
unsigned effective_nvcc_threads(unsigned threads, std::size_t archs);

// The recipe's peak of one compile job: memory_per_thread_gib x the effective
// threads; nullopt when the recipe has no measurement.
std::optional<double> memory_per_job_gib(const BuildKnobs& build, unsigned threads,
                                         std::size_t archs);

}  // namespace flashfit::resolve
