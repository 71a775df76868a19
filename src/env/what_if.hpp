#pragma once
// What-if overrides (--torch 2.8.0+cu128 --gpu 9.0 ...): each replaces one
// probed fact, so a hypothetical environment flows through the same resolver,
// verdicts and findings as a probed one. Parsing is pure; applying them to an
// Environment happens in env/environment.cpp.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/version.hpp"
#include "util/error.hpp"

namespace flashfit::env {

struct MajorMinor {
  int major = 0;
  int minor = 0;
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
  friend bool operator==(const MajorMinor&, const MajorMinor&) = default;
  // clang-tidy 14 misreads a defaulted <=> as a literal 0 for a pointer.
  // NOLINTNEXTLINE(modernize-use-nullptr)
  friend auto operator<=>(const MajorMinor&, const MajorMinor&) = default;
};

// The raw option values, as typed; empty optionals are "probe it".
struct WhatIfOptions {
  std::optional<std::string> python_version;  // X.Y
  std::optional<std::string> torch;           // a PEP 440 version, e.g. 2.8.0+cu128
  std::optional<std::string> cuda;            // X.Y or none (torch's CUDA)
  std::optional<std::string> cxx11_abi;       // TRUE or FALSE
  std::optional<std::string> gpu;             // X.Y[,X.Y...] or none
  std::optional<std::string> driver;          // e.g. 570.124.06
  std::optional<std::string> glibc;           // X.Y
  std::optional<std::string> arch;            // x86_64 or aarch64
};

// Parsed and validated.
struct WhatIf {
  std::optional<MajorMinor> python_version;
  std::optional<pkg::Version> torch;
  // torch's CUDA: outer optional = not overridden; inner nullopt = "none" (a CPU build).
  std::optional<std::optional<MajorMinor>> cuda;
  bool cuda_explicit = false;  // --cuda given, rather than implied by --torch's label
  std::optional<bool> cxx11_abi;
  std::optional<std::vector<MajorMinor>> gpus;  // empty vector = "none"
  std::optional<std::string> driver;
  std::optional<MajorMinor> glibc;
  std::optional<std::string> arch;

  bool any() const;
  // "--torch 2.8.0+cu128 --gpu 9.0" for reports.
  std::vector<std::string> describe() const;
};

// Usage errors name the flag and the accepted forms.
util::Result<WhatIf> parse_what_if(const WhatIfOptions& options);

// "12.8" -> {12, 8}; exactly two dot-separated decimal numbers of sane size.
std::optional<MajorMinor> parse_major_minor(std::string_view text);

// torch's CUDA implied by a version's local label: 2.8.0+cu128 -> 12.8;
// +cpu, +xpu and +rocm6.3 -> none (those builds have no CUDA); nullopt when
// the label says nothing (2.8.0, +git1234).
std::optional<std::optional<MajorMinor>> cuda_from_torch_label(const pkg::Version& torch);

// The ROCm (HIP) version of download.pytorch.org's ROCm build label:
// 2.5.1+rocm6.2 -> "6.2", +rocm6.2.4 -> "6.2.4"; nullopt for any other label.
std::optional<std::string> hip_from_torch_label(const pkg::Version& torch);

}  // namespace flashfit::env
