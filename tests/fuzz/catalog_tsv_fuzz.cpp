// Catalog TSVs, both the built-in kind (data/*.tsv) and the refreshed cache
// file: only usable rows are kept, once per URL, and a catalog written as a
// cache file parses back to the same entries.
#include <set>

#include "fuzz_common.hpp"
#include "resolve/catalog.hpp"
#include "resolve/catalog_cache.hpp"

namespace {
using namespace flashfit::resolve;

RecipeSource upstream() {
  RecipeSource source;
  source.name = "upstream";
  source.repository = "Dao-AILab/flash-attention";
  source.url_template = "https://github.com/{repository}/releases/download/{tag}/{filename}";
  source.api_url = "{api}/repos/{repository}/releases";
  return source;
}

void check_catalog(const Catalog& catalog) {
  std::set<std::string> urls;
  for (const CatalogEntry& entry : catalog.entries) {
    FUZZ_CHECK(urls.insert(entry.url).second, "URL twice: " + entry.url);
    FUZZ_CHECK(!filename_problem(entry.filename), "kept a bad file name: " + entry.filename);
    FUZZ_CHECK(!url_problem(entry.url), "kept a bad URL: " + entry.url);
  }
}

void check_round_trip(Catalog catalog) {
  // A cache file is only ever written with wheels in it (an update that lists
  // none keeps the previous file), and one without entries is refused on read.
  if (catalog.entries.empty()) return;
  catalog.updated_at = "2026-01-31T12:00:00Z";
  const std::string file = format_catalog_cache(catalog);
  auto back = parse_catalog_cache(file, catalog.recipe, catalog.source, "again");
  FUZZ_CHECK(back.has_value(), "own cache file refused: " + (back ? "" : back.error().message));
  FUZZ_CHECK(back->entries.size() == catalog.entries.size(), "entries lost");
  for (std::size_t i = 0; i < catalog.entries.size(); ++i) {
    const auto& a = catalog.entries[i];
    const auto& b = back->entries[i];
    FUZZ_CHECK(a.url == b.url && a.filename == b.filename && a.tag == b.tag &&
                   a.evidence == b.evidence && a.sha256 == b.sha256,
               "entry changed: " + a.url);
  }
  FUZZ_CHECK(format_catalog_cache(*back) == file, "cache file not stable");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const RecipeSource source = upstream();
  const auto text = flashfit::fuzz::as_text(data, size);
  if (auto tsv = parse_catalog_tsv(text, "flash-attn", source, "fuzz")) {
    check_catalog(*tsv);
    check_round_trip(*tsv);
  }
  if (auto cached = parse_catalog_cache(text, "flash-attn", "upstream", "fuzz")) {
    check_catalog(*cached);
    check_round_trip(*cached);
  }
  return 0;
}
