#include "resolve/resolver.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "resolve/suggestions.hpp"

namespace flashfit::resolve {
namespace {

pkg::Version public_version(const Judged& j) {
  auto v = pkg::Version::parse(j.wheel->version.public_str());
  return v ? *v : j.wheel->version;
}

// The release it hangs under names its own version ("v2.8.3" for 2.8.3):
// preferred over the same file re-uploaded under a later tag.
bool tag_matches_version(const Judged& j) {
  const std::string& tag = j.candidate.release_tag;
  std::string v = j.wheel->version.public_str();
  return tag == v || tag == "v" + v;
}

// download.pytorch.org's local labels: cu128, cpu, rocm6.2, xpu.
bool is_pytorch_index_label(const std::string& local) {
  return local.rfind("cu", 0) == 0 || local == "cpu" || local.rfind("rocm", 0) == 0 || local == "xpu";
}

void warn_about_torch(const ResolveTarget& target, std::vector<std::string>& warnings) {
  if (!target.torch) return;
  const pkg::Version& t = *target.torch;
  if (t.is_prerelease() || t.is_devrelease()) {
    warnings.push_back(fmt::format(
        "torch {} is a pre-release: wheels built for torch {}.{} were linked against a release or another "
        "nightly, and may miss symbols; `flashfit inspect` or `flashfit install` checks them",
        t.str(), t.release().size() > 0 ? t.release()[0] : "?", t.release().size() > 1 ? t.release()[1] : "?"));
  } else if (t.has_local() && !is_pytorch_index_label(t.local())) {
    warnings.push_back(fmt::format(
        "torch {} is not a download.pytorch.org build (local label '{}'): its C++ symbols may differ from "
        "the torch the wheels were built against; inspect checks them",
        t.str(), t.local()));
  }
}

}  // namespace

std::size_t Resolution::compatible_count() const {
  return static_cast<std::size_t>(
      std::count_if(candidates.begin(), candidates.end(), [](const Judged& j) { return j.compatible(); }));
}

int cuda_closeness(const std::optional<pkg::CudaVersion>& wheel_cuda,
                   const std::optional<std::optional<env::MajorMinor>>& torch_cuda) {
  if (!wheel_cuda || !wheel_cuda->minor || !torch_cuda || !*torch_cuda) return 0;
  int wheel = *wheel_cuda->minor, torch = (*torch_cuda)->minor;
  if (wheel == torch) return 0;
  if (wheel < torch) return 1 + (torch - wheel);
  return 100 + (wheel - torch);
}

Resolution resolve(const Request& request, const Recipe* recipe, const ResolveTarget& target,
                   const std::vector<Candidate>& candidates, const BuildOutlook& build) {
  Resolution r;
  r.request = request;
  r.candidates.reserve(candidates.size() / 2);
  for (const Candidate& c : candidates) {
    if (auto j = judge(c, request, recipe, target)) r.candidates.push_back(std::move(*j));
  }
  struct Key {
    pkg::Version version;
    int closeness;
  };
  std::vector<Key> keys;
  keys.reserve(r.candidates.size());
  for (const Judged& j : r.candidates) keys.push_back({public_version(j), cuda_closeness(j.variant.cuda, target.torch_cuda)});
  std::vector<std::size_t> order(r.candidates.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Judged& x = r.candidates[a];
    const Judged& y = r.candidates[b];
    if (x.compatible() != y.compatible()) return x.compatible();
    if (!x.compatible()) {  // nearest first: fewest reasons, then newest
      if (x.reasons.size() != y.reasons.size()) return x.reasons.size() < y.reasons.size();
    }
    if (!(keys[a].version == keys[b].version)) return keys[b].version < keys[a].version;
    if (x.candidate.priority != y.candidate.priority) return x.candidate.priority < y.candidate.priority;
    if (keys[a].closeness != keys[b].closeness) return keys[a].closeness < keys[b].closeness;
    if (x.tag_rank != y.tag_rank) return x.tag_rank < y.tag_rank;
    if (tag_matches_version(x) != tag_matches_version(y)) return tag_matches_version(x);
    return x.candidate.url < y.candidate.url;
  });
  std::vector<Judged> sorted;
  sorted.reserve(order.size());
  for (std::size_t i : order) sorted.push_back(std::move(r.candidates[i]));
  r.candidates = std::move(sorted);
  if (!r.candidates.empty() && r.candidates.front().compatible()) r.selected = 0;
  warn_about_torch(target, r.warnings);
  if (!r.selected) r.suggestions = suggest(r, recipe, target, candidates, build);
  return r;
}

}  // namespace flashfit::resolve
