#pragma once
// The resolver's per-resolve memo (one target): what thousands of wheels share
// worked out once, keyed by the wheel name parser's numbers where it can.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "env/gpu.hpp"
#include "env/what_if.hpp"
#include "pkg/specifier.hpp"
#include "pkg/tags.hpp"
#include "pkg/wheel_name.hpp"
#include "resolve/candidate.hpp"
#include "resolve/recipe.hpp"
#include "util/text_hash.hpp"

namespace flashfit::resolve {

// A release's facts with the values the rules compare parsed once.
struct JudgedFacts {
  ReleaseFacts facts;
  std::optional<env::MajorMinor> min_glibc;           // facts.min_glibc, when it parses
  std::optional<env::ComputeCapability> min_compute;  // facts.min_compute_capability
  std::optional<env::ComputeCapability> max_compute;  // facts.max_compute_capability
};

// What the rules read of a wheel's tag set, against one target: pip's rank
// among the interpreter's tags (or the codes it is rejected for), whether a
// tag is a plain linux_* one (the glibc rule), whether every tag is pure, and
// the first tag's architecture (the official torch ABI rule). Tag sets alike
// in all of it are one class: a catalog's few dozen tag sets are a handful.
struct TagClass {
  std::optional<std::size_t> rank;
  std::vector<ReasonCode> rejections;  // check_tags' codes when `rank` is nullopt
  bool linux_plain = false;
  bool pure = false;
  std::string arch;
  bool operator==(const TagClass&) const = default;
};

// A codes-only judgement (JudgeOptions::explain false) with what is the
// wheel's own left out: wheels alike in everything the rules read share it.
struct SharedVerdict {
  std::optional<bool> cxx11_abi;
  std::string abi_basis;
  std::vector<Reason> reasons;  // codes; no messages on that pass
  std::vector<Assumption> assumptions;
  std::size_t tag_rank = 0;
};

// What a codes-only judgement of a wheel with nothing of its own for the rules
// to read (no build record, no requires-python, no record doubt) depends on,
// besides the request, recipe and target a cache serves: its version's
// spelling (its label, its release's facts), its tag set's class, its source,
// the known-broken entry that concerns it, and three flags.
struct VerdictKey {
  std::uint32_t version_id = 0;
  std::uint32_t tag_class = 0;
  std::uint32_t source = 0;  // JudgeCache::source_id
  const KnownBroken* broken = nullptr;
  bool yanked = false;
  bool missing = false;
  bool source_enabled = true;
  bool operator==(const VerdictKey&) const = default;
};

// Memoised lookups for one resolve (one request, one recipe, one target):
// thousands of wheels share a few hundred versions, a few dozen labels and tag
// sets, and a few hundred (version, source, CUDA) keys, each worked out once.
class JudgeCache {
 public:
  using PartIds = pkg::WheelNameParser::PartIds;
  // The wheel's parsed file name; the versions and tag sets its wheels share
  // parsed once. `ids` names them for the lookups below.
  util::Result<pkg::WheelName> wheel_name(std::string_view filename, PartIds* ids = nullptr) {
    return names_.parse(filename, ids);
  }
  // The same, read by where its parts lie (Candidate::name_layout), into
  // `out`, built there (false: not a valid wheel name).
  bool wheel_name_into(std::optional<pkg::WheelName>& out, std::string_view filename,
                       const pkg::WheelNameLayout& layout, PartIds* ids) {
    return names_.parse_into(out, filename, layout, ids);
  }
  // The recipe's facts for a release. `version_text` is the public version as
  // the file name spells it (what `version` was parsed from, without its
  // label): one spelling gives one version, so the key needs no formatting;
  // `version_id` (the full version's id) finds it again without a lookup.
  const JudgedFacts& facts(const Recipe& recipe, const pkg::Version& version,
                           std::string_view version_text, std::uint32_t version_id,
                           const std::string& source, const std::optional<pkg::CudaVersion>& cuda);
  // The first of the recipe's known-broken entries that concerns the wheel:
  // which entries concern its version is worked out once per public version
  // (`version_text`, as for facts()).
  const KnownBroken* broken(const Recipe& recipe, const pkg::Version& version,
                            std::uint32_t version_id, std::string_view version_text,
                            std::string_view source_name, std::string_view filename,
                            const std::optional<pkg::TorchVersion>& wheel_torch);
  // Whether a specifier of a ReleaseFacts this cache returned contains one of
  // the target's versions (its Python, its torch): asked once per pair, the
  // pair known by address (both outlive the cache).
  bool contains(const pkg::SpecifierSet& spec, const pkg::Version& version);
  // The variant label of a version whose local label the file name spells
  // `label_text`: the few dozen labels thousands of wheels share decoded once.
  const pkg::VariantLabel& variant(std::uint32_t version_id, std::string_view label_text,
                                   const pkg::Version& version);
  // pip's preference for a tag set among `supported` (best_rank), asked once
  // per tag set: a cache serves one target.
  std::optional<std::size_t> best_rank(const pkg::SupportedTags& supported,
                                       std::uint32_t tag_set_id,
                                       const std::vector<pkg::Tag>& wheel_tags);
  // The reason codes a tag set no supported tag matches was rejected for
  // (rules' check_tags, codes-only pass), kept per tag set for the wheels
  // that share it; reset with best_rank's answers when the tags asked change.
  const std::vector<ReasonCode>* tag_rejections(std::uint32_t tag_set_id) const {
    return tag_set_id < tag_rejections_.size() && tag_rejections_[tag_set_id]
               ? &*tag_rejections_[tag_set_id]
               : nullptr;
  }
  void keep_tag_rejections(std::uint32_t tag_set_id, std::vector<ReasonCode> codes) {
    if (tag_set_id >= tag_rejections_.size()) tag_rejections_.resize(tag_set_id + 1);
    tag_rejections_[tag_set_id] = std::move(codes);
  }
  // The class of a tag set (numbered as PartIds::tag_set), worked out by
  // `classify` on its first sight; classes alike are one number.
  template <class Classify>
  std::uint32_t tag_class(std::uint32_t tag_set_id, Classify classify) {
    if (tag_set_id >= class_by_tag_set_.size())
      class_by_tag_set_.resize(std::size_t{tag_set_id} + 1, kNoClass);
    std::uint32_t& id = class_by_tag_set_[tag_set_id];
    if (id == kNoClass) id = class_id(classify());
    return id;
  }
  // A small number per source name (a resolve has a few sources).
  std::uint32_t source_id(std::string_view source);
  // The verdict kept for `key` (nullptr: none yet), counted as taken when
  // found. Valid until the next keep_verdict.
  const SharedVerdict* take_verdict(const VerdictKey& key);
  void keep_verdict(const VerdictKey& key, SharedVerdict verdict);
  std::size_t verdicts_taken() const { return verdicts_taken_; }
  // The C++11 ABI of the official torch a label names for a tag set's
  // platform, worked out by `infer` once per (label, tag set); `label` must be
  // one variant() returned.
  template <class Infer>
  std::optional<bool> official_abi(const pkg::VariantLabel& label, std::uint32_t tag_set_id,
                                   Infer infer) {
    auto [it, added] = official_abi_.try_emplace({&label, tag_set_id});
    if (added) it->second = infer();
    return it->second;
  }

 private:
  // The number of a full version's public part, spelled `public_text`: the
  // wheels of one release share it, whatever their labels.
  std::uint32_t public_version_id(std::uint32_t version_id, std::string_view public_text);

  pkg::WheelNameParser names_;
  struct PairHash {
    template <class A, class B>
    std::size_t operator()(const std::pair<A, B>& p) const {
      return std::hash<A>{}(p.first) * 31 + std::hash<B>{}(p.second);
    }
  };
  std::unordered_map<std::pair<const void*, const void*>, bool, PairHash> contains_;
  static constexpr std::uint32_t kNoPublicId = UINT32_MAX;
  std::vector<std::uint32_t> public_by_version_;  // per full version id; kNoPublicId: not yet
  std::unordered_map<std::string, std::uint32_t, util::TextHash, std::equal_to<>> public_ids_;
  // Per public version id: its release's facts, by source and CUDA.
  struct FactsKept {
    std::string source;
    std::optional<pkg::CudaVersion> cuda;
    std::unique_ptr<JudgedFacts> facts;  // its address is handed out: it never moves
  };
  std::vector<std::vector<FactsKept>> facts_by_public_;
  // Per full version id: the entries above its wheels found, by source and CUDA.
  struct FactsSeen {
    std::string source;
    std::optional<pkg::CudaVersion> cuda;
    const JudgedFacts* facts;
  };
  std::vector<std::vector<FactsSeen>> facts_by_version_;
  // Per public version id: the known-broken entries its version is in, in the recipe's order.
  std::vector<std::optional<std::vector<const KnownBroken*>>> broken_by_version_;
  std::unordered_map<std::string, pkg::VariantLabel> variants_;
  std::vector<const pkg::VariantLabel*> variant_by_version_;
  const pkg::SupportedTags* ranked_for_ = nullptr;
  std::vector<std::optional<std::optional<std::size_t>>> rank_by_tag_set_;
  std::vector<std::optional<std::vector<ReasonCode>>> tag_rejections_;
  std::unordered_map<std::pair<const void*, std::uint32_t>, std::optional<bool>, PairHash>
      official_abi_;
  std::string key_;
  std::uint32_t class_id(TagClass tag_class);
  static constexpr std::uint32_t kNoClass = UINT32_MAX;
  std::vector<std::uint32_t> class_by_tag_set_;  // per tag set id; kNoClass: not yet
  std::vector<TagClass> tag_classes_;
  std::vector<std::string> sources_;
  std::uint32_t last_source_ = 0;  // source_id's last answer
  // Per version id: the verdicts its wheels found, by the rest of the key.
  std::vector<std::vector<std::pair<VerdictKey, SharedVerdict>>> verdicts_by_version_;
  std::size_t verdicts_taken_ = 0;
};

}  // namespace flashfit::resolve
