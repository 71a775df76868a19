#pragma once
// The arch part of the build plan, apart because it is most of the rules:
// --archs in recipe tokens or capabilities, the GPUs here mapped to the
// tokens serving them, the recipe's defaults, or, for a package without a
// recipe, torch's TORCH_CUDA_ARCH_LIST (docs/background.md §12).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "build/plan.hpp"

namespace flashfit::build::detail {

// torch's own arch variable, read by cpp_extension rather than by setup.py.
inline constexpr const char* kTorchArchVariable = "TORCH_CUDA_ARCH_LIST";

struct ArchSelection {
  ArchPlan plan;
  // How many -gencode targets each .cu file compiles: what nvcc threads can
  // run in parallel and what the time and disk estimates multiply by.
  // nullopt when not known (fixed by setup.py, or torch's default).
  std::optional<std::size_t> count;
  std::vector<std::string> warnings;
};

// CUDA builds only. Errors: usage, for an --archs entry nothing accepts.
util::Result<ArchSelection> plan_select_archs(const env::Environment& env,
                                              const resolve::Recipe* recipe,
                                              const std::optional<std::vector<std::string>>& archs);

// "NVIDIA L4 8.9" (or "GPU 0 8.9" without a name): a GPU of known capability
// as the plan and preflight name it.
std::string gpu_described(const env::GpuDevice& gpu);

// The GPUs here ("NVIDIA T4 7.5") none of `targets` ("sm_80", "compute_90")
// runs on: what a build from those targets could never serve. GPUs of
// unknown capability are not named.
std::vector<std::string> gpus_no_target_runs(const env::Environment& env,
                                             const std::vector<std::string>& targets);

// "80 (8.0-8.9), 90 (9.0), ...": the recipe's tokens and what each serves.
std::string plan_accepted_tokens(const resolve::BuildKnobs& build);

}  // namespace flashfit::build::detail
