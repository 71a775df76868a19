#pragma once
// The plan's half of `--archs` for a package whose setup.py fixes its own
// -gencode list (causal-conv1d, mamba-ssm): torch >= 2.1's cpp_extension
// writes PYTORCH_NVCC verbatim as the nvcc command of its build.ninja, so
// the build gets `flashfit nvcc-wrap ... --` there and the wrapper
// (build/nvcc_filter) keeps only the requested targets. Older torches (Debian's
// 1.13) ignore the variable: --archs stays refused for them, with the reason.
// Pure: the running flashfit's path and the real nvcc are given.

#include <set>
#include <string>
#include <vector>

#include "env/torch.hpp"
#include "util/error.hpp"

namespace flashfit::build {

// The first torch whose cpp_extension reads PYTORCH_NVCC (pytorch/pytorch
// PR #96987, merged 2023-03-17, after the 2.0 branch cut: first released in 2.1.0).
inline constexpr int kPytorchNvccMajor = 2;
inline constexpr int kPytorchNvccMinor = 1;

// Empty when the torch honours PYTORCH_NVCC; else why not ("torch 1.13.1's
// cpp_extension ignores PYTORCH_NVCC (read from 2.1 on)", "torch's version is unknown").
std::string pytorch_nvcc_unsupported(const env::TorchFacts& torch);

// --archs entries ("80", "8.0", "sm_80", "80;90", "8.0,9.0") as nvcc numbers.
// Errors: usage, for an entry of another shape.
util::Result<std::set<unsigned>> wrapper_arch_numbers(const std::vector<std::string>& archs);

// What --archs keeps of setup.py's targets: for each requested capability
// (89 for 8.9) the target the CUDA runtime would load on such a GPU, the
// newest SASS of its major at or below it, else the newest PTX at or below
// it, so `--archs 8.6` keeps sm_80 rather than nothing.
struct ServedArchs {
  std::vector<std::string> targets;  // of `targets`, in their order
  std::set<unsigned> numbers;        // what the wrapper keeps: 80 keeps sm_80 and compute_80
  std::vector<unsigned> unserved;    // requested capabilities no target runs on
};
ServedArchs serve_archs(const std::vector<std::string>& targets, const std::set<unsigned>& archs);

// What PYTORCH_NVCC gets: `'<flashfit>' nvcc-wrap --archs 80,90 --max-threads N
// --nvcc '<nvcc>' --`, quoted for the shell ninja runs it in. Errors: input,
// for a path ninja or the shell cannot carry ($, newlines, NUL).
util::Result<std::string> nvcc_wrapper_command(const std::string& flashfit_exe,
                                               const std::set<unsigned>& archs,
                                               unsigned max_threads, const std::string& real_nvcc);

}  // namespace flashfit::build
