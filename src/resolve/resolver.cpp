#include "resolve/resolver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <compare>
#include <cstdint>
#include <unordered_map>

#include "resolve/suggestions.hpp"

namespace flashfit::resolve {
namespace {

// The release it hangs under names its own version ("v2.8.3" for 2.8.3):
// preferred over the same file re-uploaded under a later tag.
bool tag_matches_version(const std::string& tag, const std::string& public_version) {
  return tag == public_version || (tag.size() == public_version.size() + 1 && tag[0] == 'v' &&
                                   std::string_view(tag).substr(1) == public_version);
}

// A catalog row known only from a prediction (the release workflow's build
// matrix) or a single third-party mention: it may never have been uploaded.
// Every other candidate was listed by someone who saw the file.
bool unconfirmed(const Candidate& c) {
  return c.evidence == "workflow-matrix" || c.evidence == "single-third-party-mention";
}

// download.pytorch.org's local labels: cu128, cpu, rocm6.2, xpu.
bool is_pytorch_index_label(const std::string& local) {
  return local.rfind("cu", 0) == 0 || local == "cpu" || local.rfind("rocm", 0) == 0 ||
         local == "xpu";
}

void warn_about_torch(const ResolveTarget& target, std::vector<std::string>& warnings) {
  if (!target.torch) return;
  const pkg::Version& t = *target.torch;
  if (t.is_prerelease() || t.is_devrelease()) {
    warnings.push_back(fmt::format(
        "torch {} is a pre-release: wheels built for torch {}.{} were linked against a release or "
        "another "
        "nightly, and may miss symbols; `flashfit inspect` or `flashfit install` checks them",
        t.str(), t.release().size() > 0 ? t.release()[0] : "?",
        t.release().size() > 1 ? t.release()[1] : "?"));
  } else if (t.has_local() && !is_pytorch_index_label(t.local())) {
    warnings.push_back(
        fmt::format("torch {} is not a download.pytorch.org build (local label '{}'): its C++ "
                    "symbols may differ from "
                    "the torch the wheels were built against; inspect checks them",
                    t.str(), t.local()));
  }
}

// The judged wheels' versions, each distinct one handled once: thousands of
// wheels share a few hundred versions.
struct Versions {
  std::vector<std::uint32_t> slot;      // per judged wheel: its distinct version
  std::vector<std::string> normalized;  // per distinct version: public_str()
  std::vector<std::uint32_t> rank;      // per distinct version: newest highest, equal ones shared
};

// Keyed by the public version as the file name spells it (one spelling is one
// version; two spellings of one version share a rank), so the sort compares
// integers and no version is formatted per wheel. The wheels of one spelling
// of the full version (Judged::version_id, from the resolve's one cache) are
// looked up once.
Versions distinct_versions(const std::vector<Judged>& judged) {
  Versions out;
  std::unordered_map<std::string_view, std::uint32_t> seen;
  constexpr std::uint32_t kUnseen = UINT32_MAX;
  std::vector<std::uint32_t> slot_by_id;  // per version_id: its distinct version
  std::vector<std::size_t> holders;       // per distinct version: its first wheel
  out.slot.reserve(judged.size());
  for (std::size_t i = 0; i < judged.size(); ++i) {
    const std::optional<std::uint32_t> id = judged[i].version_id;
    if (id && *id < slot_by_id.size() && slot_by_id[*id] != kUnseen) {
      out.slot.push_back(slot_by_id[*id]);
      continue;
    }
    std::string_view text = judged[i].candidate->filename;
    const auto first = text.find('-');
    text = text.substr(first + 1, text.find('-', first + 1) - first - 1);
    text = text.substr(0, text.find('+'));
    auto [it, added] = seen.try_emplace(text, static_cast<std::uint32_t>(holders.size()));
    if (added) holders.push_back(i);
    out.slot.push_back(it->second);
    if (id) {
      if (*id >= slot_by_id.size()) slot_by_id.resize(std::size_t{*id} + 1, kUnseen);
      slot_by_id[*id] = it->second;
    }
  }
  auto version_of = [&](std::uint32_t k) -> const pkg::Version& {
    return judged[holders[k]].wheel->version;
  };
  std::vector<std::uint32_t> by_version(holders.size());
  for (std::uint32_t k = 0; k < by_version.size(); ++k) {
    by_version[k] = k;
    out.normalized.push_back(version_of(k).public_str());
  }
  std::sort(by_version.begin(), by_version.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::is_lt(version_of(a).compare_public(version_of(b)));
  });
  out.rank.resize(holders.size());
  std::uint32_t rank = 0;
  for (std::size_t k = 0; k < by_version.size(); ++k) {
    if (k > 0 &&
        std::is_neq(version_of(by_version[k - 1]).compare_public(version_of(by_version[k]))))
      ++rank;
    out.rank[by_version[k]] = rank;
  }
  return out;
}

// Puts `items` into the order `order` gives (order[k]: the index of the item
// that goes k-th), moving each item once along the permutation's cycles
// instead of into a second vector.
void apply_order(std::vector<Judged>& items, std::vector<std::size_t>& order) {
  for (std::size_t start = 0; start < order.size(); ++start) {
    if (order[start] == start) continue;
    Judged held = std::move(items[start]);
    std::size_t k = start;
    while (order[k] != start) {
      const std::size_t from = order[k];
      items[k] = std::move(items[from]);
      order[k] = k;
      k = from;
    }
    items[k] = std::move(held);
    order[k] = k;
  }
}

}  // namespace

std::size_t Resolution::compatible_count() const {
  return static_cast<std::size_t>(std::count_if(candidates.begin(), candidates.end(),
                                                [](const Judged& j) { return j.compatible(); }));
}

std::size_t Resolution::certain_count() const {
  return static_cast<std::size_t>(std::count_if(candidates.begin(), candidates.end(),
                                                [](const Judged& j) { return j.certain(); }));
}

int cuda_closeness(const std::optional<pkg::CudaVersion>& wheel_cuda,
                   const std::optional<std::optional<env::MajorMinor>>& torch_cuda) {
  if (!wheel_cuda || !wheel_cuda->minor || !torch_cuda || !*torch_cuda) return 0;
  int wheel = *wheel_cuda->minor, torch = (*torch_cuda)->minor;
  if (wheel == torch) return 0;
  if (wheel < torch) return 1 + (torch - wheel);
  return 100 + (wheel - torch);
}

namespace {

// The order of the ranking, as integers compared field by field, a smaller
// value first; what is left equal is ordered by URL.
//   fit:      not compatible; for a fit, uncertain (a rule skipped for an
//             unknown fact: only when nothing certain fits), then unconfirmed
//             (a guessed row only when nothing confirmed fits); for a
//             rejection, its number of reasons (nearest first); then the
//             version, newest first
//   source:   the source's priority, then how far the wheel's CUDA minor is
//             from torch's (offset binary: every int keeps its order)
//   tag_rank: pip's preference among the interpreter's tags
//   other_release: 0 when the release it hangs under names its version
struct RankKey {
  std::uint64_t fit;
  std::uint64_t source;
  std::uint64_t tag_rank;
  std::uint8_t other_release;
  // clang-tidy 14 reads the defaulted <=>'s comparison with 0 as a null pointer.
  // NOLINTNEXTLINE(modernize-use-nullptr)
  friend auto operator<=>(const RankKey&, const RankKey&) = default;
};

RankKey rank_key(const Judged& j, bool unconfirmed, bool own_release, int closeness,
                 std::uint32_t version_rank) {
  const auto biased = [](int value) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(value) ^ 0x80000000U);
  };
  // A wheel has a reason per rule that rejects it: a few dozen at most, far
  // below the field's 2^29.
  constexpr std::uint64_t kMaxReasons = (std::uint64_t{1} << 29) - 1;
  std::uint64_t fit = 0;
  if (!j.compatible()) {
    fit = std::uint64_t{1} << 63 | std::min<std::uint64_t>(j.reasons.size(), kMaxReasons) << 32;
  } else {
    fit = std::uint64_t{j.certain() ? 0U : 1U} << 62 | std::uint64_t{unconfirmed ? 1U : 0U} << 61;
  }
  fit |= UINT32_MAX - version_rank;
  return {fit, biased(j.candidate->priority) << 32 | biased(closeness), j.tag_rank,
          static_cast<std::uint8_t>(own_release ? 0 : 1)};
}

// A wheel's place in the ranking: its key, its URL's rank in its compiled
// catalog (url_catalog nullptr: a row not compiled) and its index among the judged.
struct SortItem {
  RankKey key;
  const CompiledCatalog* url_catalog;
  std::uint32_t url_rank;
  std::uint32_t index;
};

}  // namespace

Resolution resolve(const Request& request, const Recipe* recipe, const ResolveTarget& target,
                   std::vector<Candidate> candidates, const ResolveOptions& options) {
  Resolution r;
  r.request = request;
  r.inputs = std::make_shared<const std::vector<Candidate>>(std::move(candidates));
  JudgeCache cache;
  // First pass: codes only. Thousands of wheels are judged; few are shown.
  // Unless every one is shown (--all, and the flows that read every
  // candidate): then each is explained on this one pass, not judged twice.
  const bool explain_all = options.explain_rejected >= r.inputs->size();
  r.candidates.reserve(r.inputs->size());
  for (const Candidate& c : *r.inputs) {
    // Judged in place: a record is hundreds of bytes, and thousands are judged.
    r.candidates.emplace_back();
    if (!judge_into(r.candidates.back(), c, request, recipe, target, {explain_all, &cache}))
      r.candidates.pop_back();
  }
  // The ranking's facts, read once per candidate and packed into integers
  // (RankKey): the sort compares each thousands of times, and through the
  // Judged (a large record) and its Candidate pointer each comparison missed
  // the cache; packed, a comparison is a few integer compares.
  const Versions versions = distinct_versions(r.candidates);
  std::vector<SortItem> items;
  items.reserve(r.candidates.size());
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    const Judged& j = r.candidates[i];
    const std::uint32_t v = versions.slot[i];
    const std::optional<CatalogUrlRank>& url_rank = j.candidate->url_rank;
    items.push_back({rank_key(j, unconfirmed(*j.candidate),
                              tag_matches_version(j.candidate->release_tag, versions.normalized[v]),
                              cuda_closeness(j.variant.cuda, target.torch_cuda), versions.rank[v]),
                     url_rank ? url_rank->catalog : nullptr, url_rank ? url_rank->rank : 0,
                     static_cast<std::uint32_t>(i)});
  }
  // Sorted as packed records, the URLs read only where two wheels tie on
  // everything else and are not rows of one compiled catalog (whose ranks
  // order them as their URLs: the URL compare missed the cache on every tie).
  // The index is the last tie-break: what ties on everything else keeps the
  // inputs' order, as a stable sort would keep it, without a stable sort's
  // merge buffer.
  const auto ranks_before = [&](const SortItem& a, const SortItem& b) {
    if (const auto c = a.key <=> b.key; std::is_neq(c)) return std::is_lt(c);
    if (a.url_catalog != nullptr && a.url_catalog == b.url_catalog) {
      if (a.url_rank != b.url_rank) return a.url_rank < b.url_rank;
    } else if (const int c = r.candidates[a.index].candidate->url.compare(
                   r.candidates[b.index].candidate->url);
               c != 0) {
      return c < 0;
    }
    return a.index < b.index;
  };
  const auto fits = [](const SortItem& s) { return (s.key.fit >> 63) == 0; };
  const auto fitting = static_cast<std::size_t>(std::count_if(items.begin(), items.end(), fits));
  std::vector<std::size_t> order;
  order.reserve(items.size());
  if (fitting == 0 || options.rank_rejected >= items.size() - fitting) {
    std::sort(items.begin(), items.end(), ranks_before);
    for (const SortItem& item : items) order.push_back(item.index);
  } else {
    // A fit and a few rejections shown: the fits ranked, then the nearest
    // `rank_rejected` rejections (kept on a heap over one pass), then the
    // other rejections as gathered. Thousands of rejections are not sorted.
    std::vector<SortItem> ranked;
    std::vector<SortItem> nearest;  // a max-heap by rank: its front is the farthest kept
    for (const SortItem& item : items) {
      if (fits(item)) {
        ranked.push_back(item);
      } else if (nearest.size() < options.rank_rejected) {
        nearest.push_back(item);
        std::push_heap(nearest.begin(), nearest.end(), ranks_before);
      } else if (!nearest.empty() && ranks_before(item, nearest.front())) {
        std::pop_heap(nearest.begin(), nearest.end(), ranks_before);
        nearest.back() = item;
        std::push_heap(nearest.begin(), nearest.end(), ranks_before);
      }
    }
    std::sort(ranked.begin(), ranked.end(), ranks_before);
    std::sort_heap(nearest.begin(), nearest.end(), ranks_before);
    std::vector<bool> placed(items.size());
    for (const std::vector<SortItem>* part : {&ranked, &nearest}) {
      for (const SortItem& item : *part) {
        order.push_back(item.index);
        placed[item.index] = true;
      }
    }
    for (const SortItem& item : items) {
      if (!placed[item.index]) order.push_back(item.index);
    }
  }
  apply_order(r.candidates, order);
  std::size_t rejected_explained = 0;
  for (Judged& j : r.candidates) {
    if (!explain_all && (j.compatible() || rejected_explained++ < options.explain_rejected))
      j = std::move(*judge(*j.candidate, request, recipe, target, {true, &cache}));
  }
  if (!r.candidates.empty() && r.candidates.front().compatible()) r.selected = 0;
  warn_about_torch(target, r.warnings);
  if (!r.selected && options.suggest)
    r.suggestions = suggest(r, recipe, target, options.build, options.commands);
  return r;
}

}  // namespace flashfit::resolve
