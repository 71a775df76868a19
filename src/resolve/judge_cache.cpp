#include "resolve/judge_cache.hpp"

namespace flashfit::resolve {
namespace {

// "8.0" -> 8.0; nullopt when absent or unreadable.
std::optional<env::ComputeCapability> parse_cc(const std::optional<std::string>& text) {
  auto mm = text ? env::parse_major_minor(*text) : std::nullopt;
  if (!mm) return std::nullopt;
  return env::ComputeCapability{mm->major, mm->minor};
}

}  // namespace

const JudgedFacts& JudgeCache::facts(const Recipe& recipe, const pkg::Version& version,
                                     std::string_view version_text, std::uint32_t version_id,
                                     const std::string& source,
                                     const std::optional<pkg::CudaVersion>& cuda) {
  if (version_id >= facts_by_version_.size()) facts_by_version_.resize(version_id + 1);
  std::vector<FactsSeen>& seen = facts_by_version_[version_id];
  for (const FactsSeen& s : seen) {
    if (s.source == source && s.cuda == cuda) return *s.facts;
  }
  key_.assign(version_text);
  key_ += '\0';
  key_ += source;
  key_ += '\0';
  if (cuda) {
    key_ += std::to_string(cuda->major);
    if (cuda->minor) key_ += '.' + std::to_string(*cuda->minor);
  }
  auto it = facts_.find(key_);
  if (it == facts_.end()) {
    JudgedFacts entry{recipe.facts_for(version, source, cuda), {}, {}, {}};
    if (entry.facts.min_glibc) entry.min_glibc = env::parse_major_minor(*entry.facts.min_glibc);
    entry.min_compute = parse_cc(entry.facts.min_compute_capability);
    entry.max_compute = parse_cc(entry.facts.max_compute_capability);
    it = facts_.emplace(key_, std::move(entry)).first;
  }
  seen.push_back(FactsSeen{source, cuda, &it->second});
  return it->second;
}

const KnownBroken* JudgeCache::broken(const Recipe& recipe, const pkg::Version& version,
                                      std::uint32_t version_id, std::string_view source_name,
                                      std::string_view filename,
                                      const std::optional<pkg::TorchVersion>& wheel_torch) {
  if (version_id >= broken_by_version_.size()) broken_by_version_.resize(version_id + 1);
  auto& entries = broken_by_version_[version_id];
  if (!entries) {
    entries.emplace();
    for (const KnownBroken& entry : recipe.known_broken) {
      if (entry.concerns_version(version)) entries->push_back(&entry);
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

}  // namespace flashfit::resolve
