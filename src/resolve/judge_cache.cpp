#include "resolve/judge_cache.hpp"

#include <algorithm>

namespace flashfit::resolve {
namespace {

// "8.0" -> 8.0; nullopt when absent or unreadable.
std::optional<env::ComputeCapability> parse_cc(const std::optional<std::string>& text) {
  auto mm = text ? env::parse_major_minor(*text) : std::nullopt;
  if (!mm) return std::nullopt;
  return env::ComputeCapability{mm->major, mm->minor};
}

}  // namespace

std::uint32_t JudgeCache::public_version_id(std::uint32_t version_id,
                                            std::string_view public_text) {
  if (version_id >= public_by_version_.size())
    public_by_version_.resize(version_id + 1, kNoPublicId);
  std::uint32_t& id = public_by_version_[version_id];
  if (id == kNoPublicId) {
    auto it = public_ids_.find(public_text);
    if (it == public_ids_.end())
      it = public_ids_.emplace(std::string(public_text), public_ids_.size()).first;
    id = it->second;
  }
  return id;
}

const JudgedFacts& JudgeCache::facts(const Recipe& recipe, const pkg::Version& version,
                                     std::string_view version_text, std::uint32_t version_id,
                                     const std::string& source,
                                     const std::optional<pkg::CudaVersion>& cuda) {
  // First what the wheels of this full version (one label, so mostly one CUDA) found.
  if (version_id >= facts_by_version_.size()) facts_by_version_.resize(version_id + 1);
  std::vector<FactsSeen>& seen = facts_by_version_[version_id];
  for (const FactsSeen& s : seen) {
    if (s.cuda == cuda && s.source == source) return *s.facts;
  }
  // A release's facts depend on its public version, not on the label: the
  // wheels of one release (dozens of labels) share them.
  const std::uint32_t id = public_version_id(version_id, version_text);
  if (id >= facts_by_public_.size()) facts_by_public_.resize(id + 1);
  std::vector<FactsKept>& kept = facts_by_public_[id];
  auto found = std::find_if(kept.begin(), kept.end(), [&](const FactsKept& k) {
    return k.cuda == cuda && k.source == source;
  });
  if (found == kept.end()) {
    auto entry = std::make_unique<JudgedFacts>(
        JudgedFacts{recipe.facts_for(version, source, cuda), {}, {}, {}});
    if (entry->facts.min_glibc) entry->min_glibc = env::parse_major_minor(*entry->facts.min_glibc);
    entry->min_compute = parse_cc(entry->facts.min_compute_capability);
    entry->max_compute = parse_cc(entry->facts.max_compute_capability);
    kept.push_back(FactsKept{source, cuda, std::move(entry)});
    found = kept.end() - 1;
  }
  seen.push_back(FactsSeen{source, cuda, found->facts.get()});
  return *found->facts;
}

const KnownBroken* JudgeCache::broken(const Recipe& recipe, const pkg::Version& version,
                                      std::uint32_t version_id, std::string_view version_text,
                                      std::string_view source_name, std::string_view filename,
                                      const std::optional<pkg::TorchVersion>& wheel_torch) {
  // Whether an entry concerns a version ignores its label (KnownBroken::concerns_version).
  const std::uint32_t id = public_version_id(version_id, version_text);
  if (id >= broken_by_version_.size()) broken_by_version_.resize(id + 1);
  auto& entries = broken_by_version_[id];
  if (!entries) {
    entries.emplace();
    const pkg::Version public_version = version.without_local();  // once, not per entry
    for (const KnownBroken& entry : recipe.known_broken) {
      if (entry.concerns_version(public_version)) entries->push_back(&entry);
    }
  }
  for (const KnownBroken* entry : *entries) {
    if (entry->concerns_wheel(source_name, filename, wheel_torch)) return entry;
  }
  return nullptr;
}

const pkg::VariantLabel& JudgeCache::variant(std::uint32_t version_id, std::string_view label_text,
                                             const pkg::Version& version) {
  if (version_id < variant_by_version_.size() && variant_by_version_[version_id])
    return *variant_by_version_[version_id];
  key_.assign(label_text);
  auto it = variants_.find(key_);
  // Decoded from Version::local() as before (its lower-cased spelling is the label's `raw`).
  if (it == variants_.end())
    it = variants_.emplace(key_, pkg::decode_variant(version.local())).first;
  if (version_id >= variant_by_version_.size()) variant_by_version_.resize(version_id + 1);
  variant_by_version_[version_id] = &it->second;
  return it->second;
}

std::optional<std::size_t> JudgeCache::best_rank(const pkg::SupportedTags& supported,
                                                 std::uint32_t tag_set_id,
                                                 const std::vector<pkg::Tag>& wheel_tags) {
  if (ranked_for_ != &supported) {
    ranked_for_ = &supported;
    rank_by_tag_set_.clear();
    tag_rejections_.clear();
  }
  if (tag_set_id >= rank_by_tag_set_.size()) rank_by_tag_set_.resize(tag_set_id + 1);
  auto& rank = rank_by_tag_set_[tag_set_id];
  if (!rank) rank = supported.best_rank(wheel_tags);
  return *rank;
}

bool JudgeCache::contains(const pkg::SpecifierSet& spec, const pkg::Version& version) {
  // Pre-releases count: the rules ask whether this release supports the version here.
  auto [it, added] = contains_.try_emplace({&spec, &version}, false);
  if (added) it->second = spec.contains(version, true);
  return it->second;
}

std::uint32_t JudgeCache::class_id(TagClass tag_class) {
  auto found = std::find(tag_classes_.begin(), tag_classes_.end(), tag_class);
  if (found == tag_classes_.end()) found = tag_classes_.insert(found, std::move(tag_class));
  return static_cast<std::uint32_t>(found - tag_classes_.begin());
}

std::uint32_t JudgeCache::source_id(std::string_view source) {
  // A source's rows come together: the last one asked first.
  if (last_source_ < sources_.size() && sources_[last_source_] == source) return last_source_;
  auto found = std::find(sources_.begin(), sources_.end(), source);
  if (found == sources_.end()) found = sources_.insert(found, std::string(source));
  last_source_ = static_cast<std::uint32_t>(found - sources_.begin());
  return last_source_;
}

const SharedVerdict* JudgeCache::take_verdict(const VerdictKey& key) {
  if (key.version_id >= verdicts_by_version_.size()) return nullptr;
  for (const auto& [kept_key, kept] : verdicts_by_version_[key.version_id]) {
    if (kept_key == key) {
      ++verdicts_taken_;
      return &kept;
    }
  }
  return nullptr;
}

void JudgeCache::keep_verdict(const VerdictKey& key, SharedVerdict verdict) {
  if (key.version_id >= verdicts_by_version_.size())
    verdicts_by_version_.resize(std::size_t{key.version_id} + 1);
  verdicts_by_version_[key.version_id].emplace_back(key, std::move(verdict));
}

}  // namespace flashfit::resolve
