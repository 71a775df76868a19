#include "resolve/catalog.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "../http_server.hpp"
#include "../temp_dir.hpp"
#include "resolve/embedded.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

using ::testing::HasSubstr;

std::string read_data(const std::string& name) {
  return test::read(std::filesystem::path(FLASHFIT_DATA_DIR) / name);
}

void write(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

// Recipe values by hand: the recipe parser is tested on its own.
RecipeSource upstream() {
  RecipeSource source;
  source.name = "upstream";
  source.repository = "Dao-AILab/flash-attention";
  source.catalog = "flash-attn-official-wheels.tsv";
  source.url_template = "https://github.com/{repository}/releases/download/{tag}/{filename}";
  source.api_url = "{api}/repos/{repository}/releases";
  return source;
}

RecipeSource community() {
  RecipeSource source;
  source.name = "community";
  source.repository = "mjun0812/flash-attention-prebuild-wheels";
  source.catalog = "flash-attn-community-wheels.tsv";
  source.url_template = "https://github.com/{repository}/releases/download/{tag}/{filename}";
  source.api_url = "{api}/repos/{repository}/releases";
  source.enabled_by_default = false;
  source.third_party = true;
  return source;
}

Recipe flash_attn() {
  Recipe recipe;
  recipe.name = "flash-attn";
  recipe.sources = {upstream(), community()};
  recipe.origin = "built-in";
  return recipe;
}

// ---- built-in TSVs ---------------------------------------------------------

TEST(ParseCatalogTsv, OfficialCatalog) {
  auto catalog = parse_catalog_tsv(read_data("flash-attn-official-wheels.tsv"), "flash-attn",
                                   upstream(), "built-in");
  ASSERT_TRUE(catalog) << catalog.error().message;
  EXPECT_EQ(catalog->entries.size(), 2826u);
  EXPECT_EQ(catalog->recipe, "flash-attn");
  EXPECT_EQ(catalog->source, "upstream");
  EXPECT_EQ(catalog->origin, "built-in");
  EXPECT_FALSE(catalog->updated_at);
  const CatalogEntry& first = catalog->entries.front();
  EXPECT_EQ(first.tag, "v2.5.0");
  EXPECT_EQ(first.filename,
            "flash_attn-2.5.0+cu118torch1.12cxx11abiFALSE-cp37-cp37m-linux_x86_64.whl");
  EXPECT_EQ(first.url,
            "https://github.com/Dao-AILab/flash-attention/releases/download/v2.5.0/"
            "flash_attn-2.5.0%2Bcu118torch1.12cxx11abiFALSE-cp37-cp37m-linux_x86_64.whl");
  EXPECT_EQ(first.evidence, "workflow-matrix");
  EXPECT_FALSE(first.sha256);
  std::size_t api_listed = 0;
  for (const CatalogEntry& entry : catalog->entries)
    api_listed += entry.evidence == "release-api-listing";
  EXPECT_EQ(api_listed, 65u);
}

// The built-in catalog is data/flash-attn-official-wheels.tsv row for row (read
// here with a plain split, not the catalog parser), and that file is the
// corrected import: no guessed rows, v2.8.3's assets confirmed, aarch64 twins.
TEST(ParseCatalogTsv, BuiltInOfficialCatalogIsTheDataFileRowForRow) {
  const std::string text = read_data("flash-attn-official-wheels.tsv");
  auto catalog = parse_catalog_tsv(text, "flash-attn", upstream(), "built-in");
  ASSERT_TRUE(catalog) << catalog.error().message;
  std::vector<std::vector<std::string>> rows;
  for (std::string_view line : util::split(text, '\n')) {
    if (line.empty()) continue;
    std::vector<std::string> fields;
    for (std::string_view f : util::split(line, '\t')) fields.emplace_back(f);
    rows.push_back(std::move(fields));
  }
  ASSERT_EQ(rows.front(), (std::vector<std::string>{"tag", "filename", "evidence"}));
  rows.erase(rows.begin());
  ASSERT_EQ(catalog->entries.size(), rows.size());
  std::map<std::string, std::size_t> evidence;
  std::size_t aarch64 = 0, v283_confirmed = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CatalogEntry& e = catalog->entries[i];
    ASSERT_EQ(rows[i].size(), 3u) << i;
    EXPECT_EQ(e.tag, rows[i][0]) << i;
    EXPECT_EQ(e.filename, rows[i][1]) << i;
    EXPECT_EQ(e.evidence, rows[i][2]) << i;
    ++evidence[e.evidence];
    aarch64 += e.filename.find("linux_aarch64") != std::string::npos;
    v283_confirmed += e.tag == "v2.8.3" && e.evidence == "release-api-listing";
    // The guessed rows are gone: no 2.8.3.post1 wheel for torch 2.9, no torch 2.10 FALSE, no
    // torch 2.13.
    EXPECT_EQ(e.filename.find("2.8.3.post1+cu12torch2.9"), std::string::npos) << e.filename;
    EXPECT_EQ(e.filename.find("torch2.10cxx11abiFALSE"), std::string::npos) << e.filename;
    EXPECT_EQ(e.filename.find("torch2.13"), std::string::npos) << e.filename;
  }
  EXPECT_EQ(rows.size(), 2826u);
  EXPECT_EQ(evidence["release-api-listing"], 65u);
  EXPECT_EQ(evidence["workflow-matrix"], 2756u);
  EXPECT_EQ(evidence["several-third-party-references"], 3u);
  EXPECT_EQ(evidence["single-third-party-mention"], 2u);
  EXPECT_EQ(aarch64, 7u);
  EXPECT_EQ(v283_confirmed, 50u);
}

TEST(ParseCatalogTsv, CommunityCatalog) {
  auto catalog = parse_catalog_tsv(read_data("flash-attn-community-wheels.tsv"), "flash-attn",
                                   community(), "built-in");
  ASSERT_TRUE(catalog) << catalog.error().message;
  EXPECT_EQ(catalog->entries.size(), 3567u);
  const CatalogEntry& first = catalog->entries.front();
  EXPECT_EQ(first.url,
            "https://github.com/mjun0812/flash-attention-prebuild-wheels/releases/download/v0.0.0/"
            "flash_attn-2.4.3+cu118torch2.0-cp311-cp311-linux_x86_64.whl");
  EXPECT_EQ(first.tag, "v0.0.0");
  EXPECT_EQ(first.filename, "flash_attn-2.4.3+cu118torch2.0-cp311-cp311-linux_x86_64.whl");
  EXPECT_EQ(first.evidence, "community-listing");
}

TEST(ParseCatalogTsv, EmbeddedCopiesAreTheDataFiles) {
  for (const char* name : {"flash-attn-official-wheels.tsv", "flash-attn-community-wheels.tsv"}) {
    const EmbeddedFile* file = find_embedded(embedded_catalogs(), name);
    ASSERT_NE(file, nullptr) << name;
    EXPECT_EQ(file->text, read_data(name)) << name;
  }
}

TEST(ParseCatalogTsv, DecodesAndDeduplicates) {
  const std::string tsv =
      "tag\tfilename\tevidence\r\n"
      "v1\ta-1.0%2Bcu12-py3-none-any.whl\tworkflow-matrix\r\n"
      "\r\n"
      "v1\ta-1.0+cu12-py3-none-any.whl\trelease-api-listing\r\n"   // the same URL
      "v2\ta-1.0+cu12-py3-none-any.whl\trelease-api-listing\r\n";  // another release
  auto catalog = parse_catalog_tsv(tsv, "a", upstream(), "test");
  ASSERT_TRUE(catalog) << catalog.error().message;
  ASSERT_EQ(catalog->entries.size(), 2u);
  EXPECT_EQ(catalog->entries[0].filename, "a-1.0+cu12-py3-none-any.whl");
  EXPECT_EQ(catalog->entries[0].evidence, "workflow-matrix");
  EXPECT_EQ(catalog->entries[1].tag, "v2");

  auto urls = parse_catalog_tsv(
      "url\nhttps://h/r/download/v%201/a-1.0%2Bx-py3-none-any.whl\nhttps://h/r/download/v%201/"
      "a-1.0%2Bx-py3-none-any.whl\n",
      "a", community(), "test");
  ASSERT_TRUE(urls) << urls.error().message;
  ASSERT_EQ(urls->entries.size(), 1u);
  EXPECT_EQ(urls->entries[0].tag, "v 1");
  EXPECT_EQ(urls->entries[0].filename, "a-1.0+x-py3-none-any.whl");
  EXPECT_EQ(urls->entries[0].url, "https://h/r/download/v%201/a-1.0%2Bx-py3-none-any.whl");

  auto header_only = parse_catalog_tsv("url\n", "a", community(), "test");
  ASSERT_TRUE(header_only);
  EXPECT_TRUE(header_only->entries.empty());
}

TEST(ParseCatalogTsv, BadInputIsAnErrorNamingTheLine) {
  struct Case {
    std::string tsv;
    std::string expected;
  };
  const std::string header = "tag\tfilename\tevidence\n";
  const Case cases[] = {
      {"", "line 1: expected the header"},
      {"filename\ttag\n", "line 1: expected the header"},
      {"v1\ta.whl\tx\n", "line 1: expected the header"},
      {std::string("url\0", 4) + "\n", "line 1"},
      {header + "v1\ta-1-py3-none-any.whl\n", "line 2: expected 3 tab-separated fields, got 2"},
      {header + "v1\ta-1-py3-none-any.whl\tx\textra\n", "line 2: expected 3"},
      {header + "v1\ta-1-py3-none-any.whl\tx\nv1\ta-1.tar.gz\tx\n",
       "line 3: file name 'a-1.tar.gz' is not a wheel"},
      {header + "v1\t..%2F..%2Fetc%2Fx.whl\tx\n",
       "line 2: file name '../../etc/x.whl' has a path separator"},
      {header + "v1\ta%00b.whl\tx\n", "line 2: file name 'a\\x00b.whl' has control"},
      {header + "v1\t.whl\tx\n", "line 2: file name '.whl' is not a wheel"},
      {header + "\ta-1-py3-none-any.whl\tx\n", "line 2: empty tag"},
      {header + "v/1\ta-1-py3-none-any.whl\tx\n", "line 2: tag 'v/1'"},
      {header + "v1\ta-1-py3-none-any.whl\t\n", "line 2: bad evidence"},
      {header + "v1\ta-1-py3-none-any.whl\tsome words\n", "line 2: bad evidence"},
      {header + std::string("v1\ta-1-py3-none-any.whl\tx\0\n", 27), "line 2"},
      {"url\nftp://h/v1/a.whl\n", "line 2: 'ftp://h/v1/a.whl' is not an http(s) URL"},
      {"url\nhttps://h/a.whl\n", "line 2: 'https://h/a.whl' has no release directory"},
      {"url\nhttps://h\n", "line 2"},
      {"url\nhttps://h/v1/\n", "line 2"},
      {"url\nhttps://h/v1/a b.whl\n", "line 2: URL"},
      {"url\nhttps://h/v1/a.whl\textra\n", "line 2: expected 1 tab-separated field, got 2"},
      {"url\nhttps://h/v1/a.whl\nhttps://h/v1/\xff.whl\n", "line 3"},
  };
  for (const Case& c : cases) {
    auto catalog = parse_catalog_tsv(c.tsv, "a", upstream(), "test");
    ASSERT_FALSE(catalog) << util::printable(c.tsv);
    EXPECT_EQ(catalog.error().kind, util::ErrorKind::input);
    EXPECT_THAT(catalog.error().message, HasSubstr(c.expected)) << util::printable(c.tsv);
    EXPECT_THAT(catalog.error().context, HasSubstr("flash-attn-official-wheels.tsv (test)"));
  }
}

TEST(ParseCatalogTsv, ReleaseRowsNeedAUrlTemplate) {
  RecipeSource source = upstream();
  source.url_template = "https://h/fixed.whl";
  auto catalog = parse_catalog_tsv("tag\tfilename\tevidence\n", "a", source, "test");
  ASSERT_FALSE(catalog);
  EXPECT_THAT(catalog.error().message, HasSubstr("no url_template with {filename}"));
  // `url` rows do not use it.
  EXPECT_TRUE(parse_catalog_tsv("url\nhttps://h/v/a.whl\n", "a", source, "test"));
}

TEST(ParseCatalogTsv, HugeInputIsFine) {
  std::string tsv = "url\n";
  for (int i = 0; i < 50000; ++i)
    tsv += "https://h/v" + std::to_string(i) + "/a-1-py3-none-any.whl\n";
  tsv += "https://h/v/" + std::string(1 << 20, 'a') + ".whl\n";
  auto catalog = parse_catalog_tsv(tsv, "a", community(), "test");
  ASSERT_TRUE(catalog);
  EXPECT_EQ(catalog->entries.size(), 50001u);
}

// ---- load_catalog -----------------------------------------------------------

TEST(LoadCatalog, BuiltInWithoutACache) {
  std::vector<std::string> warnings;
  auto catalog = load_catalog(flash_attn(), upstream(), std::nullopt, warnings);
  ASSERT_TRUE(catalog) << catalog.error().message;
  EXPECT_EQ(catalog->entries.size(), 2826u);
  EXPECT_EQ(catalog->origin, "built-in");
  EXPECT_TRUE(warnings.empty());

  test::TempDir cache("catalog-cache");
  auto community_catalog = load_catalog(flash_attn(), community(), cache.path(), warnings);
  ASSERT_TRUE(community_catalog);
  EXPECT_EQ(community_catalog->entries.size(), 3567u);
  EXPECT_TRUE(warnings.empty());
}

TEST(LoadCatalog, EmptyAndUnknownBuiltIns) {
  std::vector<std::string> warnings;
  RecipeSource source = upstream();
  source.catalog.clear();
  auto empty = load_catalog(flash_attn(), source, std::nullopt, warnings);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->entries.empty());
  EXPECT_EQ(empty->source, "upstream");

  source.catalog = "no-such.tsv";
  auto unknown = load_catalog(flash_attn(), source, std::nullopt, warnings);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().kind, util::ErrorKind::input);
  EXPECT_THAT(unknown.error().message, HasSubstr("'no-such.tsv', which is not built in"));

  test::TempDir cache("catalog-cache");
  source.name = "../../escape";
  EXPECT_FALSE(load_catalog(flash_attn(), source, cache.path(), warnings));
}

// ---- update_catalog against a local server ----------------------------------

constexpr const char* kSha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

std::string release_page_1() {
  return std::string(R"([
    {"tag_name": "v2.8.3", "name": "ignored", "assets": [
      {"name": "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl",
       "browser_download_url": "https://github.com/o/r/releases/download/v2.8.3/flash_attn-2.8.3%2Bcu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl",
       "digest": "sha256:)") +
         "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef" + R"(", "size": 1},
      {"name": "flash_attn-2.8.3.tar.gz", "browser_download_url": "https://github.com/o/r/releases/download/v2.8.3/flash_attn-2.8.3.tar.gz"},
      {"name": "flash_attn-2.8.3+cu12torch2.7cxx11abiTRUE-cp312-cp312-linux_x86_64.whl",
       "browser_download_url": "https://github.com/o/r/releases/download/v2.8.3/flash_attn-2.8.3%2Bcu12torch2.7cxx11abiTRUE-cp312-cp312-linux_x86_64.whl",
       "digest": null}]},
    {"tag_name": "v2.8.2", "assets": []}
  ])";
}

std::string release_page_2() {
  return R"([
    {"tag_name": "v2.8.1", "assets": [
      {"name": "flash_attn-2.8.1+cu12torch2.7cxx11abiFALSE-cp311-cp311-linux_x86_64.whl",
       "browser_download_url": "https://github.com/o/r/releases/download/v2.8.1/flash_attn-2.8.1%2Bcu12torch2.7cxx11abiFALSE-cp311-cp311-linux_x86_64.whl",
       "digest": "sha512:abcd"},
      {"name": "flash_attn-2.8.3+cu12torch2.7cxx11abiTRUE-cp312-cp312-linux_x86_64.whl",
       "browser_download_url": "https://github.com/o/r/releases/download/v2.8.3/flash_attn-2.8.3%2Bcu12torch2.7cxx11abiTRUE-cp312-cp312-linux_x86_64.whl"}]}
  ])";
}

class UpdateCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write(root_.path() / "page1.json", release_page_1());
    write(root_.path() / "page2.json", release_page_2());
    write(root_.path() / "empty.json", "[]");
    source_ = upstream();
    source_.repository = "o/r";
  }

  // A server whose pages 1, 2, 3 are `bodies` (files under the root, or routes when they start with
  // '{').
  std::unique_ptr<test::HttpServer> serve(const std::vector<std::string>& pages) {
    std::string routes = "{";
    for (std::size_t i = 0; i < pages.size(); ++i) {
      const std::string behaviour =
          pages[i].front() == '{' ? pages[i] : R"({"body_file": ")" + pages[i] + R"("})";
      routes += (i ? "," : "") + std::string(R"("/repos/o/r/releases?per_page=100&page=)") +
                std::to_string(i + 1) + "\": " + behaviour;
    }
    return std::make_unique<test::HttpServer>(root_.path(), routes + "}");
  }

  util::Result<CatalogUpdateResult> update(const test::HttpServer& server,
                                           std::size_t max_pages = 50) {
    CatalogUpdateOptions options;
    options.api_base = server.url() + "/";
    options.max_pages = max_pages;
    options.progress = [this](std::string_view line) { progress_.emplace_back(line); };
    return update_catalog(flash_attn(), source_, cache_.path(), options);
  }

  std::filesystem::path cache_file() const {
    return cache_.path() / "catalogs" / "flash-attn" / "upstream.tsv";
  }

  test::TempDir root_{"catalog-pages"};
  test::TempDir cache_{"catalog-cache"};
  RecipeSource source_;
  std::vector<std::string> progress_;
};

TEST_F(UpdateCatalogTest, ReadsEveryPageAndWritesTheCache) {
  auto server = serve({"page1.json", "page2.json", "empty.json"});
  auto result = update(*server);
  ASSERT_TRUE(result) << util::render(result.error());
  EXPECT_EQ(result->releases, 3u);
  EXPECT_EQ(result->assets, 5u);
  EXPECT_EQ(result->wheels, 3u);
  EXPECT_EQ(result->written, cache_file());
  EXPECT_EQ(server->requests("/repos/o/r/releases?per_page=100&page=3"), 1);
  EXPECT_EQ(server->requests("/repos/o/r/releases?per_page=100&page=4"), 0);
  EXPECT_EQ(progress_.size(), 2u);
  EXPECT_TRUE(std::filesystem::exists(cache_.path() / "CACHEDIR.TAG"));

  const auto& entries = result->catalog.entries;
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].filename,
            "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl");
  EXPECT_EQ(entries[0].tag, "v2.8.3");
  EXPECT_EQ(entries[0].evidence, "release-api-listing");
  EXPECT_EQ(entries[0].sha256, std::optional<std::string>(kSha));
  EXPECT_FALSE(entries[1].sha256);
  EXPECT_EQ(entries[2].tag, "v2.8.1");
  EXPECT_FALSE(entries[2].sha256);  // sha512 digests are not kept

  // load_catalog now prefers the refreshed copy, digests and all.
  std::vector<std::string> warnings;
  auto loaded = load_catalog(flash_attn(), source_, cache_.path(), warnings);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(loaded->origin, cache_file().string());
  EXPECT_EQ(loaded->updated_at, result->catalog.updated_at);
  ASSERT_EQ(loaded->entries.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(loaded->entries[i].url, entries[i].url);
    EXPECT_EQ(loaded->entries[i].filename, entries[i].filename);
    EXPECT_EQ(loaded->entries[i].tag, entries[i].tag);
    EXPECT_EQ(loaded->entries[i].sha256, entries[i].sha256);
  }
  // Another source of the same recipe is untouched.
  auto other = load_catalog(flash_attn(), community(), cache_.path(), warnings);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->origin, "built-in");
}

TEST_F(UpdateCatalogTest, ALiteralGitHubApiUrlFollowsTheApiBase) {
  auto server = serve({"page1.json", "empty.json"});
  source_.api_url = "https://api.github.com/repos/{repository}/releases";
  auto result = update(*server);
  ASSERT_TRUE(result) << util::render(result.error());
  EXPECT_EQ(result->wheels, 2u);
}

TEST_F(UpdateCatalogTest, StopsAtMaxPages) {
  auto server = serve({"page1.json", "page2.json", "empty.json"});
  auto result = update(*server, 1);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->wheels, 2u);
  EXPECT_EQ(server->requests("/repos/o/r/releases?per_page=100&page=2"), 0);
  EXPECT_THAT(progress_.back(), HasSubstr("stopped after 1 pages"));
}

TEST_F(UpdateCatalogTest, FailuresKeepThePreviousCatalog) {
  {
    auto server = serve({"page1.json", "empty.json"});
    ASSERT_TRUE(update(*server));
  }
  const auto before = util::read_small_file(cache_file());
  ASSERT_TRUE(before);

  const auto deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string huge_digest =
      R"([{"tag_name": "v1", "assets": [{"name": "a.whl", "browser_download_url": "https://h/a.whl", "digest": "sha256:)" +
      std::string(100000, 'a') + R"("}]}])";
  struct Case {
    std::vector<std::string> pages;
    std::string expected;
  };
  const Case cases[] = {
      {{R"({"body": "this is not json"})"}, "page 1 ("},
      {{R"({"body": "[1, 2"})"}, "is not valid JSON, not a JSON array of releases"},
      {{"page1.json", R"({"body": "[{\"tag_name\": \"v1\", \"assets\": ["})"}, "page 2 ("},
      {{R"({"body": "{\"message\": \"Not Found\"}"})"}, "is a JSON object, not a JSON array"},
      {{R"({"body": "[1]"})"}, "release 0 is not an object"},
      {{R"({"body": "[{\"tag_name\": 7, \"assets\": []}]"})"}, "no string 'tag_name'"},
      {{R"({"body": "[{\"tag_name\": \"v1\", \"assets\": {}}]"})"}, "no 'assets' array"},
      {{R"({"body": "[{\"tag_name\": \"v1\", \"assets\": [{\"name\": 1, \"browser_download_url\": \"x\"}]}]"})"},
       "lacks a string 'name'"},
      {{R"({"body": "[{\"tag_name\": \"v1\", \"assets\": [\"a.whl\"]}]"})"},
       "asset 0 is not an object"},
      {{R"({"body": "[{\"tag_name\": \"v1\", \"assets\": [{\"name\": \"a.whl\", \"browser_download_url\": \"https://h/a.whl\", \"digest\": 5}]}]"})"},
       "'digest' is not a string"},
      {{R"({"body": "[{\"tag_name\": \"v1\", \"assets\": [{\"name\": \"a.whl\", \"browser_download_url\": \"https://h/a.whl\", \"digest\": \"sha256:xyz\"}]}]"})"},
       "bad digest"},
      {{R"({"body": "[{\"tag_name\": \"v1\", \"assets\": [{\"name\": \"../a.whl\", \"browser_download_url\": \"https://h/a.whl\"}]}]"})"},
       "path separator"},
      {{R"({"body": "[{\"tag_name\": \"v1\", \"assets\": [{\"name\": \"a.whl\", \"browser_download_url\": \"file:///a.whl\"}]}]"})"},
       "not an http(s) URL"},
      {{R"({"body": "[{\"tag_name\": \"v1\\u0000\", \"assets\": []}]"})"}, "release 0: tag"},
      {{R"({"body": ")" + deep + R"("})"},
       "release 0 is not an object"},  // parsed without recursion
      {{R"({"body": ")" +
        [&] {
          std::string escaped;
          for (char c : huge_digest) escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
          return escaped;
        }() +
        R"("})"},
       "bad digest"},
      {{R"({"status": 500})"}, "answered HTTP 500"},
      {{"page1.json", R"({"status": 502})"}, "answered HTTP 502"},
      {{R"({"body": "[{\"tag_name\": \"v1\", \"assets\": [{\"name\": \"a.tar.gz\", \"browser_download_url\": \"https://h/a.tar.gz\"}]}]"})",
        "empty.json"},
       "the listing has no wheels; keeping the previous catalog"},
      {{"empty.json"}, "the listing has no wheels"},
  };
  for (const Case& c : cases) {
    auto server = serve(c.pages);
    auto result = update(*server);
    ASSERT_FALSE(result) << c.expected;
    EXPECT_THAT(result.error().message, HasSubstr(c.expected));
    EXPECT_THAT(result.error().context, HasSubstr("updating the 'upstream' catalog of flash-attn"));
    EXPECT_EQ(util::read_small_file(cache_file()), before) << c.expected;
  }
}

TEST_F(UpdateCatalogTest, RateLimitsSayToSetAToken) {
  auto server = serve(
      {R"({"status": 403, "headers": {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000000"}})"});
  auto result = update(*server);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, util::ErrorKind::failed);
  EXPECT_THAT(result.error().message, HasSubstr("answered HTTP 403"));
  EXPECT_THAT(result.error().hint, HasSubstr("set GITHUB_TOKEN"));
  EXPECT_THAT(result.error().hint, HasSubstr("2023-11-14 22:13:20 UTC"));
  EXPECT_FALSE(std::filesystem::exists(cache_file()));
}

TEST_F(UpdateCatalogTest, SendsTheTokenAndAcceptHeader) {
  auto server = serve({R"({"body_file": "page1.json", "require_headers": {
                          "Accept": "application/vnd.github+json",
                          "Authorization": "Bearer secret-token"}})",
                       "empty.json"});
  CatalogUpdateOptions options;
  options.api_base = server->url();
  options.token = "secret-token";
  auto result = update_catalog(flash_attn(), source_, cache_.path(), options);
  ASSERT_TRUE(result) << util::render(result.error());
  EXPECT_EQ(result->wheels, 2u);

  options.token = "wrong";
  auto refused = update_catalog(flash_attn(), source_, cache_.path(), options);
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("answered HTTP 401"));
  EXPECT_THAT(refused.error().hint, HasSubstr("GITHUB_TOKEN"));
}

TEST_F(UpdateCatalogTest, UnreachableApiIsAnError) {
  auto server = serve({"page1.json"});
  const std::string base = server->url();
  server->stop();
  CatalogUpdateOptions options;
  options.api_base = base;
  auto result = update_catalog(flash_attn(), source_, cache_.path(), options);
  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message,
              HasSubstr("cannot fetch " + base + "/repos/o/r/releases?per_page=100&page=1"));
  EXPECT_FALSE(std::filesystem::exists(cache_file()));
}

TEST_F(UpdateCatalogTest, ASourceWithoutAnApiUrlCannotBeUpdated) {
  source_.api_url.clear();
  CatalogUpdateOptions options;
  auto result = update_catalog(flash_attn(), source_, cache_.path(), options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, util::ErrorKind::input);
}

// ---- a corrupt cache file ---------------------------------------------------

TEST(LoadCatalog, CorruptCacheFilesFallBackWithAWarning) {
  test::TempDir cache("catalog-cache");
  const auto file = cache.path() / "catalogs" / "flash-attn" / "upstream.tsv";
  const std::string good_header =
      "#flashfit-catalog 1\trecipe=flash-attn\tsource=upstream\tupdated=2026-01-31T12:00:00Z\n"
      "url\ttag\tfilename\tevidence\tsha256\n";
  const std::string good_row =
      "https://h/v1/a-1-py3-none-any.whl\tv1\ta-1-py3-none-any.whl\trelease-api-listing\t\n";
  {
    write(file, good_header + good_row);
    std::vector<std::string> warnings;
    auto catalog = load_catalog(flash_attn(), upstream(), cache.path(), warnings);
    ASSERT_TRUE(catalog);
    EXPECT_TRUE(warnings.empty()) << warnings.front();
    EXPECT_EQ(catalog->entries.size(), 1u);
    EXPECT_EQ(catalog->updated_at, std::optional<std::string>("2026-01-31T12:00:00Z"));
  }
  const std::string corrupt[] = {
      "",
      "garbage",
      std::string(1000, '\0'),
      good_header,                                                  // no entries
      (good_header + good_row).substr(0, good_header.size() + 20),  // truncated
      "#flashfit-catalog 2\trecipe=flash-attn\tsource=upstream\tupdated=2026-01-31T12:00:00Z\n" +
          good_header.substr(good_header.find('\n') + 1) + good_row,
      "#flashfit-catalog 1\trecipe=other\tsource=upstream\tupdated=2026-01-31T12:00:00Z\n" +
          good_header.substr(good_header.find('\n') + 1) + good_row,
      "#flashfit-catalog 1\trecipe=flash-attn\tsource=upstream\n" +
          good_header.substr(good_header.find('\n') + 1) + good_row,
      good_header + good_row + good_row,  // duplicate URL
      good_header + "https://h/v1/a.whl\tv1\ta.whl\tx\n",
      good_header + "https://h/v1/a.whl\tv1\ta.whl\tx\tnot-a-sha\n",
      good_header + "https://h/v1/a.whl\tv1\ta.tar.gz\tx\t\n",
      good_header + "https://h/v1/a.whl\tv1\ta.whl\t\t\n",
  };
  for (const std::string& text : corrupt) {
    write(file, text);
    std::vector<std::string> warnings;
    auto catalog = load_catalog(flash_attn(), upstream(), cache.path(), warnings);
    ASSERT_TRUE(catalog) << util::printable(text);
    EXPECT_EQ(catalog->origin, "built-in") << util::printable(text);
    EXPECT_EQ(catalog->entries.size(), 2826u);
    ASSERT_EQ(warnings.size(), 1u) << util::printable(text);
    EXPECT_THAT(warnings[0], HasSubstr("ignoring the refreshed catalog: " + file.string()));
    EXPECT_THAT(warnings[0], HasSubstr("using the built-in one"));
  }
  // A directory where the file should be cannot be read: a warning too.
  std::filesystem::remove(file);
  std::filesystem::create_directory(file);
  std::vector<std::string> warnings;
  auto catalog = load_catalog(flash_attn(), upstream(), cache.path(), warnings);
  ASSERT_TRUE(catalog);
  EXPECT_EQ(warnings.size(), 1u);
}

}  // namespace
}  // namespace flashfit::resolve
