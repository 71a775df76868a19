#pragma once
// `flashfit publish --from-cache [SPEC]`: the wheels in flashfit's cache as
// publish candidates, each one's cache entry (a build's own record of the
// torch, CUDA and ABI it was built against) laid over what inspection read.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/wheel_cache.hpp"
#include "util/error.hpp"
#include "workflow/publish_types.hpp"

namespace flashfit::workflow {

// Pure: "flash-attn" or "flash-attn==2.8.3" (names compared PEP 503-normalised;
// empty SPEC: every entry).
bool cache_entry_matches(const store::CacheEntry& entry, std::string_view spec);

// Pure: the entry's variant facts where the wheel's own bytes and name said
// nothing (its symbols and libraries still win: a record never overrides
// them), the source, and for a built wheel whose record names the torch it was
// built against, that torch's page (unless the bytes contradict it).
void apply_cache_entry(const store::CacheEntry& entry, PublishCandidate& candidate);

// The cache's matching wheels, inspected. Errors: no cache, nothing matches.
util::Result<std::vector<PublishCandidate>> cache_candidates(
    const std::filesystem::path& cache_root, std::string_view spec,
    const std::filesystem::path& temp_dir, const std::function<void(std::string_view)>& progress);

}  // namespace flashfit::workflow
