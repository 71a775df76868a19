#pragma once
// torch releases on download.pytorch.org: the newest patch of each minor, the
// CUDA builds its index offers, and the Pythons it supports. Used to suggest
// "pin torch X.Y" with the exact pip command. Data, from the PyTorch
// "previous versions" page and the index listings (docs/background.md §18 agrees on
// the CUDA lists); 2.10 is recent and marked so in the table.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "env/what_if.hpp"
#include "pkg/variant.hpp"
#include "pkg/version.hpp"

namespace flashfit::env {

struct TorchRelease {
  pkg::TorchVersion minor;
  const char* latest;             // "2.7.1"
  std::vector<MajorMinor> cudas;  // builds on download.pytorch.org/whl/cuXYZ
  MajorMinor python_min;
  MajorMinor python_max;
};

std::span<const TorchRelease> torch_releases();

// pip's arguments for the CUDA build of a torch version from download.pytorch.org:
// "torch==2.7.1+cu128 --index-url https://download.pytorch.org/whl/cu128". The
// local label is pinned: an installed 2.7.1+cpu (or +cu126) satisfies a bare
// ==2.7.1, and pip would keep it.
std::string torch_cuda_requirement(std::string_view public_version, const MajorMinor& cuda);

// A CUDA build of torch for a driver that runs `driver_cuda` (nullopt: not
// known, the newest build then), as near `torch` as the table allows: its own
// minor (its own patch; a pre-release or nightly takes the minor's release),
// else the nearest older minor with a build the driver runs; that release's
// newest CUDA the driver runs. nullopt: nothing in the table fits.
struct CudaTorch {
  std::string version;  // public, "2.9.1"
  MajorMinor cuda;
};
std::optional<CudaTorch> cuda_torch_for(const pkg::Version& torch,
                                        const std::optional<MajorMinor>& driver_cuda);

// "pip install " + torch_cuda_requirement(release.latest, cuda)
std::string pip_install_torch(const TorchRelease& release, const MajorMinor& cuda);

}  // namespace flashfit::env
