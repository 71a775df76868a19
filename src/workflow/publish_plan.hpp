#pragma once
// `flashfit publish`, decided: which inputs are uploaded, which are already
// there, which are refused and why, and every page of the resulting tree.
// Pure: the executor (publish.cpp) carries the plan out over a PublishTarget.

#include <string>
#include <string_view>
#include <vector>

#include "workflow/publish_types.hpp"

namespace flashfit::workflow {

// `inputs`: the inspected wheels of this run; `existing`: what the target
// holds now (its variant records). Pages list the union of both, so two
// publishers that each plan under the target's lock converge. `state`: the
// files at the target's root (its env pages among them) and the wheels whose
// records cannot be read (their names are taken unless --replace).
PublishPlan plan_publish(const std::vector<PublishCandidate>& inputs,
                         const std::vector<PublishedWheel>& existing, const PublishOptions& options,
                         const TargetState& state = {});

// The pages for a tree (what plan_publish ends with; also `publish --list`).
// An env page in `root_files` ("torch-*.html") that no wheel names any more is
// written empty: left as it was it would name replaced bytes by their old
// sha256, and pip would fail its hash check.
void plan_pages(const std::vector<PublishedWheel>& tree, PublishPlan& plan,
                const std::vector<std::string>& root_files = {});

// Whether two versions are the same PEP 440 version ("1.0" and "1.0.0" are;
// pip compares them so); text that does not parse compares as text.
bool same_version(std::string_view a, std::string_view b);

// Whether a file at the root is an env page flashfit writes ("torch-*.html").
bool is_env_page_name(std::string_view name);

}  // namespace flashfit::workflow
