#include "workflow/publish_cache.hpp"

#include <fmt/core.h>

#include <charconv>
#include <string>

#include "pkg/name.hpp"
#include "workflow/publish_fit.hpp"
#include "workflow/publish_inspect.hpp"

namespace flashfit::workflow {
namespace {

// "2.9" / "2.9.1" -> (2, 9); "12.8" -> (12, 8); nullopt when not numbers.
std::optional<std::pair<int, int>> major_minor(std::string_view text) {
  int major = 0, minor = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, major);
  if (ec != std::errc() || p == end || *p != '.') return std::nullopt;
  auto [q, ec2] = std::from_chars(p + 1, end, minor);
  if (ec2 != std::errc()) return std::nullopt;
  return std::make_pair(major, minor);
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
  f.source = entry.source == "build" ? "build" : "cache";
  if (candidate.refusal) return;
  const auto torch = entry.torch ? major_minor(*entry.torch) : std::nullopt;
  if (!f.torch_major && torch) {
    f.torch_major = torch->first;
    f.torch_minor = torch->second;
  }
  const auto cuda = entry.cuda ? major_minor(*entry.cuda) : std::nullopt;
  const int cuda_major = cuda ? cuda->first : 0, cuda_minor = cuda ? cuda->second : 0;
  if (!f.cuda_major && cuda && f.uses_cuda) {  // the torch's CUDA; the wheel's only if it uses CUDA
    f.cuda_major = cuda->first;
    f.cuda_minor = cuda->second;
  }
  if (!f.cxx11_abi && entry.cxx11_abi) f.cxx11_abi = entry.cxx11_abi;
  // A build's record names the exact torch it compiled against: its page.
  // Torch's CUDA build is not recorded apart from the wheel's CUDA, so the
  // page carries "+cuXY" only for a wheel that uses CUDA; a CPU build of a
  // CPU-only extension goes on the plain version's page.
  if (entry.source != "build" || !entry.torch || !torch) return;
  std::string version = *entry.torch;
  if (f.uses_cuda && cuda)
    version += "+cu" + std::to_string(cuda_major) + std::to_string(cuda_minor);
  auto key = parse_env_key(version, entry.cxx11_abi);
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
  std::vector<PublishCandidate> candidates;
  for (const auto& entry : cache->list(&warnings)) {
    if (!cache_entry_matches(entry, spec)) continue;
    if (progress) progress(fmt::format("inspecting {} (cache)", entry.filename));
    PublishCandidate c = inspect_for_publish(entry.path, temp_dir);
    apply_cache_entry(entry, c);
    candidates.push_back(std::move(c));
  }
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
