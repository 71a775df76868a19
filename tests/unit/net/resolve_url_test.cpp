// net::resolve_url against RFC 3986 §5.4's examples, and net::percent_decode.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "net/http.hpp"

namespace flashfit::net {
namespace {

constexpr std::string_view kBase = "http://a/b/c/d;p?q";

using Cases = std::vector<std::pair<std::string, std::string>>;

void expect_all(const Cases& cases, std::string_view base = kBase) {
  for (const auto& [reference, expected] : cases) {
    EXPECT_EQ(resolve_url(base, reference), expected) << "reference '" << reference << "'";
  }
}

TEST(ResolveUrl, Rfc3986NormalExamples) {
  expect_all({{"g:h", "g:h"},
              {"g", "http://a/b/c/g"},
              {"./g", "http://a/b/c/g"},
              {"g/", "http://a/b/c/g/"},
              {"/g", "http://a/g"},
              {"//g", "http://g"},
              {"?y", "http://a/b/c/d;p?y"},
              {"g?y", "http://a/b/c/g?y"},
              {"#s", "http://a/b/c/d;p?q#s"},
              {"g#s", "http://a/b/c/g#s"},
              {"g?y#s", "http://a/b/c/g?y#s"},
              {";x", "http://a/b/c/;x"},
              {"g;x", "http://a/b/c/g;x"},
              {"g;x?y#s", "http://a/b/c/g;x?y#s"},
              {"", "http://a/b/c/d;p?q"},
              {".", "http://a/b/c/"},
              {"./", "http://a/b/c/"},
              {"..", "http://a/b/"},
              {"../", "http://a/b/"},
              {"../g", "http://a/b/g"},
              {"../..", "http://a/"},
              {"../../", "http://a/"},
              {"../../g", "http://a/g"}});
}

TEST(ResolveUrl, Rfc3986AbnormalExamples) {
  expect_all({{"../../../g", "http://a/g"},
              {"../../../../g", "http://a/g"},
              {"/./g", "http://a/g"},
              {"/../g", "http://a/g"},
              {"g.", "http://a/b/c/g."},
              {".g", "http://a/b/c/.g"},
              {"g..", "http://a/b/c/g.."},
              {"..g", "http://a/b/c/..g"},
              {"./../g", "http://a/b/g"},
              {"./g/.", "http://a/b/c/g/"},
              {"g/./h", "http://a/b/c/g/h"},
              {"g/../h", "http://a/b/c/h"},
              {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
              {"g;x=1/../y", "http://a/b/c/y"},
              {"g?y/./x", "http://a/b/c/g?y/./x"},
              {"g?y/../x", "http://a/b/c/g?y/../x"},
              {"g#s/./x", "http://a/b/c/g#s/./x"},
              {"g#s/../x", "http://a/b/c/g#s/../x"},
              // §5.4.2's backward-compatible reading, as browsers and Python's urljoin
              // (so pip) take it: the strict "http:g" is an http URL without a host,
              // which nothing can fetch (found by the fuzz harness index_html).
              {"http:g", "http://a/b/c/g"},
              {"HTTP:g", "http://a/b/c/g"},
              {"https:g", "https:g"}});  // another scheme stays absolute
}

TEST(ResolveUrl, IndexPageShapes) {
  expect_all(
      {{"../../packages/ab/cd/x.whl#sha256=00", "https://pypi.org/packages/ab/cd/x.whl#sha256=00"},
       {"https://files.pythonhosted.org/p/x.whl", "https://files.pythonhosted.org/p/x.whl"},
       {"//cdn.example.com/x.whl", "https://cdn.example.com/x.whl"},
       {"x%2Bcu12.whl", "https://pypi.org/simple/flash-attn/x%2Bcu12.whl"}},
      "https://pypi.org/simple/flash-attn/");
  // A base without a path merges as "/" (§5.2.3).
  EXPECT_EQ(resolve_url("http://a", "g"), "http://a/g");
  EXPECT_EQ(resolve_url("http://a?q", "?r"), "http://a?r");
  // file URLs and bare local paths (a find-links page read from disk).
  EXPECT_EQ(resolve_url("file:///srv/index/page.html", "w/x.whl"), "file:///srv/index/w/x.whl");
  EXPECT_EQ(resolve_url("/srv/index/page.html", "../x.whl"), "/srv/x.whl");
  EXPECT_EQ(resolve_url("page.html", "x.whl"), "x.whl");
  // Scheme names are letters first; "./g:h" and "1g:h" are paths.
  EXPECT_EQ(resolve_url(kBase, "./g:h"), "http://a/b/c/g:h");
  EXPECT_EQ(resolve_url(kBase, "1g:h"), "http://a/b/c/1g:h");
  // An absolute reference still loses its dot segments.
  EXPECT_EQ(resolve_url(kBase, "https://x/a/./b/../c"), "https://x/a/c");
  // An empty query is kept distinct from none.
  EXPECT_EQ(resolve_url(kBase, "g?"), "http://a/b/c/g?");
  EXPECT_EQ(resolve_url("http://a/b?", "#f"), "http://a/b?#f");
}

TEST(ResolveUrl, HostileDotChainsStayLinear) {
  std::string reference;
  for (int i = 0; i < 200000; ++i) reference += "a/../";
  for (int i = 0; i < 200000; ++i) reference += "../";
  reference += "x.whl";
  EXPECT_EQ(resolve_url("https://h/deep/page/", reference), "https://h/x.whl");
}

TEST(PercentDecode, DecodesValidEscapesOnly) {
  EXPECT_EQ(percent_decode("flash_attn-2.8.3%2Bcu12torch2.8cxx11abiTRUE-cp311.whl"),
            "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp311.whl");
  EXPECT_EQ(percent_decode("a%20b%2fc%2F"), "a b/c/");
  EXPECT_EQ(percent_decode("100%"), "100%");
  EXPECT_EQ(percent_decode("%"), "%");
  EXPECT_EQ(percent_decode("%4"), "%4");
  EXPECT_EQ(percent_decode("%zz%4g"), "%zz%4g");
  EXPECT_EQ(percent_decode("%%41"), "%A");
  EXPECT_EQ(percent_decode("+"), "+");  // a path, not a form: '+' is '+'
  EXPECT_EQ(percent_decode("%00"), std::string(1, '\0'));
  EXPECT_EQ(percent_decode(""), "");
}

TEST(PercentEncode, KeepsOnlyUnreservedAndRoundTrips) {
  EXPECT_EQ(percent_encode("flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp311.whl"),
            "flash_attn-2.8.3%2Bcu12torch2.8cxx11abiTRUE-cp311.whl");
  EXPECT_EQ(percent_encode("a b/c~"), "a%20b%2Fc~");
  EXPECT_EQ(percent_encode("team/wheels a", true), "team/wheels%20a");  // an S3 key
  EXPECT_EQ(percent_encode(std::string("\0\xff", 2)), "%00%FF");
  EXPECT_EQ(percent_encode(""), "");
  const std::string every_byte = [] {
    std::string s;
    for (int c = 0; c < 256; ++c) s += static_cast<char>(c);
    return s;
  }();
  EXPECT_EQ(percent_decode(percent_encode(every_byte)), every_byte);
  EXPECT_EQ(percent_decode(percent_encode(every_byte, true)), every_byte);
}

}  // namespace
}  // namespace flashfit::net
