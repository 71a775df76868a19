#include "env/torch_releases.hpp"

#include <fmt/format.h>

namespace flashfit::env {

std::span<const TorchRelease> torch_releases() {
  static const std::vector<TorchRelease> table = {
      {{1, 12}, "1.12.1", {{10, 2}, {11, 3}, {11, 6}}, {3, 7}, {3, 10}},
      {{1, 13}, "1.13.1", {{11, 6}, {11, 7}}, {3, 7}, {3, 11}},
      {{2, 0}, "2.0.1", {{11, 7}, {11, 8}}, {3, 8}, {3, 11}},
      {{2, 1}, "2.1.2", {{11, 8}, {12, 1}}, {3, 8}, {3, 11}},
      {{2, 2}, "2.2.2", {{11, 8}, {12, 1}}, {3, 8}, {3, 12}},
      {{2, 3}, "2.3.1", {{11, 8}, {12, 1}}, {3, 8}, {3, 12}},
      {{2, 4}, "2.4.1", {{11, 8}, {12, 1}, {12, 4}}, {3, 8}, {3, 12}},
      {{2, 5}, "2.5.1", {{11, 8}, {12, 1}, {12, 4}}, {3, 9}, {3, 13}},
      {{2, 6}, "2.6.0", {{11, 8}, {12, 4}, {12, 6}}, {3, 9}, {3, 13}},
      {{2, 7}, "2.7.1", {{11, 8}, {12, 6}, {12, 8}}, {3, 9}, {3, 13}},
      {{2, 8}, "2.8.0", {{12, 6}, {12, 8}, {12, 9}}, {3, 9}, {3, 13}},
      {{2, 9}, "2.9.1", {{12, 6}, {12, 8}, {13, 0}}, {3, 10}, {3, 14}},
      // Recent: the CUDA list follows 2.9's (mjun0812's matrix builds the same).
      {{2, 10}, "2.10.0", {{12, 6}, {12, 8}, {13, 0}}, {3, 10}, {3, 14}},
  };
  return table;
}

std::string torch_cuda_requirement(std::string_view public_version, const MajorMinor& cuda) {
  return fmt::format("torch=={}+cu{}{} --index-url https://download.pytorch.org/whl/cu{}{}",
                     public_version, cuda.major, cuda.minor, cuda.major, cuda.minor);
}

std::optional<CudaTorch> cuda_torch_for(const pkg::Version& torch,
                                        const std::optional<MajorMinor>& driver_cuda) {
  const auto minor = pkg::torch_minor(torch);
  if (!minor) return std::nullopt;
  const auto table = torch_releases();
  // Newest minor first, from the torch's own down.
  for (auto it = table.rbegin(); it != table.rend(); ++it) {
    const TorchRelease& release = *it;
    if (*minor < release.minor) continue;
    std::optional<MajorMinor> pick;
    for (const MajorMinor& cuda : release.cudas) {
      if (driver_cuda && *driver_cuda < cuda) continue;
      if (!pick || *pick < cuda) pick = cuda;
    }
    if (!pick) continue;
    const bool own = release.minor == *minor && !torch.is_prerelease() && !torch.is_postrelease();
    return CudaTorch{own ? torch.public_str() : std::string(release.latest), *pick};
  }
  return std::nullopt;
}

std::string pip_install_torch(const TorchRelease& release, const MajorMinor& cuda) {
  return "pip install " + torch_cuda_requirement(release.latest, cuda);
}

}  // namespace flashfit::env
