#pragma once
// nvcc's -gencode targets ("sm_80", "sm_90a", "compute_80") as facts: which
// nvcc releases compile each one, and which GPUs run what it produces. Pure.
// The table is docs/background.md's "SM architectures per toolkit" (nvcc
// --list-gpu-arch of 11.8 and 13.0, verified here, and the release history):
// a build plan that names a target its nvcc cannot compile fails at the first
// .cu file ("nvcc fatal: Unsupported gpu architecture 'compute_53'"), after
// the setup has run, so the plan says so first.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "env/environment.hpp"
#include "env/gpu.hpp"
#include "env/what_if.hpp"

namespace flashfit::build {

// The nvcc here as MAJOR.MINOR, when it was found and answered.
std::optional<env::MajorMinor> nvcc_release(const env::Environment& env);

struct NvccTarget {
  unsigned number = 0;  // 80 for sm_80, 90 for sm_90a
  bool ptx = false;     // compute_XY: PTX the driver compiles for XY and newer
  char suffix = 0;      // 'a' (this exact GPU only) or 'f' (this family), else 0
};

// "sm_80", "sm_90a", "compute_100f";
// nullopt for anything else.
std::optional<NvccTarget> parse_nvcc_target(std::string_view text);

enum class NvccSupport {
  supported,  // this nvcc compiles it
  dropped,    // this nvcc no longer compiles it (sm_53 from CUDA 13.0 on)
  too_new,    // this nvcc does not compile it yet (sm_100 before 12.8)
  unknown,    // not in the table (an nvcc older than 11.0 or newer than 13.x, an unlisted arch)
  no_such_target,  // an `a` form below sm_90 or an `f` form below sm_100: no nvcc has one
};

struct NvccSupportVerdict {
  NvccSupport support = NvccSupport::unknown;
  // The nvcc bound that decides: "12.9" (last release with it) for dropped,
  // "12.8" (first) for too_new; empty otherwise.
  std::string bound;
};

NvccSupportVerdict nvcc_supports(env::MajorMinor nvcc, const NvccTarget& target);

// The oldest arch CUDA `cuda_major` compiles (11: sm_35, 12: sm_50, 13:
// sm_75), from the same table; nullopt for a major the table does not know.
std::optional<unsigned> oldest_target(int cuda_major);

// Every arch some release of CUDA `cuda_major` compiles, in order (12: sm_50
// .. sm_121); empty for a major the table does not know.
std::vector<unsigned> targets_of(int cuda_major);

// Whether the code a target produces runs on a GPU of capability `cc`: SASS
// on the same major at the same or a higher minor (sm_90a only on 9.0; sm_100f
// on the 10.x family), PTX on that capability or newer through the driver's JIT.
bool target_runs_on(const NvccTarget& target, env::ComputeCapability cc);

}  // namespace flashfit::build
