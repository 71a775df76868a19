#pragma once
// Internal to the catalog (catalog.cpp, catalog_cache.cpp, catalog_github.cpp):
// the refreshed catalog's file in the cache dir, and the checks every source
// of entries shares.
//
// The cache file is flashfit's own TSV:
//   #flashfit-catalog 1<TAB>recipe=flash-attn<TAB>source=upstream<TAB>updated=2026-01-31T12:00:00Z
//   url<TAB>tag<TAB>filename<TAB>evidence<TAB>sha256
//   https://...whl<TAB>v2.8.3<TAB>flash_attn-2.8.3+...whl<TAB>release-api-listing<TAB><hex or
//   empty>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "resolve/catalog.hpp"
#include "util/error.hpp"

namespace flashfit::resolve {

inline constexpr int kCatalogCacheVersion = 1;
inline constexpr std::size_t kMaxCatalogFileSize = std::size_t{64} << 20;

// <cache_root>/catalogs/<recipe>/<source>.tsv; names that could leave that
// directory ("..", "a/b", empty) are input errors.
util::Result<std::filesystem::path> catalog_cache_path(const std::filesystem::path& cache_root,
                                                       std::string_view recipe,
                                                       std::string_view source);

// The file's text; `catalog.updated_at` must be set.
std::string format_catalog_cache(const Catalog& catalog);

// Parses and checks a cache file written for this recipe and source.
util::Result<Catalog> parse_catalog_cache(std::string_view text, const std::string& recipe,
                                          const std::string& source, std::string origin);

// What the pages of a GitHub-releases API listing gave so far.
struct ReleaseListing {
  std::vector<CatalogEntry> entries;  // .whl assets, de-duplicated by URL
  std::unordered_set<std::string> urls;
  std::size_t releases = 0;
  std::size_t assets = 0;  // every asset listed
};

// One parsed page (a JSON array of releases) into `out`; the error names the
// release and asset. Pure: the fuzz harness github_releases drives it.
util::Result<void> collect_releases_page(const nlohmann::json& page, ReleaseListing& out);

// Why a (decoded) wheel file name cannot be used, or nullopt when it can:
// ASCII, printable, no '/', ends in ".whl".
std::optional<std::string> filename_problem(std::string_view filename);
// Why a tag cannot be used (empty, control characters, '/'), or nullopt.
std::optional<std::string> tag_problem(std::string_view tag);
// Why a download URL cannot be used (not http(s), whitespace, control characters), or nullopt.
std::optional<std::string> url_problem(std::string_view url);

// Percent-encodes everything but RFC 3986's unreserved characters, as GitHub
// writes asset names in download URLs ("+" -> "%2B").
std::string encode_path_segment(std::string_view text);

// `pattern` with every "{name}" of `values` replaced; unknown ones stay.
std::string substitute(std::string_view pattern,
                       const std::vector<std::pair<std::string_view, std::string_view>>& values);

}  // namespace flashfit::resolve
