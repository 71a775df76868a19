#include "resolve/build_knobs.hpp"

#include <algorithm>

#include "env/what_if.hpp"

namespace flashfit::resolve {

std::string CapabilityRange::str() const {
  return low == high ? low.str() : low.str() + "-" + high.str();
}

std::optional<CapabilityRange> capability_range(const BuildKnobs::ArchToken& token) {
  auto lo = env::parse_major_minor(token.min_cc);
  auto hi = env::parse_major_minor(token.max_cc);
  if (!lo || !hi) return std::nullopt;
  return CapabilityRange{{lo->major, lo->minor}, {hi->major, hi->minor}};
}

const BuildKnobs::ArchToken* token_serving(const BuildKnobs& build,
                                           const env::ComputeCapability& cc) {
  for (const BuildKnobs::ArchToken& t : build.arch_tokens) {
    auto range = capability_range(t);
    if (range && range->contains(cc)) return &t;
  }
  return nullptr;
}

std::vector<std::string> tokens_serving(const BuildKnobs& build,
                                        const std::vector<env::ComputeCapability>& gpus) {
  std::vector<std::string> out;
  for (const BuildKnobs::ArchToken& t : build.arch_tokens) {
    auto range = capability_range(t);
    if (!range) continue;
    if (std::any_of(gpus.begin(), gpus.end(),
                    [&](const env::ComputeCapability& cc) { return range->contains(cc); }))
      out.push_back(t.token);
  }
  return out;
}

unsigned effective_nvcc_threads(unsigned threads, std::size_t archs) {
  const std::size_t capped = std::min<std::size_t>(threads, std::max<std::size_t>(archs, 1));
  return static_cast<unsigned>(std::max<std::size_t>(capped, 1));
}

std::optional<double> memory_per_job_gib(const BuildKnobs& build, unsigned threads,
                                         std::size_t archs) {
  if (build.memory_per_thread_gib <= 0) return std::nullopt;
  return build.memory_per_thread_gib * effective_nvcc_threads(threads, archs);
}

}  // namespace flashfit::resolve
