#pragma once
// Which setting of the user's config file changed resolve's answer: for each
// setting that shapes the sources ([[index]], [sources] enable / disable /
// priority), the same candidates are judged again as if that one setting
// were absent (its index's wheels dropped, the sources' enabled flags and
// priorities planned again); a setting whose absence changes the pick or the
// set of fitting wheels is named with what it changed. Pure: no source is
// fetched again (an index the config disabled was never consulted, so
// turning it on cannot be judged and is not claimed).
#include <optional>
#include <string>
#include <vector>

#include "resolve/config.hpp"
#include "resolve/gather.hpp"
#include "resolve/resolver.hpp"

namespace flashfit::resolve {

struct ConfigEffect {
  std::string file;     // the config file
  std::string setting;  // "[[index]] name = \"wheelhouse\"", "[sources] enable = \"community\""
  std::string effect;   // "it changed the pick: without it X would be selected"
};

std::vector<ConfigEffect> config_effects(const Request& request, const Recipe* recipe,
                                         const ResolveTarget& target, const Config& config,
                                         const SourceFlags& flags,
                                         const std::optional<std::filesystem::path>& cache_root,
                                         const std::vector<Candidate>& gathered);

}  // namespace flashfit::resolve
