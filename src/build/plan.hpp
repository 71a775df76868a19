#pragma once
// The build plan: which GPU archs to compile, how many ninja jobs and nvcc
// threads the memory allows, the expected peak and duration, and the exact
// environment the build gets. A pure function of the environment, the recipe
// (may be absent), what the source contains and the user's flags, so tests
// build environments by hand (docs/background.md §10-§12).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "build/calibration.hpp"
#include "build/compile_units.hpp"
#include "build/source.hpp"
#include "env/environment.hpp"
#include "resolve/recipe.hpp"
#include "util/error.hpp"

namespace flashfit::build {

struct PlanRequest {
  std::optional<std::vector<std::string>>
      archs;                        // --archs: recipe tokens ("80") or capabilities ("8.9")
  std::optional<unsigned> jobs;     // --jobs
  std::optional<unsigned> threads;  // --threads
  std::optional<std::uint64_t> memory_budget;  // --memory-budget, bytes
  // This machine's calibration run, when there is one; else why not
  // ("--dry-run: no calibration cached", "no nvcc").
  std::optional<Calibration> calibration;
  std::string calibration_note;
  // The running flashfit (/proc/self/exe): PYTORCH_NVCC's wrapper command
  // when --archs filters a setup.py's fixed -gencode list; empty refuses that.
  std::string flashfit_exe;
};

// What one kind of unit costs here: the recipe's measured figures (scaled to
// this machine's speed), or flashfit's defaults for units no kind matches.
struct UnitCost {
  std::string kind;  // "backward"; "CUDA" / "C++" for the defaults
  bool cuda = true;
  std::size_t units = 0;           // of this kind, before multiplying by the archs
  double seconds = 0;              // one unit, one arch, one nvcc thread, on this machine
  std::uint64_t peak_bytes = 0;    // peak of one compiler process (one nvcc thread)
  bool measured = false;           // from the recipe's [build.measured] figures
  std::vector<std::string> match;  // the recipe's file-name patterns (the governor's classes)
};

struct ArchPlan {
  std::vector<std::string>
      tokens;            // what the build variable gets: {"80"} or, without a recipe, {"8.9"}
  std::string variable;  // "FLASH_ATTN_CUDA_ARCHS", or "TORCH_CUDA_ARCH_LIST" without a recipe
  std::string basis;  // "--archs", "detected GPUs (NVIDIA L4 8.9 -> 80)", "recipe default (no GPU
                      // detected)"
  std::vector<std::string> sass;  // what the wheel will hold: {"sm_80"}
  // GPUs here no arch of the recipe serves ("Tesla T4 7.5"): left out of the
  // tokens, said in the warnings; preflight fails when no GPU here is served.
  std::vector<std::string> unserved_gpus;
};

struct BuildPlan {
  bool cuda = false;              // a CUDA build (recipe says so, or .cu files)
  std::optional<ArchPlan> archs;  // CUDA builds only
  unsigned jobs = 1;
  std::string jobs_basis;          // "--jobs", "memory: 20 GiB / 5 GiB per job = 4, CPUs 8"
  unsigned threads = 1;            // nvcc threads per job (1 without a threads variable)
  std::uint64_t budget_bytes = 0;  // the memory the build may use
  std::string budget_basis;        // "--memory-budget", "available 22 GiB (cgroup) - reserve 2 GiB"
  std::uint64_t reserve_bytes = 0;  // kept free for the rest of the machine
  std::uint64_t per_job_bytes = 0;  // expected peak of one job
  std::uint64_t per_worker_bytes =
      0;  // expected peak of one compiler process (the governor's estimate)
  std::uint64_t expected_peak_bytes = 0;  // jobs x per_job
  // The units this build compiles and where that count comes from.
  UnitsBasis units_basis = UnitsBasis::tree;
  std::string units_detail;    // "CUDAExtension flash_attn_2_cuda, setup.py line 227"
  std::size_t cuda_units = 0;  // before multiplying by the archs
  std::size_t cxx_units = 0;
  std::vector<std::string> units_notes;  // why setup.py / the recipe was not used
  std::vector<std::string>
      setup_requires;                // setup.py's literal setup_requires (preflight checks them)
  std::vector<UnitCost> unit_costs;  // CUDA kinds in recipe order, then the defaults
  std::string heaviest_kind;         // the kind that sets per-thread memory ("backward-hdim256")
  double time_scale = 1.0;           // this machine vs the recipe's (calibration)
  std::string cost_basis;  // "measured on ... nvcc 13.0; x1.12 by calibration (2.8 s vs 2.5 s)"
  std::optional<std::chrono::seconds> time_estimate;     // rough, from the compile units
  std::string time_basis;                                // "73 .cu x 1 arch x ~60 s / 4 jobs"
  std::uint64_t disk_estimate_bytes = 0;                 // build tree + wheel
  std::vector<std::pair<std::string, std::string>> env;  // exactly what the build gets, in order
  // --archs reaches nvcc through PYTORCH_NVCC (flashfit's wrapper), which only
  // torch's ninja build reads: without ninja every setup.py target would build.
  bool nvcc_wrapped = false;
  std::vector<std::string> warnings;
};

// Errors: usage for an --archs token the recipe does not accept (the message
// lists the accepted ones and which capability each serves), --archs for a
// recipe whose setup.py fixes the archs when flashfit's nvcc wrapper cannot
// filter them (no literal -gencode list, a torch before 2.1, none of the
// archs among setup.py's targets; build/nvcc_wrapper_plan), --threads for a package without an
// nvcc threads variable, or a zero --jobs/--threads/--memory-budget; never
// probes anything.
util::Result<BuildPlan> plan_build(const env::Environment& env, const resolve::Recipe* recipe,
                                   const SourceScan& scan, const CompileUnits& units,
                                   const PlanRequest& request);
// As above, with the units estimated from the tree scan.
util::Result<BuildPlan> plan_build(const env::Environment& env, const resolve::Recipe* recipe,
                                   const SourceScan& scan, const PlanRequest& request);

// "16G", "16GiB", "1.5g", "800M", "800MiB", "2048K", "123456" (bytes):
// binary units; usage error otherwise (zero, negative, garbage, overflow).
util::Result<std::uint64_t> parse_memory_size(std::string_view text);

}  // namespace flashfit::build
