#pragma once
// The catalog: every known released wheel of a recipe's GitHub-release
// sources (upstream, community). Built into the binary from data/*.tsv; a
// `flashfit catalog update` writes a refreshed copy into the cache dir, which
// then takes precedence. Candidates are keyed by URL: one file name can hang
// under several releases.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/wheel_name.hpp"
#include "resolve/candidate.hpp"
#include "resolve/recipe.hpp"
#include "util/error.hpp"

namespace flashfit::resolve {

struct CatalogEntry {
  std::string url;       // unique within a catalog
  std::string filename;  // percent-decoded basename ("+" not "%2B")
  std::string tag;  // the release it hangs under ("v2.8.3"); may differ from the file's version
  std::string evidence;  // how it is known: "release-api-listing", "workflow-matrix", ...
  std::optional<std::string> sha256;  // lower-case hex, when the listing gave one
};

struct Catalog {
  std::string recipe;  // "flash-attn"
  std::string source;  // "upstream"
  std::vector<CatalogEntry> entries;
  std::string origin;                     // "built-in" or the cache file's path
  std::optional<std::string> updated_at;  // ISO 8601 UTC of a refresh
};

// Parses a built-in catalog TSV: either `tag filename evidence` rows (URLs
// from the source's url_template) or `url` rows (the tag is the URL's
// release directory). Rows are de-duplicated by URL.
util::Result<Catalog> parse_catalog_tsv(std::string_view tsv, const std::string& recipe,
                                        const RecipeSource& source, std::string origin);

struct CompiledCatalog;

// One row of an opened catalog, viewed in place.
struct CatalogRow {
  std::string_view url;
  std::string_view filename;
  std::string_view tag;
  std::string_view evidence;
  std::optional<std::string_view> sha256;
  // Where its file name's parts lie, when the binary was built with it (a
  // compiled catalog's row); the judge then reads the name without parsing it.
  std::optional<pkg::WheelNameLayout> name_layout;
  // Its URL's rank among the catalog's (a compiled catalog's row).
  std::optional<CatalogUrlRank> url_rank;
};

// A catalog ready to read: the table compiled into the binary at build time
// (resolve/compiled_catalog.hpp) when the built-in file applies to the source
// unchanged, else entries parsed at run time (a refreshed copy in the cache, a
// user recipe's source with another URL template).
struct OpenedCatalog {
  Catalog catalog;  // recipe, source, origin, updated_at; entries only when parsed
  const CompiledCatalog* compiled = nullptr;

  std::size_t size() const;
  CatalogRow row(std::size_t i) const;
};

// The cache's refreshed catalog when there is a valid one, else the built-in
// one. A corrupt cache file is ignored with a warning (returned in `warnings`).
util::Result<OpenedCatalog> open_catalog(const Recipe& recipe, const RecipeSource& source,
                                         const std::optional<std::filesystem::path>& cache_root,
                                         std::vector<std::string>& warnings);

// open_catalog with the rows as entries.
util::Result<Catalog> load_catalog(const Recipe& recipe, const RecipeSource& source,
                                   const std::optional<std::filesystem::path>& cache_root,
                                   std::vector<std::string>& warnings);

struct CatalogUpdateOptions {
  std::string api_base = "https://api.github.com";  // $FLASHFIT_GITHUB_API or --api-url
  std::optional<std::string> token;                 // $GITHUB_TOKEN: a higher rate limit
  std::size_t max_pages = 50;                       // 100 releases per page
  std::function<void(std::string_view)> progress;   // one line per page fetched
};

struct CatalogUpdateResult {
  Catalog catalog;
  std::size_t releases = 0;
  std::size_t assets = 0;  // every asset listed
  std::size_t wheels = 0;  // kept: .whl files
  std::filesystem::path written;
};

// Fetches every page of the source's releases API and writes the refreshed
// catalog atomically under the cache dir. Anything wrong (unreachable, HTTP
// error, garbage JSON, no wheels at all) is an error and leaves the previous
// catalog in place.
util::Result<CatalogUpdateResult> update_catalog(const Recipe& recipe, const RecipeSource& source,
                                                 const std::filesystem::path& cache_root,
                                                 const CatalogUpdateOptions& options);

}  // namespace flashfit::resolve
