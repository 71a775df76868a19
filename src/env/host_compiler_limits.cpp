#include "env/host_compiler_limits.hpp"

#include <fmt/format.h>

namespace flashfit::env {
namespace {

// nvcc 11.4.0 prints "V11.4.48"; later 11.4 updates have higher build numbers
// and accept GCC 11 (below 11.2).
constexpr int kCuda1140Build = 48;

struct Row {
  int major;
  int minor_first;
  int minor_last;
  std::optional<int> gcc;
  std::optional<int> gcc_minor_below;
  std::optional<int> clang;
};

// docs/background.md §4 (spack cuda.py conflicts + host_config.h). Gaps
// (12.7, 13.3) and toolkits outside the table stay unknown rather than guessed.
constexpr Row kRows[] = {
    {11, 0, 0, 9, std::nullopt, 14},
    {11, 1, 3, 10, std::nullopt, 14},
    {11, 5, 5, 11, 2, 14},
    {11, 6, 8, 11, std::nullopt, 14},
    {12, 0, 0, 12, std::nullopt, 14},
    {12, 1, 1, 12, std::nullopt, 15},
    {12, 2, 3, 12, std::nullopt, 16},
    {12, 4, 5, 13, std::nullopt, 17},
    {12, 6, 6, 13, std::nullopt, 18},
    {12, 8, 9, 14, std::nullopt, 19},
    {13, 0, 0, 15, std::nullopt, 20},
    {13, 1, 2, 15, std::nullopt, std::nullopt},  // clang 20 recorded for 13.0 only
    {13, 4, 4, 16, std::nullopt, std::nullopt},
};

}  // namespace

HostCompilerLimits nvcc_host_compiler_limits(int cuda_major, int cuda_minor,
                                             std::optional<int> cuda_build) {
  if (cuda_major == 11 && cuda_minor == 4) {
    if (cuda_build && *cuda_build > kCuda1140Build) return {11, 2, 14};
    return {10, std::nullopt, 14};
  }
  for (const Row& row : kRows) {
    if (row.major == cuda_major && cuda_minor >= row.minor_first && cuda_minor <= row.minor_last)
      return {row.gcc, row.gcc_minor_below, row.clang};
  }
  return {};
}

HostCompilerCheck check_host_compiler(const HostCompilerLimits& limits, CompilerKind kind,
                                      int compiler_major, int compiler_minor) {
  using V = HostCompilerVerdict;
  if (kind == CompilerKind::other)
    return {V::unknown, "nvcc's limits are recorded only for GCC and clang"};
  const bool gcc = kind == CompilerKind::gcc;
  const auto& max = gcc ? limits.max_gcc_major : limits.max_clang_major;
  const char* name = gcc ? "GCC" : "clang";
  if (!max) return {V::unknown, fmt::format("no {} limit is recorded for this nvcc", name)};
  if (compiler_major > *max)
    return {V::too_new, fmt::format("this nvcc accepts {} up to {}; {} is newer (nvcc flag "
                                    "-allow-unsupported-compiler overrides at your own risk)",
                                    name, *max, compiler_major)};
  if (gcc && compiler_major == *max && limits.gcc_minor_below &&
      compiler_minor >= *limits.gcc_minor_below)
    return {V::too_new,
            fmt::format("this nvcc accepts GCC {} only below {}.{}; {}.{} is newer", *max, *max,
                        *limits.gcc_minor_below, compiler_major, compiler_minor)};
  return {V::ok, fmt::format("this nvcc accepts {} up to {}", name, *max)};
}

const char* to_string(CompilerKind kind) {
  switch (kind) {
    case CompilerKind::gcc:
      return "gcc";
    case CompilerKind::clang:
      return "clang";
    case CompilerKind::other:
      break;
  }
  return "other";
}

const char* to_string(HostCompilerVerdict verdict) {
  switch (verdict) {
    case HostCompilerVerdict::ok:
      return "ok";
    case HostCompilerVerdict::too_new:
      return "too new";
    case HostCompilerVerdict::unknown:
      break;
  }
  return "unknown";
}

}  // namespace flashfit::env
