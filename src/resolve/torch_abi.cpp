#include "resolve/torch_abi.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "env/torch_releases.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

// "cu124" -> 12.4, "cu118" -> 11.8, "cu12" -> 12.x (a wheel label's major only).
std::optional<pkg::CudaVersion> parse_cu_label(std::string_view label) {
  if (!util::starts_with(label, "cu")) return std::nullopt;
  std::string_view digits = label.substr(2);
  if (digits.size() < 2 || digits.size() > 4) return std::nullopt;
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  auto number = [](std::string_view text) {
    int value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
  };
  if (digits.size() == 2) return pkg::CudaVersion{number(digits), std::nullopt};
  std::size_t major_digits = digits.size() - 1;  // the last digit is the minor: "cu118", "cu130"
  return pkg::CudaVersion{number(digits.substr(0, major_digits)),
                          number(digits.substr(major_digits))};
}

// Whether download.pytorch.org had this CUDA build of that torch minor
// (known for the minors up to the newest in torch_releases()).
std::optional<bool> cuda_variant_published(const pkg::TorchVersion& minor,
                                           const pkg::CudaVersion& cuda) {
  for (const env::TorchRelease& release : env::torch_releases()) {
    if (release.minor != minor) continue;
    return std::any_of(release.cudas.begin(), release.cudas.end(), [&](const env::MajorMinor& c) {
      return c.major == cuda.major && (!cuda.minor || c.minor == *cuda.minor);
    });
  }
  return std::nullopt;
}

std::string describe(const OfficialTorchBuild& build) {
  switch (build.kind) {
    case OfficialTorchBuild::Kind::pypi_default:
      return fmt::format("the PyPI build of torch {}", build.minor.str());
    case OfficialTorchBuild::Kind::cpu:
      return fmt::format("the official CPU build of torch {}", build.minor.str());
    case OfficialTorchBuild::Kind::cpu_cxx11:
      return fmt::format("the official cpu-cxx11-abi build of torch {}", build.minor.str());
    case OfficialTorchBuild::Kind::cuda:
      break;
  }
  return fmt::format("the official CUDA {} build of torch {}", build.cuda ? build.cuda->str() : "?",
                     build.minor.str());
}

}  // namespace

std::optional<bool> official_torch_abi(const OfficialTorchBuild& build) {
  using Kind = OfficialTorchBuild::Kind;
  if (build.kind == Kind::cpu_cxx11) return true;  // built with _GLIBCXX_USE_CXX11_ABI=1 on purpose
  if (build.minor >= pkg::TorchVersion{2, 7}) return true;  // every variant, x86_64 and aarch64
  if (build.arch != "x86_64") return std::nullopt;  // the table's older rows are x86_64 only
  if (build.minor < pkg::TorchVersion{2, 6}) return false;
  // 2.6: the pre-C++11 ABI except the cu126 build.
  if (build.kind != Kind::cuda) return false;
  if (!build.cuda || !build.cuda->minor)
    return std::nullopt;  // "cu12": cu124 or cu126, cannot tell
  return build.cuda->major == 12 && *build.cuda->minor == 6;
}

std::optional<OfficialTorchBuild> official_torch_build(const pkg::Version& torch,
                                                       std::string_view arch) {
  if (torch.is_prerelease() || torch.is_devrelease() || torch.is_postrelease() ||
      torch.epoch() != "0") {
    return std::nullopt;  // nightlies and anything else outside the release table
  }
  if (torch.release().size() < 2 || arch.empty()) return std::nullopt;
  OfficialTorchBuild build;
  try {
    build.minor = pkg::TorchVersion{std::stoi(torch.release()[0]), std::stoi(torch.release()[1])};
  } catch (...) {
    return std::nullopt;
  }
  if (build.minor < pkg::TorchVersion{1, 0}) return std::nullopt;
  build.arch = std::string(arch);
  const std::string label = torch.has_local() ? torch.local() : std::string();
  if (label.empty()) {
    build.kind = OfficialTorchBuild::Kind::pypi_default;
  } else if (label == "cpu") {
    build.kind = OfficialTorchBuild::Kind::cpu;
  } else if (label == "cpu.cxx11.abi") {
    build.kind = OfficialTorchBuild::Kind::cpu_cxx11;
  } else if (auto cuda = parse_cu_label(label); cuda && cuda->minor) {
    build.kind = OfficialTorchBuild::Kind::cuda;
    build.cuda = cuda;
    // A CUDA build that minor never had is not an official build.
    if (cuda_variant_published(build.minor, *cuda) == false) return std::nullopt;
  } else {
    return std::nullopt;  // +git..., +rocm (not in the table), a distribution's own label
  }
  return build;
}

std::optional<DerivedAbi> derive_torch_abi(const pkg::Version& torch, std::string_view arch) {
  auto build = official_torch_build(torch, arch);
  if (!build) return std::nullopt;
  auto abi = official_torch_abi(*build);
  if (!abi) return std::nullopt;
  return DerivedAbi{
      *abi, fmt::format("derived from torch {}: {} ({}) uses {}", torch.str(), describe(*build),
                        build->arch, *abi ? "the C++11 ABI" : "the pre-C++11 ABI")};
}

}  // namespace flashfit::resolve
