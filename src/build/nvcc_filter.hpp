#pragma once
// The decision half of an nvcc wrapper for packages whose setup.py fixes its
// own -gencode list and --threads (causal-conv1d, mamba-ssm): given the
// arguments setup.py's build passes nvcc, keep only the -gencode/-arch
// targets of the requested archs and cap --threads. Pure; the shell that
// puts a wrapper first on a CUDA_HOME overlay and execs the real nvcc is not
// written yet (docs/build.md says --archs is still refused for them).

#include <set>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace flashfit::build {

struct NvccFilter {
  std::set<unsigned> archs;  // compute capabilities as nvcc numbers: {80, 90}
  unsigned max_threads = 1;  // the governor's nvcc threads (>= 1)
};

struct NvccFiltered {
  std::vector<std::string> args;
  std::vector<std::string> dropped;  // the targets left out, for the build record
};

// Errors (input): a -gencode/-arch value that is not a target nvcc knows the
// shape of, a flag missing its value, or a command whose targets were all
// left out (it would compile nvcc's default arch instead: never silently).
util::Result<NvccFiltered> filter_nvcc_args(const std::vector<std::string>& args,
                                            const NvccFilter& filter);

}  // namespace flashfit::build
