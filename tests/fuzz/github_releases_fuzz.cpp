// One page of the GitHub releases API: garbage is an error, never a throw;
// what is kept is a usable .whl asset, once per URL, and survives the
// refreshed catalog's cache file (format, then parse) unchanged.
#include <nlohmann/json.hpp>

#include "fuzz_common.hpp"
#include "resolve/catalog_cache.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::resolve;
  const auto text = flashfit::fuzz::as_text(data, size);
  // As update_catalog parses a page: no exceptions, a non-array is refused.
  const auto page = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (page.is_discarded() || !page.is_array()) return 0;
  ReleaseListing listing;
  if (!collect_releases_page(page, listing)) return 0;
  FUZZ_CHECK(listing.entries.size() == listing.urls.size(), "URLs not de-duplicated");
  FUZZ_CHECK(listing.entries.size() <= listing.assets, "more wheels than assets");
  for (const CatalogEntry& entry : listing.entries) {
    FUZZ_CHECK(!filename_problem(entry.filename), "kept a bad file name: " + entry.filename);
    FUZZ_CHECK(!url_problem(entry.url), "kept a bad URL: " + entry.url);
    FUZZ_CHECK(!tag_problem(entry.tag), "kept a bad tag: " + entry.tag);
  }
  if (listing.entries.empty()) return 0;
  Catalog catalog;
  catalog.recipe = "flash-attn";
  catalog.source = "upstream";
  catalog.updated_at = "2026-01-31T12:00:00Z";
  catalog.entries = listing.entries;
  const std::string file = format_catalog_cache(catalog);
  auto back = parse_catalog_cache(file, "flash-attn", "upstream", "fuzz");
  FUZZ_CHECK(back.has_value(),
             "the cache file does not parse: " + (back ? "" : back.error().message));
  FUZZ_CHECK(back->entries.size() == catalog.entries.size(), "entries lost in the cache file");
  for (std::size_t i = 0; i < catalog.entries.size(); ++i) {
    const auto& a = catalog.entries[i];
    const auto& b = back->entries[i];
    FUZZ_CHECK(a.url == b.url && a.filename == b.filename && a.tag == b.tag &&
                   a.evidence == b.evidence && a.sha256 == b.sha256,
               "entry changed in the cache file: " + a.url);
  }
  return 0;
}
