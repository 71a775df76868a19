// Which fatbin image runs on which GPU (docs/background.md §2). Pure: no
// I/O, so the doctor and the resolver can ask "what if this GPU" cheaply.
#include <fmt/core.h>

#include <algorithm>
#include <charconv>

#include "binary/fatbin.hpp"

namespace flashfit::binary {

namespace {

struct Arch {
  int major = 0;
  int minor = 0;
};

// Arch numbers are decimal: 90 is 9.0, 100 is 10.0, 121 is 12.1.
Arch split(int arch) {
  return Arch{arch / 10, arch % 10};
}

// The architecture rules shared by SASS and PTX for `a` and `f` images.
bool variant_fits(const FatbinEntry& entry, int cc_major, int cc_minor) {
  const Arch arch = split(entry.arch);
  switch (entry.variant) {
    case ArchVariant::a:
      return arch.major == cc_major && arch.minor == cc_minor;
    case ArchVariant::f:
      return arch.major == cc_major && arch.minor <= cc_minor;
    case ArchVariant::none:
      break;
  }
  return false;
}

bool sass_fits(const FatbinEntry& entry, int cc_major, int cc_minor) {
  if (entry.kind != FatbinKind::cubin) return false;
  if (entry.variant != ArchVariant::none) return variant_fits(entry, cc_major, cc_minor);
  const Arch arch = split(entry.arch);
  return arch.major == cc_major && arch.minor <= cc_minor;
}

bool ptx_fits(const FatbinEntry& entry, int cc_major, int cc_minor) {
  if (entry.kind != FatbinKind::ptx) return false;
  if (entry.variant != ArchVariant::none) return variant_fits(entry, cc_major, cc_minor);
  return entry.arch <= cc_major * 10 + cc_minor;
}

// The more specific of two fitting images: the newer arch, then a / f over
// plain (built for this GPU on purpose).
bool better(const FatbinEntry& candidate, const FatbinEntry& best) {
  if (candidate.arch != best.arch) return candidate.arch > best.arch;
  return static_cast<int>(candidate.variant) > static_cast<int>(best.variant);
}

bool driver_can_jit(const FatbinEntry& entry, std::optional<CudaVersion> driver_cuda) {
  if (!driver_cuda || !entry.ptx_isa_version) return true;
  const auto needed = cuda_for_ptx_isa(*entry.ptx_isa_version);
  return !needed || *driver_cuda >= *needed;
}

std::string list_images(const std::vector<FatbinEntry>& entries, FatbinKind kind) {
  std::vector<std::string> names;
  for (const auto& entry : entries) {
    if (entry.kind != kind) continue;
    std::string name = entry.name();
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text.empty() ? "none" : text;
}

}  // namespace

std::optional<CudaVersion> cuda_for_ptx_isa(const std::string& isa) {
  const auto dot = isa.find('.');
  if (dot == std::string::npos) return std::nullopt;
  int major = -1;
  int minor = -1;
  const char* begin = isa.data();
  if (std::from_chars(begin, begin + dot, major).ptr != begin + dot) return std::nullopt;
  if (std::from_chars(begin + dot + 1, begin + isa.size(), minor).ptr != begin + isa.size()) {
    return std::nullopt;
  }
  // PTX ISA releases per CUDA release (PTX ISA manual, "Release notes"). 8.6
  // came with the unreleased 12.7, so 12.8 is the first driver that has it.
  if (major == 7 && minor >= 0 && minor <= 8) return CudaVersion{11, minor};
  if (major == 8 && minor >= 0 && minor <= 5) return CudaVersion{12, minor};
  if (major == 8 && (minor == 6 || minor == 7)) return CudaVersion{12, 8};
  if (major == 8 && minor == 8) return CudaVersion{12, 9};
  if (major == 9 && minor == 0) return CudaVersion{13, 0};
  if (major == 6 && minor >= 0 && minor <= 2) return CudaVersion{9, minor};
  if (major == 6 && minor >= 3 && minor <= 5) return CudaVersion{10, minor - 3};
  return std::nullopt;
}

KernelVerdict kernel_for_gpu(const std::vector<FatbinEntry>& entries, int cc_major, int cc_minor,
                             std::optional<CudaVersion> driver_cuda) {
  KernelVerdict verdict;
  // 1. SASS built for this GPU's major with a minor <= the GPU's.
  for (const auto& entry : entries) {
    if (sass_fits(entry, cc_major, cc_minor) && (!verdict.entry || better(entry, *verdict.entry))) {
      verdict.entry = entry;
    }
  }
  if (verdict.entry) {
    verdict.source = KernelSource::sass;
    return verdict;
  }
  // 2. PTX the driver can JIT; prefer images the driver is known to accept.
  for (const auto& entry : entries) {
    if (!ptx_fits(entry, cc_major, cc_minor)) continue;
    if (!verdict.entry) {
      verdict.entry = entry;
      continue;
    }
    const bool ok = driver_can_jit(entry, driver_cuda);
    const bool best_ok = driver_can_jit(*verdict.entry, driver_cuda);
    if ((ok && !best_ok) || (ok == best_ok && better(entry, *verdict.entry))) verdict.entry = entry;
  }
  if (verdict.entry) {
    verdict.source = KernelSource::ptx_jit;
    const FatbinEntry& ptx = *verdict.entry;
    const std::string isa = ptx.ptx_isa_version.value_or("unknown");
    verdict.warning = fmt::format(
        "no SASS for compute capability {}.{}: runs only through the driver's JIT of PTX {} (ISA "
        "{}); the first launch compiles every kernel, which can take minutes",
        cc_major, cc_minor, ptx.name(), isa);
    const auto needed = ptx.ptx_isa_version ? cuda_for_ptx_isa(*ptx.ptx_isa_version) : std::nullopt;
    if (needed) {
      verdict.warning +=
          fmt::format(", and needs a driver for CUDA {}.{} or newer", needed->major, needed->minor);
      if (driver_cuda) verdict.driver_ok = !(*driver_cuda < *needed);
      if (driver_cuda && *driver_cuda < *needed) {
        verdict.warning += fmt::format(
            "; this driver supports CUDA {}.{} only, so loading fails with "
            "cudaErrorUnsupportedPtxVersion",
            driver_cuda->major, driver_cuda->minor);
      }
    }
    return verdict;
  }
  verdict.warning = fmt::format(
      "no kernel image for compute capability {}.{} (SASS: {}; PTX: {}): launches fail with "
      "cudaErrorNoKernelImageForDevice",
      cc_major, cc_minor, list_images(entries, FatbinKind::cubin),
      list_images(entries, FatbinKind::ptx));
  return verdict;
}

}  // namespace flashfit::binary
