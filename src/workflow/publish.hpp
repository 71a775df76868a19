#pragma once
// `flashfit publish` as a flow (docs/publish.md): inspect every input, then
// under the target's lock read what is there, plan (publish_plan.hpp), and
// carry the plan out: wheels, their metadata and variant records first, pages
// last, each put atomic. `list_published` reads a tree back.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/wheel_cache.hpp"
#include "util/error.hpp"
#include "workflow/publish_target.hpp"
#include "workflow/publish_types.hpp"

namespace flashfit::workflow {

struct PublishRequest {
  std::string target;                         // directory, file:///path, s3://BUCKET/PREFIX
  std::optional<std::string> endpoint_url;    // s3:// only: --endpoint-url
  std::vector<std::filesystem::path> inputs;  // wheels, or directories of wheels
  // --from-cache [SPEC]: also the cache's wheels ("" = all), from `cache_root`.
  std::optional<std::string> from_cache;
  std::filesystem::path cache_root;
  PublishOptions options;
  bool dry_run = false;                            // plan only
  std::filesystem::path temp_dir;                  // for inspection (modules are extracted)
  std::function<void(std::string_view)> progress;  // one line per step; may be empty
};

struct PublishReport {
  std::string target;
  bool dry_run = false;
  PublishPlan plan;  // plan.problems: records of the target that cannot be read
};

// Errors: bad inputs (no wheel found), an unusable target, a failed write
// (the pages are then not rewritten, so every page still resolves).
util::Result<PublishReport> publish(const PublishRequest& request);
// The same over an already open target (tests use it with fakes).
util::Result<PublishReport> publish_to(PublishTarget& target,
                                       const std::vector<PublishCandidate>& candidates,
                                       const PublishOptions& options, bool dry_run,
                                       const std::function<void(std::string_view)>& progress);

// `flashfit build --publish TARGET`: the wheel a build just put in the cache,
// its entry (the build's record) as its variant facts, published like
// --from-cache does. A refused wheel is a report with a refusal, not an error.
util::Result<PublishReport> publish_built(const store::CacheEntry& built, const std::string& target,
                                          const std::filesystem::path& temp_dir,
                                          const std::function<void(std::string_view)>& progress);

// What a target holds: every variant record, and the env pages rebuilt from them.
struct PublishedTree {
  std::string target;
  std::vector<PublishedWheel> wheels;
  std::vector<EnvPage> env_pages;
  std::vector<std::string> problems;  // records that could not be read
  TargetState state;                  // root files, and the wheels of those records
};
// A target with no simple/index.html and no records is an error (exit 1).
util::Result<PublishedTree> list_published(
    std::string_view target, const std::optional<std::string>& endpoint_url = std::nullopt);
util::Result<PublishedTree> read_tree(PublishTarget& target);

}  // namespace flashfit::workflow
