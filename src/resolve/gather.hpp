#pragma once
// Sources and candidate gathering: which sources exist for a package (the
// recipe's catalogs, configured and command-line indexes, find-links, the
// local cache), which are enabled and in what priority, and every wheel they
// offer. Network failures of one source are warnings: the others still count.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "resolve/candidate.hpp"
#include "resolve/config.hpp"
#include "resolve/recipe.hpp"
#include "util/error.hpp"

namespace flashfit::resolve {

// pip-like flags, applied over the config.
struct SourceFlags {
  std::optional<std::string> index_url;       // replaces the configured indexes
  std::vector<std::string> extra_index_urls;  // added after them
  std::vector<std::string> find_links;        // URLs or local directories
  std::vector<std::string> enable;            // --source NAME
  std::vector<std::string> disable;           // --no-source NAME
  bool offline = false;  // --offline: no index, find-links URL or URL check is contacted
  // A requirements file's --no-index, read as pip reads it: no index is
  // consulted, and neither are the release catalogs (their wheels are on the
  // network too); the cache and find-links are.
  bool no_index = false;
};

struct SourcePlan {
  std::string name;
  SourceRole role = SourceRole::upstream;
  std::string location;  // URL, directory, or the catalog's origin
  bool enabled = true;
  int priority = 0;       // lower is preferred
  bool offline = false;   // a network source under --offline: not consulted
  bool no_index = false;  // an index or release catalog under --no-index: not consulted
};

struct SourceReport {
  SourcePlan plan;
  std::size_t wheels = 0;  // wheels of the package it offered
  std::string status;      // "ok", "not found", "unreachable: ...", "not consulted (disabled)"
};

struct Gathered {
  std::vector<Candidate> candidates;
  std::vector<SourceReport> sources;
  std::vector<std::string> warnings;
};

// The sources for a package, enabled and ordered. Unknown names in
// --source/--no-source or the config's lists are usage errors with a
// did-you-mean.
util::Result<std::vector<SourcePlan>> plan_sources(
    const Recipe* recipe, const Config& config, const SourceFlags& flags,
    const std::optional<std::filesystem::path>& cache_root);

// Every wheel each source offers for `package` (canonical name). Catalog
// sources that are disabled still contribute, marked, so suggestions can say
// "enable community"; disabled indexes are not contacted.
Gathered gather(const std::string& package, const Recipe* recipe,
                const std::vector<SourcePlan>& plan,
                const std::optional<std::filesystem::path>& cache_root);

// The local cache's wheel directory (until the store lands: a plain directory).
std::filesystem::path cache_wheel_dir(const std::filesystem::path& cache_root);

}  // namespace flashfit::resolve
