#pragma once
// flashfit nvcc-wrap (internal; in no command table, help, completion or man
// page): the nvcc command torch's cpp_extension runs when the build plan sets
// PYTORCH_NVCC for `--archs` on a package whose setup.py fixes its own
// -gencode list (build/nvcc_wrapper_plan). Parsed by hand, before CLI11,
// because everything after `--` is nvcc's and must reach it untouched:
//   flashfit nvcc-wrap --archs 80,90 --max-threads N --nvcc /real/nvcc -- ARGS...

#include <string>
#include <vector>

#include "util/error.hpp"

namespace flashfit::cli {

inline constexpr const char* kNvccWrapCommand = "nvcc-wrap";

struct NvccWrapCall {
  std::vector<std::string> archs;  // as given: "80,90"
  unsigned max_threads = 1;
  std::string nvcc;
  std::vector<std::string> args;  // after --
};

// Pure. `words` follow "nvcc-wrap". Errors: usage (unknown or repeated flag,
// a missing value, no --archs / --nvcc / --, a relative --nvcc, a bad count).
util::Result<NvccWrapCall> parse_nvcc_wrap(const std::vector<std::string>& words);

// Parses, filters (build::filter_nvcc_args) and execs the real nvcc; returns
// only on an error: 2 for bad arguments or targets (nvcc never runs with all
// of them dropped), 1 when nvcc cannot be executed; the message on stderr.
int run_nvcc_wrap(const std::vector<std::string>& words);

}  // namespace flashfit::cli
