#pragma once
// How fast this machine compiles CUDA, relative to the machine a recipe's
// unit figures were measured on. flashfit compiles one small fixed CUDA file
// (a few templated tile kernels, -O3, sm_80) with the local nvcc once and
// records the CPU seconds (user + sys of nvcc and its children: cicc, ptxas)
// it took; the recipe records what the same file took where its figures were
// measured. CPU time, not wall: a compile job's wall time on a busy machine
// is the plan's lanes' business, not the CPU's speed. Cached in
// <cache>/calibration/ by nvcc version and CPU, so it costs a few seconds
// once per machine and toolkit.

#include <filesystem>
#include <optional>
#include <string>

#include "util/error.hpp"

namespace flashfit::build {

struct Calibration {
  double cpu_seconds = 0;    // of the calibration unit
  std::string nvcc_version;  // "13.0.88" as nvcc --version says
  std::string cpu;           // "Intel(R) Xeon(R) Processor x 2"
  bool cached = false;       // read from the cache rather than run now
};

// The calibration unit's source (compiled by run_calibration; the recipe's
// calibration_seconds were measured compiling exactly this text).
const char* calibration_source();

// The cache file for this nvcc version and CPU; pure.
std::filesystem::path calibration_cache_file(const std::filesystem::path& cache_root,
                                             const std::string& nvcc_version,
                                             const std::string& cpu);

// The cached figure for this nvcc version and this CPU, if any.
std::optional<Calibration> cached_calibration(const std::filesystem::path& cache_root,
                                              const std::string& nvcc_version);

// Reads the cached figure, else compiles the unit with `nvcc` in a temp dir
// under `cache_root` and caches the figure (atomic write). Errors: failed
// when nvcc cannot compile it (the message holds nvcc's last line) or
// times out (120 s); interrupted on Ctrl-C.
util::Result<Calibration> calibrate(const std::filesystem::path& nvcc,
                                    const std::string& nvcc_version,
                                    const std::filesystem::path& cache_root);

// The CPU model and count from /proc/cpuinfo and the affinity mask: "Intel(R)
// Xeon(R) Processor x 2"; "unknown CPU" when unreadable.
std::string describe_cpu();

}  // namespace flashfit::build
