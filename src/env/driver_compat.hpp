#pragma once
// Pure decisions about the NVIDIA driver: reading its version numbers and
// whether it can run binaries built with a given CUDA toolkit
// (docs/background.md §3). No I/O, so doctor findings and what-if
// environments use the same code as a probed machine.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/variant.hpp"
#include "util/error.hpp"

namespace flashfit::env {

// The integer NVML and the CUDA driver API report (1000 * major + 10 * minor):
// 12080 -> 12.8, 11040 -> 11.4. Anything else (zero, negative, a non-zero
// last digit, an absurd major) is nullopt: a garbled answer is not a version.
std::optional<pkg::CudaVersion> cuda_version_from_int(int encoded);

// "570.124.06" -> {570, 124, 6}; "580" -> {580}. Only dot-separated decimal
// components; anything else is nullopt.
std::optional<std::vector<int>> parse_driver_version(std::string_view text);

// <0, 0, >0 like strcmp; missing trailing components count as 0.
int compare_driver_versions(const std::vector<int>& a, const std::vector<int>& b);

// The driver version in the text of /proc/driver/nvidia/version, from its
// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.06  ..." line
// (the open kernel module says "... Open Kernel Module for x86_64  580.65.06").
util::Result<std::string> parse_proc_driver_version(std::string_view text);

// The oldest Linux driver that runs builds of a CUDA major through
// minor-version compatibility ("525.60.13" for 12); nullopt for majors the
// table does not cover.
std::optional<std::string_view> minimum_driver_for_cuda_major(int major);

// The newest CUDA a driver version fully supports (docs/background.md §3), for
// --driver without a probed driver CUDA version; nullopt for a driver older
// than every release in the table, or an unreadable version.
std::optional<pkg::CudaVersion> cuda_supported_by_driver(const std::string& driver_version);

enum class DriverSupport {
  yes,                   // the driver supports the build's CUDA version
  minor_version_compat,  // same major, older minor: runs, but its PTX will not JIT
  no,                    // too old (or no driver at all)
  unknown,               // not enough is known to say
};
std::string_view to_string(DriverSupport support);  // "yes", "minor-version-compat", ...

struct DriverSupportVerdict {
  DriverSupport support = DriverSupport::unknown;
  std::string reason;  // one sentence for doctor, naming the numbers compared
};

// Does a driver run binaries built with CUDA `build`? Decides from the CUDA
// version the driver reports when known (the exact answer), else from the
// driver version against the §3 minimums. A build label that names only the
// major ("cu12") asks for any 12.x.
DriverSupportVerdict driver_runs_cuda(const std::optional<std::string>& driver_version,
                                      const std::optional<pkg::CudaVersion>& driver_cuda,
                                      const pkg::CudaVersion& build);

}  // namespace flashfit::env
