#pragma once
// The NVIDIA driver and GPUs of this machine, probed without torch: NVML
// first, the CUDA driver API when NVML is missing or fails, and
// /proc/driver/nvidia/version for the driver version when both are silent.
// Both libraries are loaded with dlopen, so flashfit runs on machines without
// them, and tests load stub libraries exporting the same C symbols.

#include <compare>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "env/driver_compat.hpp"
#include "env/fact.hpp"
#include "pkg/variant.hpp"

namespace flashfit::env {

struct ComputeCapability {
  int major = 0;
  int minor = 0;

  std::string str() const;  // "8.9"
  // clang-tidy 14 misreads a defaulted <=> as a literal 0 for a pointer.
  // NOLINTNEXTLINE(modernize-use-nullptr)
  friend auto operator<=>(const ComputeCapability&, const ComputeCapability&) = default;
};

struct GpuDevice {
  unsigned index = 0;  // the enumeration order of the source that listed it
  Fact<std::string> name;
  Fact<ComputeCapability> capability;
  Fact<std::uint64_t> total_memory;  // bytes
};

// What the probe concluded about NVIDIA hardware, so "no GPU" is a plain
// answer rather than a pile of unknown facts.
enum class GpuPresence {
  unknown,     // something is there but could not be read (see the facts' reasons)
  no_driver,   // no NVML, no CUDA driver library, no kernel module
  no_gpu,      // a driver answered and listed zero devices
  gpus_found,  // at least one device
};
std::string_view to_string(GpuPresence presence);  // "unknown", "no-driver", "no-gpu", "gpus-found"

struct GpuFacts {
  GpuPresence presence = GpuPresence::unknown;
  std::string summary;                 // one line for doctor: "2 NVIDIA GPUs, driver 570.124.06"
  Fact<std::string> driver_version;    // "570.124.06"
  Fact<pkg::CudaVersion> driver_cuda;  // the newest CUDA the driver supports ("CUDA Version")
  Fact<std::vector<GpuDevice>> gpus;   // known-empty when there is no driver or no GPU
  std::vector<std::string> notes;      // what each source said, for --verbose
};

struct GpuProbeOptions {
  std::filesystem::path root = "/";  // prefix for /proc (a fixture tree in tests)
  // Names given to dlopen, found by the normal loader search. Tests pass a
  // name that exists nowhere to simulate a missing library on any machine.
  std::string nvml_library = "libnvidia-ml.so.1";
  std::string cuda_library = "libcuda.so.1";
};

// Never fails: everything it cannot learn becomes an unknown fact with the
// library's own error text.
GpuFacts probe_gpus(const GpuProbeOptions& options = {});

// driver_runs_cuda for a probed (or what-if) machine; no driver means "no".
DriverSupportVerdict driver_runs_cuda(const GpuFacts& facts, const pkg::CudaVersion& build);

}  // namespace flashfit::env
