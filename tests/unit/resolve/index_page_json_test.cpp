// PEP 691 JSON project pages: the happy path, and every malformed shape as an
// input error that names the page and the field.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "resolve/index_page.hpp"

namespace flashfit::resolve {
namespace {

constexpr std::string_view kPage = "https://pypi.org/simple/flash-attn/";
const std::string kHashA(64, 'a');
const std::string kHashUpper = "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF";

std::string page_with(const std::string& file) {
  return R"({"meta": {"api-version": "1.1"}, "name": "flash-attn", "files": [)" + file + "]}";
}

std::string file_with(const std::string& extra) {
  return R"({"filename": "x-1.whl", "url": "x-1.whl", "hashes": {})" + extra + "}";
}

// The error for `json`, which must be an input error naming the page and
// containing `needle`.
void expect_error(const std::string& json, std::string_view needle) {
  auto links = parse_simple_json(json, kPage);
  ASSERT_FALSE(links.has_value()) << json;
  EXPECT_EQ(links.error().kind, util::ErrorKind::input);
  EXPECT_EQ(links.error().context, kPage);
  EXPECT_NE(links.error().message.find(needle), std::string::npos)
      << "message: " << links.error().message << "\njson: " << json;
}

TEST(SimpleJson, PypiProjectPage) {
  std::string json = R"({
  "meta": {"_last-serial": 29633284, "api-version": "1.3"},
  "name": "flash-attn",
  "files": [
    {"core-metadata": false, "data-dist-info-metadata": false,
     "filename": "flash_attn-2.8.3.tar.gz",
     "hashes": {"sha256": ")" +
                     kHashA + R"("},
     "provenance": null, "requires-python": ">=3.9", "size": 8391283,
     "upload-time": "2025-08-15T08:28:12.911049Z",
     "url": "https://files.pythonhosted.org/packages/3b/b2/flash_attn-2.8.3.tar.gz", "yanked": false},
    {"filename": "flash_attn-2.8.2+cu12-cp311-cp311-linux_x86_64.whl",
     "url": "../../packages/ab/flash_attn-2.8.2%2Bcu12-cp311-cp311-linux_x86_64.whl#sha256=ignored",
     "hashes": {"md5": "0123", "sha256": ")" +
                     kHashUpper + R"("},
     "requires-python": null, "yanked": "broken build"},
    {"filename": "flash_attn-2.0.0.tar.gz", "url": "/p/flash_attn-2.0.0.tar.gz", "hashes": {},
     "yanked": true},
    {"filename": "flash_attn-1.0.0.tar.gz", "url": "//cdn.example/flash_attn-1.0.0.tar.gz", "hashes": {},
     "requires-python": "", "yanked": ""}
  ],
  "versions": ["1.0.0", "2.0.0", "2.8.2", "2.8.3"]
})";
  auto parsed = parse_simple_json(json, kPage);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  const std::vector<IndexLink>& links = *parsed;
  ASSERT_EQ(links.size(), 4u);

  EXPECT_EQ(links[0].filename, "flash_attn-2.8.3.tar.gz");
  EXPECT_EQ(links[0].url, "https://files.pythonhosted.org/packages/3b/b2/flash_attn-2.8.3.tar.gz");
  EXPECT_EQ(links[0].sha256, kHashA);
  EXPECT_EQ(links[0].requires_python, ">=3.9");
  EXPECT_FALSE(links[0].yanked);

  EXPECT_EQ(links[1].filename, "flash_attn-2.8.2+cu12-cp311-cp311-linux_x86_64.whl");
  EXPECT_EQ(links[1].url,
            "https://pypi.org/packages/ab/flash_attn-2.8.2%2Bcu12-cp311-cp311-linux_x86_64.whl");
  EXPECT_EQ(links[1].sha256, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
  EXPECT_EQ(links[1].requires_python, std::nullopt);
  EXPECT_TRUE(links[1].yanked);
  EXPECT_EQ(links[1].yanked_reason, "broken build");

  EXPECT_EQ(links[2].url, "https://pypi.org/p/flash_attn-2.0.0.tar.gz");
  EXPECT_EQ(links[2].sha256, std::nullopt);
  EXPECT_TRUE(links[2].yanked);
  EXPECT_EQ(links[2].yanked_reason, "");

  // As pip: an empty requires-python is none and an empty yanked string is not yanked.
  EXPECT_EQ(links[3].url, "https://cdn.example/flash_attn-1.0.0.tar.gz");
  EXPECT_EQ(links[3].requires_python, std::nullopt);
  EXPECT_FALSE(links[3].yanked);
}

TEST(SimpleJson, MinimalShapes) {
  auto empty =
      parse_simple_json(R"({"meta": {"api-version": "1.0"}, "name": "x", "files": []})", kPage);
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
  // No name, a one-part version, no hashes, null optional fields.
  auto bare = parse_simple_json(
      R"({"meta": {"api-version": "1"}, "files": [{"filename": "x-1.whl", "url": "x-1.whl",
          "requires-python": null, "yanked": null}]})",
      kPage);
  ASSERT_TRUE(bare.has_value()) << bare.error().message;
  ASSERT_EQ(bare->size(), 1u);
  EXPECT_EQ((*bare)[0].url, "https://pypi.org/simple/flash-attn/x-1.whl");
  EXPECT_FALSE((*bare)[0].yanked);
  // Future minor versions are fine.
  EXPECT_TRUE(
      parse_simple_json(R"({"meta": {"api-version": "1.99"}, "files": []})", kPage).has_value());
}

TEST(SimpleJson, UrlIsCleaned) {
  auto links = parse_simple_json(page_with(R"({"filename": "x-1.whl", "url": " dir x/x-1.whl#frag ",
                                                "hashes": {}})"),
                                 kPage);
  ASSERT_TRUE(links.has_value()) << links.error().message;
  EXPECT_EQ((*links)[0].url, "https://pypi.org/simple/flash-attn/dir%20x/x-1.whl");
}

TEST(SimpleJson, MalformedDocuments) {
  expect_error("", "malformed JSON");
  expect_error("not json", "malformed JSON");
  expect_error(R"({"meta": {"api-version": "1.0"}, "files": [}")", "malformed JSON");
  expect_error("{\"meta\": {\"api-version\": \"1.0\"}, \"name\": \"\xFF\xFE\", \"files\": []}",
               "malformed JSON");
  expect_error(R"({"a": 1} {"b": 2})", "malformed JSON");
  expect_error("[]", "'the page' must be a JSON object, not array");
  expect_error("\"text\"", "'the page' must be a JSON object, not string");
  expect_error("null", "'the page' must be a JSON object, not null");
}

TEST(SimpleJson, MetaAndApiVersion) {
  expect_error(R"({"files": []})", "no 'meta' object");
  expect_error(R"({"meta": 1, "files": []})", "'meta' must be an object, not number");
  expect_error(R"({"meta": {}, "files": []})", "no 'meta.api-version'");
  expect_error(R"({"meta": {"api-version": 1.0}, "files": []})",
               "'meta.api-version' must be a string, not number");
  expect_error(R"({"meta": {"api-version": "2.0"}, "files": []})", "unsupported API version 2.0");
  expect_error(R"({"meta": {"api-version": "0.9"}, "files": []})", "unsupported API version 0.9");
  for (std::string bad : {"", "1.", ".1", "1.x", "v1", "1.0.0", "abc", " 1.0", "99999999999.0"}) {
    expect_error(R"({"meta": {"api-version": ")" + bad + R"("}, "files": []})",
                 "malformed 'meta.api-version'");
  }
}

TEST(SimpleJson, TopLevelFields) {
  expect_error(R"({"meta": {"api-version": "1.0"}, "name": 5, "files": []})",
               "'name' must be a string");
  expect_error(R"({"meta": {"api-version": "1.0"}, "projects": []})", "no 'files' array");
  expect_error(R"({"meta": {"api-version": "1.0"}, "files": {}})",
               "'files' must be an array, not object");
  expect_error(R"({"meta": {"api-version": "1.0"}, "files": null})",
               "'files' must be an array, not null");
  expect_error(page_with("1"), "'files[0]' must be an object, not number");
  expect_error(page_with(file_with("") + ", []"), "'files[1]' must be an object, not array");
}

TEST(SimpleJson, FileFields) {
  expect_error(page_with(R"({"url": "x.whl", "hashes": {}})"), "no 'files[0].filename'");
  expect_error(page_with(R"({"filename": 5, "url": "x.whl", "hashes": {}})"),
               "'files[0].filename' must be a string, not number");
  expect_error(page_with(R"({"filename": "x.whl", "hashes": {}})"), "no 'files[0].url'");
  expect_error(page_with(R"({"filename": "x.whl", "url": ["x.whl"], "hashes": {}})"),
               "'files[0].url' must be a string, not array");
  expect_error(page_with(R"({"filename": "x.whl", "url": "  ", "hashes": {}})"),
               "empty 'files[0].url'");
  expect_error(page_with(R"J({"filename": "x.whl", "url": "javascript:alert(1)", "hashes": {}})J"),
               "not an http, https or file URL");
  expect_error(page_with(R"({"filename": "x.whl", "url": "ftp://h/x.whl", "hashes": {}})"),
               "not an http, https or file URL");
  // An http(s) URL must name a host (found by the fuzz harness index_html).
  expect_error(page_with(R"({"filename": "x.whl", "url": "http:x.whl", "hashes": {}})"),
               "not an http, https or file URL");
  expect_error(page_with(file_with(R"(, "hashes": [])")),
               "'files[0].hashes' must be an object, not array");
  expect_error(page_with(R"({"filename": "x.whl", "url": "x.whl", "hashes": {"sha256": 5}})"),
               "'files[0].hashes.sha256' must be a string, not number");
  expect_error(page_with(R"({"filename": "x.whl", "url": "x.whl", "hashes": {"md5": null}})"),
               "'files[0].hashes.md5' must be a string, not null");
  expect_error(page_with(R"({"filename": "x.whl", "url": "x.whl", "hashes": {"sha256": "xyz"}})"),
               "'files[0].hashes.sha256' is not 64 hex digits");
  expect_error(page_with(R"({"filename": "x.whl", "url": "x.whl", "hashes": {"sha256": ")" +
                         kHashA + "0\"}}"),
               "is not 64 hex digits");
  expect_error(page_with(file_with(R"(, "requires-python": 3.9)")),
               "'files[0].requires-python' must be a string or null, not number");
  expect_error(page_with(file_with(R"(, "yanked": 1)")),
               "'files[0].yanked' must be a boolean or a string, not number");
  expect_error(page_with(file_with(R"(, "yanked": {})")),
               "'files[0].yanked' must be a boolean or a string");
}

TEST(SimpleJson, CoreMetadata) {
  const auto metadata_of = [](const std::string& extra) {
    auto links = parse_simple_json(page_with(file_with(extra)), kPage);
    EXPECT_TRUE(links) << extra;
    return links && links->size() == 1 ? links->front().core_metadata : std::nullopt;
  };
  EXPECT_EQ(metadata_of(""), std::nullopt);
  EXPECT_EQ(metadata_of(R"(, "core-metadata": true)"), "");
  EXPECT_EQ(metadata_of(R"(, "core-metadata": false)"), std::nullopt);
  EXPECT_EQ(metadata_of(R"(, "core-metadata": null)"), std::nullopt);
  EXPECT_EQ(metadata_of(R"(, "core-metadata": {"sha256": ")" + kHashUpper + "\"}"),
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
  EXPECT_EQ(metadata_of(R"(, "core-metadata": {"md5": "abc"})"), "");
  // PEP 658's key when PEP 714's is absent, never over it.
  EXPECT_EQ(metadata_of(R"(, "dist-info-metadata": {"sha256": ")" + kHashA + "\"}"), kHashA);
  EXPECT_EQ(metadata_of(R"(, "core-metadata": false, "dist-info-metadata": true)"), std::nullopt);
  expect_error(page_with(file_with(R"(, "core-metadata": "yes")")),
               "'files[0].core-metadata' must be a boolean or an object of hashes, not string");
  expect_error(page_with(file_with(R"(, "dist-info-metadata": {"sha256": 5})")),
               "'files[0].dist-info-metadata.sha256' must be a string, not number");
  expect_error(page_with(file_with(R"(, "core-metadata": {"sha256": "xyz"})")),
               "'files[0].core-metadata.sha256' is not 64 hex digits");
}

TEST(SimpleJson, HostileFileNames) {
  for (std::string bad : {"../x.whl", "a/b.whl", "/etc/passwd", "a\\\\b.whl", "..", ".", "",
                          "x\\u0000.whl", "x\\n.whl", "x\\u007f.whl"}) {
    expect_error(page_with(R"({"filename": ")" + bad + R"(", "url": "x.whl", "hashes": {}})"),
                 "unsafe 'files[0].filename'");
  }
}

TEST(SimpleJson, TruncatedAtEveryPrefixIsAnError) {
  std::string json = page_with(file_with(R"(, "requires-python": ">=3.9", "yanked": "why")"));
  ASSERT_TRUE(parse_simple_json(json, kPage).has_value());
  for (std::size_t n = 0; n < json.size(); ++n) {
    auto links = parse_simple_json(std::string_view(json).substr(0, n), kPage);
    EXPECT_FALSE(links.has_value()) << "prefix of " << n << " bytes";
  }
}

TEST(SimpleJson, NulBytesAndSize) {
  std::string json = page_with(file_with(""));
  json.insert(5, 1, '\0');
  expect_error(json, "NUL byte at offset 5");
  std::string huge = page_with(file_with(R"(, "pad": ")" + std::string((64u << 20), 'x') + "\""));
  expect_error(huge, "more than the 64 MiB allowed");
}

TEST(SimpleJson, DeepNestingIsNoCrash) {
  constexpr int kDepth = 200000;
  std::string deep = std::string(kDepth, '[') + std::string(kDepth, ']');
  // Nested deeply inside a field nobody reads: fine.
  auto links = parse_simple_json(
      R"({"meta": {"api-version": "1.0"}, "files": [], "x": )" + deep + "}", kPage);
  EXPECT_TRUE(links.has_value());
  // Unbalanced: malformed.
  expect_error(std::string(kDepth, '['), "malformed JSON");
  expect_error(std::string(kDepth, '{'), "malformed JSON");
}

TEST(SimpleJson, RandomBytesAreErrorsNotCrashes) {
  std::uint32_t state = 12345;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 24;
  };
  const std::string alphabet = "{}[]\":,0123456789.-+eEtruefalsnl \\u/ ";
  for (int round = 0; round < 500; ++round) {
    std::string text;
    std::size_t length = next() * 4;
    for (std::size_t i = 0; i < length; ++i) {
      text.push_back(round % 2 ? static_cast<char>(next() | 1)
                               : alphabet[next() % alphabet.size()]);
    }
    auto links = parse_simple_json(text, kPage);
    if (!links) {
      EXPECT_EQ(links.error().kind, util::ErrorKind::input);
    }
  }
}

TEST(SimpleJson, LongPageUrlTimesManyFilesIsRefused) {
  std::string page_url = "https://h/" + std::string(1u << 20, 'p') + "/";
  std::string files;
  for (int i = 0; i < 300; ++i) files += std::string(i ? "," : "") + file_with("");
  auto links = parse_simple_json(page_with(files), page_url);
  ASSERT_FALSE(links.has_value());
  EXPECT_NE(links.error().message.find("more than 256 MiB of URLs"), std::string::npos)
      << links.error().message;
}

TEST(SimpleJson, ManyFiles) {
  std::string files;
  constexpr int kCount = 100000;
  for (int i = 0; i < kCount; ++i) {
    if (i > 0) files += ",";
    files += R"({"filename": "x-)" + std::to_string(i) + R"(.whl", "url": "x.whl", "hashes": {}})";
  }
  auto links = parse_simple_json(page_with(files), kPage);
  ASSERT_TRUE(links.has_value());
  EXPECT_EQ(links->size(), static_cast<std::size_t>(kCount));
}

}  // namespace
}  // namespace flashfit::resolve
