#include "workflow/publish_cache.hpp"

#include <fmt/core.h>

#include <charconv>
#include <string>

#include "pkg/name.hpp"
#include "workflow/publish_fit.hpp"
#include "workflow/publish_inspect.hpp"

namespace flashfit::workflow {
namespace {

// A torch version's major and minor (2.9.1 -> (2, 9)); nullopt when its
// release has fewer than two numeric parts.
std::optional<std::pair<int, int>> torch_major_minor(const pkg::Version& version) {
  const auto& release = version.release();
  if (release.size() < 2) return std::nullopt;
  int parts[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    const std::string& text = release[static_cast<std::size_t>(i)];
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), parts[i]);
    if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  }
  return std::make_pair(parts[0], parts[1]);
}

}  // namespace

bool cache_entry_matches(const store::CacheEntry& entry, std::string_view spec) {
  if (spec.empty()) return true;
  const auto eq = spec.find("==");
  const std::string name = pkg::canonicalize_name(spec.substr(0, eq));
  if (name != entry.package) return false;
  return eq == std::string_view::npos || entry.version == spec.substr(eq + 2);
}

void apply_cache_entry(const store::CacheEntry& entry, PublishCandidate& candidate) {
  WheelFacts& f = candidate.facts;
  const bool built = entry.origin.kind == store::EntryOrigin::Kind::built;
  const store::BuildRecord& record = entry.record;
  f.source = built ? "build" : "cache";
  if (!entry.urls.empty()) f.original_url = entry.urls.front();  // where it was fetched from
  if (candidate.refusal) return;
  const auto torch = record.torch ? torch_major_minor(*record.torch) : std::nullopt;
  if (!f.torch_major && torch) {
    f.torch_major = torch->first;
    f.torch_minor = torch->second;
  }
  // Only a CUDA whose minor is known names a page ("12.x" does not).
  int cuda_major = 0, cuda_minor = 0;
  const bool cuda = record.cuda && record.cuda->version && record.cuda->version->minor;
  if (cuda) {
    cuda_major = record.cuda->version->major;
    cuda_minor = record.cuda->version->minor.value_or(0);
  }
  if (!f.cuda_major && cuda && f.uses_cuda) {  // the torch's CUDA; the wheel's only if it uses CUDA
    f.cuda_major = cuda_major;
    f.cuda_minor = cuda_minor;
  }
  if (!f.cxx11_abi && record.cxx11_abi) f.cxx11_abi = record.cxx11_abi;
  // A build's record names the exact torch it compiled against: its page.
  // Torch's CUDA build is not recorded apart from the wheel's CUDA, so the
  // page carries "+cuXY" only for a wheel that uses CUDA; a CPU build of a
  // CPU-only extension goes on the plain version's page.
  if (!built || !record.torch || !torch) return;
  std::string version = record.torch->str();
  if (f.uses_cuda && cuda)
    version += "+cu" + std::to_string(cuda_major) + std::to_string(cuda_minor);
  auto key = parse_env_key(version, record.cxx11_abi);
  if (!key || contradiction(f, *key)) return;
  for (const auto& k : f.for_torch)
    if (k == *key) return;
  f.for_torch.push_back(*key);
}

util::Result<std::vector<PublishCandidate>> cache_candidates(
    const std::filesystem::path& cache_root, std::string_view spec,
    const std::filesystem::path& temp_dir, const std::function<void(std::string_view)>& progress) {
  auto cache = store::WheelCache::open(cache_root);
  if (!cache) return tl::unexpected(cache.error());
  std::vector<std::string> warnings;
  std::vector<store::CacheEntry> entries;
  for (auto& entry : cache->list(&warnings)) {
    if (cache_entry_matches(entry, spec)) entries.push_back(std::move(entry));
  }
  std::vector<std::filesystem::path> paths;
  paths.reserve(entries.size());
  for (const auto& entry : entries) paths.push_back(entry.path);
  // On several threads, as named inputs are: the entries are independent.
  std::vector<PublishCandidate> candidates =
      inspect_all_for_publish(paths, temp_dir, progress, " (cache)");
  for (std::size_t i = 0; i < entries.size(); ++i) apply_cache_entry(entries[i], candidates[i]);
  if (progress)
    for (const auto& w : warnings) progress(fmt::format("warning: {}", w));
  if (candidates.empty()) {
    return util::fail(util::ErrorKind::input,
                      spec.empty() ? "the cache holds no wheels"
                                   : fmt::format("no wheel in the cache matches '{}'", spec),
                      cache_root.string(), "flashfit cache list shows what is there");
  }
  return candidates;
}

}  // namespace flashfit::workflow
