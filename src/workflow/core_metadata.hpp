#pragma once
// PEP 658 / 714: an index that serves a wheel's METADATA beside it
// ("<url>.metadata", as `flashfit publish` writes) lets `lock` read a pick's
// dependencies from a few kilobytes instead of the whole wheel (hundreds of
// megabytes for a flash-attn build).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binary/wheel.hpp"
#include "resolve/candidate.hpp"
#include "util/error.hpp"

namespace flashfit::workflow {

// The Requires-Dist of METADATA text served for `pick`, after checking it is
// that wheel's: the sha256 the index page gave for it (when it gave one), and
// its Name and Version against the file name's (a local label only in the
// file name is upstream's habit and allowed). Pure.
util::Result<std::vector<std::string>> served_requires_dist(const resolve::Candidate& pick,
                                                            std::string_view metadata);

// The Requires-Dist of METADATA `fields` read for `pick` (`what`: "the
// index's METADATA", "the METADATA in its last bytes"), after checking its
// Name and Version are the file name's, as above. Pure.
util::Result<std::vector<std::string>> requires_dist_of_pick(const resolve::Candidate& pick,
                                                             binary::WheelMetadata fields,
                                                             std::string_view what,
                                                             const std::string& where);

// GETs "<url>.metadata" for a pick whose index offers it and checks it
// (above). nullopt: not offered, or not there after all (a status other than
// 200): the caller reads the wheel. A transport failure is an error.
util::Result<std::optional<std::vector<std::string>>> fetch_core_metadata(
    const resolve::Candidate& pick);

}  // namespace flashfit::workflow
