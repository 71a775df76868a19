#pragma once
// The C++11 string ABI of official torch builds (PyPI and download.pytorch.org),
// from the table in docs/resolve.md "torch's C++11 ABI": on x86_64, torch <= 2.5
// uses the pre-C++11 ABI, 2.6 too except its cu126 build, and every build of
// 2.7 and later uses the C++11 ABI (on aarch64 as well). The one home of that
// fact: the resolver derives an unprobed torch's ABI from it, infers the ABI of
// wheels built against official torches, and the "pin torch" suggestion uses it.
// Anything outside the table (a source build, a +git or other local label, a
// nightly, an aarch64 torch before 2.7, a CUDA build that was never published)
// is unknown, never guessed.
#include <optional>
#include <string>
#include <string_view>

#include "pkg/variant.hpp"
#include "pkg/version.hpp"

namespace flashfit::resolve {

// Which official build of a torch minor.
struct OfficialTorchBuild {
  enum class Kind {
    pypi_default,  // no local label: the PyPI wheel (2.6: the cu124 build)
    cpu,           // +cpu
    cpu_cxx11,     // +cpu.cxx11.abi (download.pytorch.org/whl/cpu-cxx11-abi)
    cuda,          // +cuXYZ, or a wheel label's CUDA
  };
  pkg::TorchVersion minor;
  Kind kind = Kind::pypi_default;
  std::optional<pkg::CudaVersion> cuda;  // Kind::cuda; the minor may be missing ("cu12")
  std::string arch = "x86_64";           // the machine the build is for
};

// true: the C++11 ABI; false: the pre-C++11 one; nullopt: the table does not say.
std::optional<bool> official_torch_abi(const OfficialTorchBuild& build);

// The official build a torch version names ("2.6.0+cu124" on x86_64), or
// nullopt when it is not one (pre-release or dev version, an unknown local
// label, a CUDA variant that build of torch never had).
std::optional<OfficialTorchBuild> official_torch_build(const pkg::Version& torch,
                                                       std::string_view arch);

struct DerivedAbi {
  bool cxx11_abi = false;
  std::string
      basis;  // "derived from torch 2.6.0+cu124: the official cu124 build of torch 2.6 (x86_64)"
};

// The ABI of an installed or what-if torch that was neither probed nor given.
std::optional<DerivedAbi> derive_torch_abi(const pkg::Version& torch, std::string_view arch);

}  // namespace flashfit::resolve
