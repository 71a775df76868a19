#include "resolve/compiled_catalog.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include "../temp_dir.hpp"
#include "resolve/embedded.hpp"

namespace flashfit::resolve {
namespace {

using ::testing::HasSubstr;

std::string read_data(const std::string& name) {
  return test::read(std::filesystem::path(FLASHFIT_DATA_DIR) / name);
}

void expect_rows_equal(const CompiledCatalog& compiled, const Catalog& parsed) {
  ASSERT_EQ(compiled.rows.size(), parsed.entries.size()) << compiled.file;
  for (std::size_t i = 0; i < parsed.entries.size(); ++i) {
    const CatalogRow row = compiled.row(i);
    const CatalogEntry& entry = parsed.entries[i];
    SCOPED_TRACE(::testing::Message() << compiled.file << " row " << i << ": " << entry.url);
    EXPECT_EQ(row.url, entry.url);
    EXPECT_EQ(row.filename, entry.filename);
    EXPECT_EQ(row.tag, entry.tag);
    EXPECT_EQ(row.evidence, entry.evidence);
    EXPECT_EQ(row.sha256, entry.sha256);
  }
}

std::string described(const util::Result<pkg::WheelName>& wheel) {
  if (!wheel) return "error: " + wheel.error().message;
  std::string out = wheel->name + " " + wheel->canonical_name + " " + wheel->version.str() + " " +
                    wheel->version.local();
  if (wheel->build) out += " build " + wheel->build->first + wheel->build->second;
  for (const pkg::Tag& tag : wheel->tags) out += " " + tag.str();
  return out;
}

// The rows' URL ranks order them as their URLs compare as strings (what the
// resolver's tie-break would otherwise read), each rank once.
void expect_url_ranks_order_urls(const CompiledCatalog& compiled) {
  std::vector<std::pair<std::uint32_t, std::string_view>> ranked;
  for (std::size_t i = 0; i < compiled.rows.size(); ++i) {
    const CatalogRow row = compiled.row(i);
    ASSERT_TRUE(row.url_rank);
    EXPECT_EQ(row.url_rank->catalog, &compiled);
    ranked.emplace_back(row.url_rank->rank, row.url);
  }
  std::sort(ranked.begin(), ranked.end());
  for (std::size_t k = 0; k < ranked.size(); ++k) {
    EXPECT_EQ(ranked[k].first, k) << compiled.file << ": " << ranked[k].second;
    if (k > 0) {
      EXPECT_LT(ranked[k - 1].second, ranked[k].second) << compiled.file;
    }
  }
}

// Every row's file name read by its layout is the name's parse, with the ids a
// parser reading the names as text gives (both in row order); the rows without
// a layout are the names that do not parse or have a build tag.
void expect_layouts_read_as_parsed(const CompiledCatalog& compiled) {
  pkg::WheelNameParser laid, text;
  std::size_t laid_out = 0;
  for (std::size_t i = 0; i < compiled.rows.size(); ++i) {
    const CatalogRow row = compiled.row(i);
    SCOPED_TRACE(::testing::Message() << compiled.file << " row " << i << ": " << row.filename);
    const auto parsed = pkg::parse_wheel_filename(row.filename);
    pkg::WheelNameParser::PartIds text_ids, laid_ids;
    const auto as_text = text.parse(row.filename, &text_ids);
    if (!row.name_layout) {
      EXPECT_TRUE(!parsed || parsed->build);
      continue;
    }
    ++laid_out;
    EXPECT_EQ(row.name_layout->table, &compiled);
    const auto as_laid = laid.parse(row.filename, *row.name_layout, &laid_ids);
    ASSERT_TRUE(parsed);
    EXPECT_EQ(described(as_laid), described(parsed));
    EXPECT_EQ(described(as_text), described(parsed));
    EXPECT_EQ(laid_ids.version, text_ids.version);
    EXPECT_EQ(laid_ids.tag_set, text_ids.tag_set);
  }
  EXPECT_GT(laid_out, compiled.rows.size() * 9 / 10) << compiled.file;
}

// The requirement: the compiled catalogs are the runtime parse of data/'s
// files (read here from the source tree, so a table older than its file fails),
// for every source of every built-in recipe, row by row.
TEST(CompiledCatalog, EveryBuiltInSourceIsTheRuntimeParseRowByRow) {
  const RecipeBook book = RecipeBook::built_in();
  std::set<std::tuple<std::string, std::string, std::string>> sources;
  for (const Recipe& recipe : book.recipes()) {
    for (const RecipeSource& source : recipe.sources) {
      if (source.catalog.empty()) continue;
      SCOPED_TRACE(recipe.name + " " + source.name);
      sources.emplace(source.catalog, source.url_template, source.repository);
      const CompiledCatalog* compiled = find_compiled_catalog(source);
      ASSERT_NE(compiled, nullptr);
      auto parsed = parse_catalog_tsv(read_data(source.catalog), recipe.name, source, "built-in");
      ASSERT_TRUE(parsed) << parsed.error().message;
      ASSERT_GT(parsed->entries.size(), 100U);
      expect_rows_equal(*compiled, *parsed);
      expect_layouts_read_as_parsed(*compiled);
      expect_url_ranks_order_urls(*compiled);
    }
  }
  // No table for a catalog no built-in source reads.
  EXPECT_EQ(compiled_catalogs().size(), sources.size());
  EXPECT_GE(sources.size(), 4U);
}

TEST(CompiledCatalog, OpenCatalogReadsTheTableAndLoadCatalogGivesItsRows) {
  const RecipeBook book = RecipeBook::built_in();
  const Recipe* recipe = book.find("flash-attn");
  ASSERT_NE(recipe, nullptr);
  const RecipeSource* source = recipe->source("upstream");
  ASSERT_NE(source, nullptr);
  std::vector<std::string> warnings;
  auto opened = open_catalog(*recipe, *source, std::nullopt, warnings);
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->compiled, find_compiled_catalog(*source));
  EXPECT_TRUE(opened->catalog.entries.empty());
  EXPECT_EQ(opened->catalog.origin, "built-in");
  auto loaded = load_catalog(*recipe, *source, std::nullopt, warnings);
  ASSERT_TRUE(loaded);
  ASSERT_EQ(loaded->entries.size(), opened->size());
  expect_rows_equal(*opened->compiled, *loaded);
  const CatalogRow row = opened->row(0);
  EXPECT_EQ(row.url, loaded->entries[0].url);
  EXPECT_FALSE(row.sha256);
  EXPECT_TRUE(warnings.empty());
}

// A user recipe may name a built-in file under another URL template: its URLs
// are not the compiled ones, so the file is parsed at run time.
TEST(CompiledCatalog, ASourceWithAnotherTemplateOrRepositoryIsParsedAtRunTime) {
  const RecipeBook book = RecipeBook::built_in();
  Recipe recipe = *book.find("flash-attn");
  RecipeSource mirror = *recipe.source("upstream");
  mirror.url_template = "https://mirror.example/{tag}/{filename}";
  EXPECT_EQ(find_compiled_catalog(mirror), nullptr);
  std::vector<std::string> warnings;
  auto opened = open_catalog(recipe, mirror, std::nullopt, warnings);
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->compiled, nullptr);
  ASSERT_GT(opened->size(), 100U);
  EXPECT_THAT(std::string(opened->row(0).url), ::testing::StartsWith("https://mirror.example/"));

  RecipeSource fork = *recipe.source("upstream");
  fork.repository = "someone/flash-attention";
  EXPECT_EQ(find_compiled_catalog(fork), nullptr);
  RecipeSource none = fork;
  none.catalog.clear();
  EXPECT_EQ(find_compiled_catalog(none), nullptr);
}

TEST(CompiledCatalog, StringLiteralsEscapeWhatCouldEndOrExtendThem) {
  EXPECT_EQ(cpp_string_literal("plain-1.0+cu12.whl"), "\"plain-1.0+cu12.whl\"");
  EXPECT_EQ(cpp_string_literal("a\"b\\c?d"), "\"a\\042b\\134c\\077d\"");
  // Three-digit octal: a following digit is not part of the escape.
  EXPECT_EQ(cpp_string_literal(std::string("\x01") + "7"), "\"\\0017\"");
  EXPECT_EQ(cpp_string_literal("\xff\n"), "\"\\377\\012\"");
  EXPECT_EQ(cpp_string_literal(std::string("\0", 1)), "\"\\000\"");
  EXPECT_EQ(cpp_string_literal(""), "\"\"");
}

TEST(CompiledCatalog, RenderedTableHoldsEachDistinctStringOnceAndRowsAsOffsets) {
  RecipeSource source;
  source.catalog = "x.tsv";
  source.url_template = "https://h/{tag}/{filename}";
  source.repository = "o/r";
  Catalog two;
  two.entries.push_back({"https://h/v1/a-1.0-py3-none-any.whl", "a-1.0-py3-none-any.whl", "v1",
                         "release-api-listing", std::string(64, 'a')});
  two.entries.push_back({"https://h/v1/a-1.0-py2-none-any.whl", "a-1.0-py2-none-any.whl", "v1",
                         "release-api-listing", std::nullopt});
  Catalog empty;
  const std::string text = render_compiled_catalogs({{&source, &two}, {&source, &empty}});
  // url 0+35, filename 35+22, tag 57+2, evidence 59+19, sha256 78+64; the second
  // row's url and filename follow (142, 177), its tag and evidence are the first's,
  // and no sha256 is the empty string (after them, 0 long).
  EXPECT_THAT(text, HasSubstr("constexpr char text_0[] =\n    \"https://h/v1/a-1.0-py3-none-any.whl"
                              "a-1.0-py3-none-any.whlv1release-api-listing" +
                              std::string(64, 'a') +
                              "https://h/v1/a-1.0-py2-none-any.whla-1.0-py2-none-any.whl\";"));
  // Both names laid out: a 1-byte name, a 3-byte version ("1.0", number 0), tag sets 0 and 1.
  // The URLs ranked as strings: "...py2..." (rank 0) before "...py3..." (rank 1).
  EXPECT_THAT(text, HasSubstr("    {0, 35, 35, 22, 57, 2, 59, 19, 78, 64, 1, 1, 3, 0, 0},\n"
                              "    {142, 35, 177, 22, 57, 2, 59, 19, 199, 0, 0, 1, 3, 0, 1},\n};"));
  EXPECT_THAT(text, HasSubstr("{\"x.tsv\", \"https://h/{tag}/{filename}\", \"o/r\", "
                              "{text_0, sizeof(text_0) - 1}, {rows_0, 2}},"));
  // An empty catalog gets a placeholder row (an empty array is ill-formed), counted as none.
  EXPECT_THAT(text, HasSubstr("constexpr char text_1[] =\"\";"));
  EXPECT_THAT(text, HasSubstr("{rows_1, 0}},"));
  EXPECT_THAT(text, HasSubstr("return {table, 2};"));
}

// A name gets a layout when it parses as the runtime parses it and has no
// build tag; versions and tag sets are numbered by spelling, in row order.
TEST(CompiledCatalog, ANameIsLaidOutOnlyWhenItParsesWithoutABuildTag) {
  RecipeSource source;
  source.catalog = "x.tsv";
  Catalog rows;
  for (const char* name : {"ab-2.0-py3-none-any.whl", "ab-1.0-1-py3-none-any.whl", "ab-1.0.whl",
                           "a__b-1.0-py3-none-any.whl", "ab-1.0-cp311-cp311-linux_x86_64.whl",
                           "ab-2.0-cp311-cp311-linux_x86_64.whl", "ab-2.00-py3-none-any.whl"}) {
    rows.entries.push_back({std::string("https://h/") + name, name, "v", "e", std::nullopt});
  }
  const std::string text = render_compiled_catalogs({{&source, &rows}});
  std::vector<std::string> layouts;
  const std::string end = "},\n";
  for (std::size_t at = text.find("rows_0[] = {\n");
       (at = text.find("    {", at)) != std::string::npos;) {
    const std::size_t stop = text.find(end, at);
    const std::string row = text.substr(at + 5, stop - at - 5);
    std::size_t comma = row.size();
    for (int i = 0; i < 4; ++i) comma = row.rfind(", ", comma - 1);
    layouts.push_back(row.substr(comma + 2));
    at = stop;
    if (layouts.size() == rows.entries.size()) break;
  }
  EXPECT_THAT(layouts,
              ::testing::ElementsAre("2, 3, 0, 0", "0, 0, 0, 0", "0, 0, 0, 0", "0, 0, 0, 0",
                                     "2, 3, 1, 1", "2, 3, 0, 1", "2, 4, 2, 0"));
}

TEST(CompiledCatalog, ARowIsReadBackFromItsOffsets) {
  static constexpr char text[] = "https://h/v/a.whla.whlvlisting0123";
  static constexpr CompiledCatalogRow rows[] = {{0, 17, 17, 5, 22, 1, 23, 7, 30, 4, 9, 1, 2, 3, 4},
                                                {0, 17, 17, 5, 22, 1, 23, 7, 0, 0, 0, 0, 0, 0, 0}};
  const CompiledCatalog catalog{"x.tsv", "", "", {text, sizeof(text) - 1}, {rows, 2}};
  const CatalogRow row = catalog.row(0);
  EXPECT_EQ(row.url, "https://h/v/a.whl");
  EXPECT_EQ(row.filename, "a.whl");
  EXPECT_EQ(row.tag, "v");
  EXPECT_EQ(row.evidence, "listing");
  EXPECT_EQ(row.sha256, std::optional<std::string_view>("0123"));
  EXPECT_FALSE(catalog.row(1).sha256);
  const auto layout = row.name_layout;
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->table, &catalog);
  EXPECT_EQ(layout->name_size, 1);
  EXPECT_EQ(layout->version_size, 2);
  EXPECT_EQ(layout->version, 3);
  EXPECT_EQ(layout->tag_set, 4);
  EXPECT_FALSE(catalog.row(1).name_layout);  // name_size 0: none
  ASSERT_TRUE(row.url_rank);
  EXPECT_EQ(row.url_rank->catalog, &catalog);
  EXPECT_EQ(row.url_rank->rank, 9U);
}

}  // namespace
}  // namespace flashfit::resolve
