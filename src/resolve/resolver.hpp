#pragma once
// The resolver: judge every candidate, rank the survivors, pick one, and when
// none fits, say what change would make one fit. Pure: sources are gathered
// before (resolve/gather), and the result is rendered by the CLI.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "env/toolkit.hpp"
#include "resolve/candidate.hpp"
#include "resolve/recipe.hpp"
#include "resolve/rules.hpp"
#include "resolve/target.hpp"

namespace flashfit::resolve {

// What a suggestion changes; to_string gives the word the text and --json show.
enum class SuggestionKind { version, source, torch, python, build, fallback };
std::string_view to_string(SuggestionKind kind);

struct Suggestion {
  SuggestionKind kind = SuggestionKind::version;
  std::string message;
  std::optional<std::string> command;
};

struct Resolution {
  Request request;
  // The candidates as gathered; Judged::candidate points into them (shared, so
  // a copy of the Resolution stays valid).
  std::shared_ptr<const std::vector<Candidate>> inputs;
  // Certain fits first, best first; then uncertain ones (a rule skipped for an
  // unknown fact); then rejected ones, nearest to fitting first (fewest
  // reasons, newest). `selected` is the first fit, uncertain only when no
  // certain one exists. When a candidate fits and the caller asked for fewer
  // ranked rejections (ResolveOptions::rank_rejected), only that many nearest
  // ones are in rank order and the rest follow in the order they were gathered.
  std::vector<Judged> candidates;
  std::optional<std::size_t> selected;  // index into candidates (0 when set)
  std::vector<Suggestion> suggestions;
  std::vector<std::string> warnings;     // sources that failed, a pre-release torch, ...
  std::size_t compatible_count() const;  // no rule rejects them, certain or not
  std::size_t certain_count() const;     // ... and none rests on an unknown fact
};

// What a source build would need, for the suggestion (from the probe).
struct BuildOutlook {
  const env::ToolkitFacts* toolkit = nullptr;  // nullptr: not probed
};

// How printed commands address the environment that was judged, so that a
// pasted command acts on that environment and repeats the question asked.
struct CommandContext {
  std::string python;  // the probed interpreter's absolute path; empty: none was probed
  bool externally_managed =
      false;  // its stdlib has PEP 668's EXTERNALLY-MANAGED: pip refuses, use a venv
  // The flags the resolution was computed under, each already shell-quoted:
  // {"--python", "/v/bin/python"}, {"--torch", "2.6.0+cu124"} (what-if), ...
  std::vector<std::pair<std::string, std::string>> flags;
};

struct ResolveOptions {
  // Rejected candidates whose reasons get messages (compatible ones always
  // do); SIZE_MAX: all of them (--json, --all). The rest carry codes only.
  std::size_t explain_rejected = SIZE_MAX;
  // Rejected candidates put in rank order (nearest first) when a candidate
  // fits; the rest follow in the order gathered. SIZE_MAX: all of them. With
  // no fit every rejection is ranked, whatever this says: the suggestions
  // read them in order.
  std::size_t rank_rejected = SIZE_MAX;
  // false: the caller calls suggest() itself (after probing what a build needs).
  bool suggest = true;
  BuildOutlook build;
  CommandContext commands;
};

Resolution resolve(const Request& request, const Recipe* recipe, const ResolveTarget& target,
                   std::vector<Candidate> candidates, const ResolveOptions& options = {});

// Ranking key pieces, exposed for tests.
// 0 when the wheel's CUDA minor equals torch's (or the label gives only the
// major); then 1 + distance for lower minors; then 100 + distance for higher.
int cuda_closeness(const std::optional<pkg::CudaVersion>& wheel_cuda,
                   const std::optional<std::optional<env::MajorMinor>>& torch_cuda);

}  // namespace flashfit::resolve
