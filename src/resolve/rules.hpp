#pragma once
// The compatibility rules: each candidate wheel against a ResolveTarget, with
// every reason that applies (not just the first), so a user sees all that
// would have to change. Pure functions of values.
#include <optional>
#include <string>

#include "pkg/specifier.hpp"
#include "resolve/candidate.hpp"
#include "resolve/judge_cache.hpp"
#include "resolve/recipe.hpp"
#include "resolve/target.hpp"

namespace flashfit::resolve {

struct Request {
  std::string name;             // canonical: "flash-attn"
  pkg::SpecifierSet specifier;  // empty: any version
  std::string text;             // as the user wrote it
};

struct JudgeOptions {
  // false: reason codes only, no messages or notes (a first pass over
  // thousands of wheels; the ones shown are judged again with messages).
  bool explain = true;
  JudgeCache* cache = nullptr;
};

// nullopt when the candidate is not a wheel of this package (another
// distribution in a shared catalog, an sdist, a garbled file name). The
// Judged points at `candidate`, which must outlive it.
std::optional<Judged> judge(const Candidate& candidate, const Request& request,
                            const Recipe* recipe, const ResolveTarget& target,
                            const JudgeOptions& options = {});
// The same, into `out` (a default-constructed Judged, left unspecified when it
// returns false): the resolver judges thousands straight into their vector.
bool judge_into(Judged& out, const Candidate& candidate, const Request& request,
                const Recipe* recipe, const ResolveTarget& target,
                const JudgeOptions& options = {});

}  // namespace flashfit::resolve
