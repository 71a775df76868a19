#pragma once
// The planner's cost model (internal to build/): each unit's kind, its time
// and its peak memory, from the recipe's measured figures where a kind
// matches, scaled by this machine's calibration, else flashfit's defaults.
// The heaviest kind that will run sets the memory per nvcc thread, so a plan
// never promises a peak that a backward unit exceeds.

#include <cstdint>
#include <string>
#include <vector>

#include "build/plan.hpp"

namespace flashfit::build::detail {

struct CostModel {
  std::vector<UnitCost> costs;         // CUDA kinds with units (recipe order), CUDA default, C++
  std::uint64_t per_thread_bytes = 0;  // the heaviest CUDA kind that will run (0: no CUDA units)
  std::string heaviest_kind;           // its name
  bool heaviest_measured = false;
  std::uint64_t cxx_job_bytes = 0;  // one C++ compile
  double scale = 1.0;               // applied to measured seconds
  std::string basis;                // where the figures come from, and the scaling
};

// Pure. `nvcc_version` is this machine's ("13.0"), empty when unknown.
CostModel unit_cost_model(const resolve::Recipe* recipe, const CompileUnits& units,
                          const PlanRequest& request, const std::string& nvcc_version,
                          std::vector<std::string>& warnings);

}  // namespace flashfit::build::detail
