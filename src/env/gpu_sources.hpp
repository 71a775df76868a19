#pragma once
// Internal to the GPU probe: what one source (NVML or the CUDA driver API)
// reported, before gpu.cpp merges the sources into GpuFacts.

#include <string>

#include "env/gpu.hpp"

namespace flashfit::env::detail {

enum class SourceState {
  library_missing,    // dlopen failed
  driver_not_loaded,  // the library loaded but says the kernel driver is absent
  no_device,          // initialised (or said so) and there are zero devices
  failed,             // an error that says nothing about presence
  ok,
};

struct SourceReport {
  SourceState state = SourceState::failed;
  std::string detail;                // the library's error text when not ok
  Fact<std::string> driver_version;  // NVML only
  Fact<pkg::CudaVersion> driver_cuda;
  Fact<std::vector<GpuDevice>> gpus;
  std::vector<std::string> notes;
};

inline constexpr const char* kNvmlSource = "NVML";
inline constexpr const char* kCudaSource = "CUDA driver API";
inline constexpr const char* kProcSource = "/proc/driver/nvidia/version";

SourceReport query_nvml(const std::string& library);
// `need_gpus`: false when only the CUDA version is wanted, so no cuInit.
SourceReport query_cuda_driver(const std::string& library, bool need_gpus);

}  // namespace flashfit::env::detail
