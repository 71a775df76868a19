#include "resolve/candidate.hpp"

#include <algorithm>

namespace flashfit::resolve {

std::string_view to_string(SourceRole role) {
  switch (role) {
    case SourceRole::cache:
      return "cache";
    case SourceRole::index:
      return "index";
    case SourceRole::find_links:
      return "find-links";
    case SourceRole::upstream:
      return "upstream";
    case SourceRole::community:
      return "community";
  }
  return "unknown";
}

std::string_view to_string(ReasonCode code) {
  switch (code) {
    case ReasonCode::version:
      return "version";
    case ReasonCode::yanked:
      return "yanked";
    case ReasonCode::known_broken:
      return "known-broken";
    case ReasonCode::source_disabled:
      return "source-disabled";
    case ReasonCode::python:
      return "python";
    case ReasonCode::platform:
      return "platform";
    case ReasonCode::glibc:
      return "glibc";
    case ReasonCode::torch:
      return "torch";
    case ReasonCode::cuda:
      return "cuda";
    case ReasonCode::cxx11_abi:
      return "cxx11-abi";
    case ReasonCode::gpu_arch:
      return "gpu-arch";
    case ReasonCode::compute_capability:
      return "compute-capability";
    case ReasonCode::pure_wheel:
      return "pure-wheel";
    case ReasonCode::missing:
      return "missing";
  }
  return "unknown";
}

bool Judged::has(ReasonCode code) const {
  return std::any_of(reasons.begin(), reasons.end(),
                     [&](const Reason& r) { return r.code == code; });
}

}  // namespace flashfit::resolve
