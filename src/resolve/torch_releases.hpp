#pragma once
// torch releases on download.pytorch.org: the newest patch of each minor, the
// CUDA builds its index offers, and the Pythons it supports. Used to suggest
// "pin torch X.Y" with the exact pip command. Data, from the PyTorch
// "previous versions" page and the index listings (docs/background.md §18 agrees on
// the CUDA lists); 2.10 is recent and marked so in the table.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "env/what_if.hpp"
#include "pkg/variant.hpp"

namespace flashfit::resolve {

struct TorchRelease {
  pkg::TorchVersion minor;
  const char* latest;                  // "2.7.1"
  std::vector<env::MajorMinor> cudas;  // builds on download.pytorch.org/whl/cuXYZ
  env::MajorMinor python_min;
  env::MajorMinor python_max;
};

std::span<const TorchRelease> torch_releases();

// pip's arguments for the CUDA build of a torch version from download.pytorch.org:
// "torch==2.7.1+cu128 --index-url https://download.pytorch.org/whl/cu128". The
// local label is pinned: an installed 2.7.1+cpu (or +cu126) satisfies a bare
// ==2.7.1, and pip would keep it.
std::string torch_cuda_requirement(std::string_view public_version, const env::MajorMinor& cuda);

// "pip install " + torch_cuda_requirement(release.latest, cuda)
std::string pip_install_torch(const TorchRelease& release, const env::MajorMinor& cuda);

}  // namespace flashfit::resolve
