#pragma once
// Which host compilers a given nvcc accepts: the checks in nvcc's
// crt/host_config.h, as a pure table (docs/background.md §4). The probe
// uses it for doctor's verdict; the build planner uses it to pick -ccbin.
// torch's own bounds (cpp_extension's CUDA_GCC_VERSIONS, §9.4) differ and are
// a separate concern.

#include <optional>
#include <string>

namespace flashfit::env {

enum class CompilerKind { gcc, clang, other };

struct HostCompilerLimits {
  std::optional<int> max_gcc_major;    // nullopt: not recorded for this toolkit
  std::optional<int> gcc_minor_below;  // with max_gcc_major: that major only below this minor
  std::optional<int> max_clang_major;  // nullopt: not recorded for this toolkit
};

// `cuda_build` is the last number of nvcc's "V11.4.48"; it tells 11.4.0 from
// 11.4.1+, which differ. Without it 11.4 gets the stricter 11.4.0 limits.
HostCompilerLimits nvcc_host_compiler_limits(int cuda_major, int cuda_minor,
                                             std::optional<int> cuda_build = std::nullopt);

enum class HostCompilerVerdict { ok, too_new, unknown };

struct HostCompilerCheck {
  HostCompilerVerdict verdict = HostCompilerVerdict::unknown;
  std::string reason;  // one sentence, for doctor; says the limit when there is one
};

HostCompilerCheck check_host_compiler(const HostCompilerLimits& limits, CompilerKind kind,
                                      int compiler_major, int compiler_minor);

const char* to_string(CompilerKind kind);
const char* to_string(HostCompilerVerdict verdict);

}  // namespace flashfit::env
