#pragma once
// `flashfit publish`, decided: which inputs are uploaded, which are already
// there, which are refused and why, and every page of the resulting tree.
// Pure: the executor (publish.cpp) carries the plan out over a PublishTarget.

#include <vector>

#include "workflow/publish_types.hpp"

namespace flashfit::workflow {

// `inputs`: the inspected wheels of this run; `existing`: what the target
// holds now (its variant records). Pages list the union of both, so two
// publishers that each plan under the target's lock converge.
PublishPlan plan_publish(const std::vector<PublishCandidate>& inputs,
                         const std::vector<PublishedWheel>& existing,
                         const PublishOptions& options);

// The pages for a tree (what plan_publish ends with; also `publish --list`).
void plan_pages(const std::vector<PublishedWheel>& tree, PublishPlan& plan);

}  // namespace flashfit::workflow
