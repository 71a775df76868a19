#pragma once
// The compatibility rules: each candidate wheel against a ResolveTarget, with
// every reason that applies (not just the first), so a user sees all that
// would have to change. Pure functions of values.
#include <optional>
#include <string>

#include "pkg/specifier.hpp"
#include "resolve/candidate.hpp"
#include "resolve/recipe.hpp"
#include "resolve/target.hpp"

namespace flashfit::resolve {

struct Request {
  std::string name;            // canonical: "flash-attn"
  pkg::SpecifierSet specifier;  // empty: any version
  std::string text;            // as the user wrote it
};

// nullopt when the candidate is not a wheel of this package (another
// distribution in a shared catalog, an sdist, a garbled file name).
std::optional<Judged> judge(const Candidate& candidate, const Request& request,
                            const Recipe* recipe, const ResolveTarget& target);

// The C++11 ABI of a wheel built against download.pytorch.org's torch:
// torch <= 2.5 false; 2.6 true only for cu126; >= 2.7 true
// (flash-attn.md §11, peers.md §3.1).
std::optional<bool> official_torch_abi(const pkg::TorchVersion& torch,
                                       const std::optional<pkg::CudaVersion>& cuda);

}  // namespace flashfit::resolve
