// Hostile and broken HTML index pages: truncation at every prefix, random
// bytes, NUL bytes, oversized and pathological pages. The answer is links or
// a clear error, never a crash, and never quadratic work.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "resolve/index_page.hpp"

namespace flashfit::resolve {
namespace {

constexpr std::string_view kPage = "https://example.org/simple/pkg/";

bool same_link(const IndexLink& a, const IndexLink& b) {
  return a.filename == b.filename && a.url == b.url && a.sha256 == b.sha256 &&
         a.requires_python == b.requires_python && a.yanked == b.yanked &&
         a.yanked_reason == b.yanked_reason;
}

// What every link must satisfy, whatever the page.
void expect_sane(const std::vector<IndexLink>& links) {
  for (const IndexLink& link : links) {
    EXPECT_FALSE(link.filename.empty());
    EXPECT_EQ(link.filename.find('/'), std::string::npos) << link.filename;
    EXPECT_EQ(link.filename.find('\\'), std::string::npos) << link.filename;
    EXPECT_NE(link.filename, "..");
    EXPECT_EQ(link.filename.find('\0'), std::string::npos);
    EXPECT_EQ(link.url.find('#'), std::string::npos) << link.url;
    EXPECT_EQ(link.url.find(' '), std::string::npos) << link.url;
    if (link.sha256) {
      EXPECT_EQ(link.sha256->size(), 64u);
    }
  }
}

TEST(SimpleHtmlHostile, EveryPrefixGivesTheLinksBeforeTheCut) {
  const std::string page = R"(<!DOCTYPE html><html><head><base href="/mirror/">
<title>Links for x &amp; y</title><script>var a = "<a href='no.whl'>";</script></head><body>
<!-- a comment with <a href="hidden.whl"> -->
<a href="x-1.whl#sha256=)" +
                           std::string(64, 'c') + R"(" data-requires-python="&gt;=3.9">x-1</a><br/>
<A HREF='x-2.whl' data-yanked>x-2</A>
<a href=x-3.whl data-yanked="bad &#x26; broken">x-3</a>
<a href="../x-4.whl?a=1&amp;b=2">x-4</a>
</body></html>)";
  auto full = parse_simple_html(page, kPage);
  ASSERT_TRUE(full.has_value());
  ASSERT_EQ(full->size(), 4u);
  for (std::size_t n = 0; n <= page.size(); ++n) {
    auto links = parse_simple_html(std::string_view(page).substr(0, n), kPage);
    ASSERT_TRUE(links.has_value()) << "prefix of " << n << " bytes";
    // A tag counts only once its '>' arrived, so a prefix yields a prefix.
    ASSERT_LE(links->size(), full->size());
    for (std::size_t i = 0; i < links->size(); ++i) {
      EXPECT_TRUE(same_link((*links)[i], (*full)[i])) << "prefix of " << n << " bytes, link " << i;
    }
  }
}

TEST(SimpleHtmlHostile, RandomBytesAndTagSoup) {
  std::uint32_t state = 2024;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 24;
  };
  const std::vector<std::string> pieces = {
      "<a",          "<A ",      "href=",       "HREF = ",     "\"",
      "'",           ">",        "/>",          "<!--",        "-->",
      "--!>",        "<!",       "<?",          "</",          "</a>",
      "<base href=", "<script>", "</script>",   "<style>",     "&amp;",
      "&#",          "&#x",      "x",           ";",           "#sha256=",
      "%2F",         "%00",      "%",           "..",          "/",
      " ",           "\n",       "=",           "data-yanked", "data-requires-python=",
      "&lt;",        "a.whl",    "http://h/",   "//",          "?q",
      "\xC3\xA9",    "\xFF",     "<plaintext>", "<textarea>",  "</textarea>"};
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    std::size_t length = next();
    for (std::size_t i = 0; i < length; ++i) {
      if (round % 3 == 0) {
        text.push_back(static_cast<char>(next() | 1));  // random bytes, never NUL
      } else {
        text += pieces[next() % pieces.size()];
      }
    }
    auto links = parse_simple_html(text, kPage);
    ASSERT_TRUE(links.has_value()) << "round " << round;
    expect_sane(*links);
  }
}

TEST(SimpleHtmlHostile, NulBytesAreAnError) {
  std::string page = "<a href=\"x-1.whl\">x</a>";
  page.push_back('\0');
  auto links = parse_simple_html(page, kPage);
  ASSERT_FALSE(links.has_value());
  EXPECT_EQ(links.error().kind, util::ErrorKind::input);
  EXPECT_EQ(links.error().context, kPage);
  EXPECT_NE(links.error().message.find("NUL byte at offset 23"), std::string::npos)
      << links.error().message;
  EXPECT_FALSE(parse_simple_html(std::string(1, '\0'), kPage).has_value());
}

TEST(SimpleHtmlHostile, OversizedPageIsAnError) {
  std::string page((64u << 20) + 1, ' ');
  auto links = parse_simple_html(page, kPage);
  ASSERT_FALSE(links.has_value());
  EXPECT_EQ(links.error().kind, util::ErrorKind::input);
  EXPECT_NE(links.error().message.find("more than the 64 MiB allowed"), std::string::npos);
  // Exactly at the limit is a page.
  page.pop_back();
  EXPECT_TRUE(parse_simple_html(page, kPage).has_value());
}

// Each of these would be quadratic for a scanner that, on failure, retried
// from the next byte. Not timed: they just have to finish.
TEST(SimpleHtmlHostile, PathologicalPagesFinish) {
  constexpr std::size_t kSize = 10u << 20;
  auto repeat = [](std::string_view unit) {
    std::string out;
    out.reserve(kSize + unit.size());
    while (out.size() < kSize) out.append(unit);
    return out;
  };
  for (std::string_view unit :
       {"<a", "<a ", "<a href=\"", "<a href=", "<a href=x ", "<!--", "<!", "</", "</a ", "<a x=' ",
        "<script>", "<script></scrip", "&#", "&#x1", "<<<<", "<a b c d e "}) {
    auto links = parse_simple_html(repeat(unit), kPage);
    ASSERT_TRUE(links.has_value()) << unit;
    EXPECT_TRUE(links->empty()) << unit;
  }
  // One huge attribute value full of references, and a huge href.
  std::string refs = "<a data-yanked=\"" + repeat("&amp;&#x41;&#9;&lt") + "\" href=\"x-1.whl\">";
  auto yanked = parse_simple_html(refs, kPage);
  ASSERT_TRUE(yanked.has_value());
  ASSERT_EQ(yanked->size(), 1u);
  EXPECT_EQ((*yanked)[0].yanked_reason.substr(0, 10), "&A\t&lt&A\t&");
  std::string long_href = "<a href=\"" + repeat("../a/") + "x-1.whl\">";
  auto deep = parse_simple_html(long_href, kPage);
  ASSERT_TRUE(deep.has_value());
  ASSERT_EQ(deep->size(), 1u);
  EXPECT_EQ((*deep)[0].filename, "x-1.whl");
}

TEST(SimpleHtmlHostile, LongBaseTimesManyLinksIsRefused) {
  // 1 MiB of <base href> and 300 tiny links would be 300 MiB of URLs.
  std::string page = "<base href=\"/" + std::string(1u << 20, 'b') + "/\">";
  for (int i = 0; i < 300; ++i) page += "<a href=x.whl>";
  auto links = parse_simple_html(page, kPage);
  ASSERT_FALSE(links.has_value());
  EXPECT_EQ(links.error().kind, util::ErrorKind::input);
  EXPECT_NE(links.error().message.find("more than 256 MiB of URLs"), std::string::npos)
      << links.error().message;
  // A few such links are fine.
  page.resize(page.size() - 250 * std::string("<a href=x.whl>").size());
  auto few = parse_simple_html(page, kPage);
  ASSERT_TRUE(few.has_value());
  EXPECT_EQ(few->size(), 50u);
}

TEST(SimpleHtmlHostile, TwoHundredThousandLinks) {
  constexpr int kCount = 200000;
  std::string page = "<html><body>\n";
  for (int i = 0; i < kCount; ++i) {
    std::string name = "pkg-" + std::to_string(i) + "-py3-none-any.whl";
    page += "<a href=\"../../packages/" + name + "#sha256=" + std::string(64, 'd') +
            "\" data-requires-python=\"&gt;=3.8\">" + name + "</a><br/>\n";
  }
  page += "</body></html>\n";
  auto links = parse_simple_html(page, kPage);
  ASSERT_TRUE(links.has_value());
  ASSERT_EQ(links->size(), static_cast<std::size_t>(kCount));
  EXPECT_EQ(links->back().filename, "pkg-199999-py3-none-any.whl");
  EXPECT_EQ(links->back().url, "https://example.org/packages/pkg-199999-py3-none-any.whl");
  EXPECT_EQ(links->back().requires_python, ">=3.8");
}

}  // namespace
}  // namespace flashfit::resolve
