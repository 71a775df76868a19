#pragma once
// The compatibility rules: each candidate wheel against a ResolveTarget, with
// every reason that applies (not just the first), so a user sees all that
// would have to change. Pure functions of values.
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "pkg/specifier.hpp"
#include "pkg/wheel_name.hpp"
#include "resolve/candidate.hpp"
#include "resolve/recipe.hpp"
#include "resolve/target.hpp"

namespace flashfit::resolve {

struct Request {
  std::string name;             // canonical: "flash-attn"
  pkg::SpecifierSet specifier;  // empty: any version
  std::string text;             // as the user wrote it
};

// Memoised recipe lookups for one resolve (one target): thousands of wheels
// share a few hundred (version, source, CUDA) keys.
class JudgeCache {
 public:
  // `version_text` is the public version as the file name spells it (what
  // `version` was parsed from): one spelling gives one version, so the key needs
  // no formatting, and the key is built in a buffer kept between calls.
  const ReleaseFacts& facts(const Recipe& recipe, const pkg::Version& version,
                            std::string_view version_text, const std::string& source,
                            const std::optional<pkg::CudaVersion>& cuda);
  // Whether a specifier of a ReleaseFacts this cache returned contains one of
  // the target's versions (its Python, its torch): asked once per pair, the
  // pair known by address (both outlive the cache).
  bool contains(const pkg::SpecifierSet& spec, const pkg::Version& version);
  // The variant label of a version whose local label the file name spells
  // `label_text`: the few dozen labels thousands of wheels share decoded once.
  const pkg::VariantLabel& variant(std::string_view label_text, const pkg::Version& version);
  // The wheel's parsed file name; the versions and tag sets its wheels share parsed once.
  util::Result<pkg::WheelName> wheel_name(std::string_view filename) {
    return names_.parse(filename);
  }

 private:
  pkg::WheelNameParser names_;
  struct PairHash {
    std::size_t operator()(const std::pair<const void*, const void*>& p) const {
      return std::hash<const void*>{}(p.first) * 31 + std::hash<const void*>{}(p.second);
    }
  };
  std::unordered_map<std::pair<const void*, const void*>, bool, PairHash> contains_;
  std::unordered_map<std::string, ReleaseFacts> facts_;
  std::unordered_map<std::string, pkg::VariantLabel> variants_;
  std::string key_;
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
