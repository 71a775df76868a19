// PEP 503 / PEP 592 / find-links HTML pages: what parse_simple_html finds on
// realistic pages, and each HTML and URL rule on its own.
#include "resolve/index_page.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace flashfit::resolve {
namespace {

const std::string kHashA(64, 'a');
const std::string kHashUpper = "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF";
const std::string kHashLower = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

std::vector<IndexLink> parse(std::string_view html,
                             std::string_view url = "https://example.org/simple/pkg/") {
  auto links = parse_simple_html(html, url);
  EXPECT_TRUE(links.has_value()) << (links ? "" : links.error().message);
  return links ? *links : std::vector<IndexLink>{};
}

std::vector<std::string> urls(const std::vector<IndexLink>& links) {
  std::vector<std::string> out;
  for (const IndexLink& link : links) out.push_back(link.url);
  return out;
}

std::vector<std::string> filenames(const std::vector<IndexLink>& links) {
  std::vector<std::string> out;
  for (const IndexLink& link : links) out.push_back(link.filename);
  return out;
}

TEST(SimpleHtml, PypiProjectPage) {
  // The shape warehouse serves for /simple/<project>/ (PEP 503, 592, 629, 714).
  std::string page =
      R"(<!DOCTYPE html>
<html>
  <head>
    <meta name="pypi:repository-version" content="1.1">
    <title>Links for flash-attn</title>
  </head>
  <body>
    <h1>Links for flash-attn</h1>
    <a href="https://files.pythonhosted.org/packages/3b/b2/8d76c41ad7974ee264754709c22963447f7f8134613fd9ce80984ed0dab7/flash_attn-2.8.3.tar.gz#sha256=)" +
      kHashA + R"(" data-requires-python="&gt;=3.9" >flash_attn-2.8.3.tar.gz</a><br />
    <a href="https://files.pythonhosted.org/packages/aa/bb/flash_attn-2.8.2-cp311-cp311-linux_x86_64.whl#sha256=)" +
      kHashUpper + R"(" data-requires-python="&gt;=3.8,&lt;4" data-dist-info-metadata="sha256=)" +
      kHashA + R"(" data-core-metadata="sha256=)" + kHashA +
      R"(">flash_attn-2.8.2-cp311-cp311-linux_x86_64.whl</a><br />
    <a href="https://files.pythonhosted.org/packages/cc/dd/flash_attn-2.0.0.tar.gz#sha256=)" +
      kHashA +
      R"(" data-yanked="">flash_attn-2.0.0.tar.gz</a><br />
    <a href="https://files.pythonhosted.org/packages/ee/ff/flash_attn-1.0.5.tar.gz#sha256=)" +
      kHashA +
      R"(" data-requires-python="&gt;=3.7" data-yanked="needs torch &lt; 2 &amp; CUDA 11">flash_attn-1.0.5.tar.gz</a><br />
  </body>
</html>
<!--SERIAL 29633284-->
)";
  std::vector<IndexLink> links = parse(page, "https://pypi.org/simple/flash-attn/");
  ASSERT_EQ(links.size(), 4u);

  EXPECT_EQ(links[0].filename, "flash_attn-2.8.3.tar.gz");
  EXPECT_EQ(links[0].url,
            "https://files.pythonhosted.org/packages/3b/b2/"
            "8d76c41ad7974ee264754709c22963447f7f8134613fd9ce80984ed0dab7/"
            "flash_attn-2.8.3.tar.gz");
  EXPECT_EQ(links[0].sha256, kHashA);
  EXPECT_EQ(links[0].requires_python, ">=3.9");
  EXPECT_FALSE(links[0].yanked);
  EXPECT_EQ(links[0].yanked_reason, "");

  EXPECT_EQ(links[1].filename, "flash_attn-2.8.2-cp311-cp311-linux_x86_64.whl");
  EXPECT_EQ(links[1].sha256, kHashLower);  // lower-cased
  EXPECT_EQ(links[1].requires_python, ">=3.8,<4");

  EXPECT_TRUE(links[2].yanked);
  EXPECT_EQ(links[2].yanked_reason, "");
  EXPECT_EQ(links[2].requires_python, std::nullopt);

  EXPECT_TRUE(links[3].yanked);
  EXPECT_EQ(links[3].yanked_reason, "needs torch < 2 & CUDA 11");
  EXPECT_EQ(links[3].requires_python, ">=3.7");
}

TEST(SimpleHtml, FindLinksPageInPygStyle) {
  // data.pyg.org/whl/torch-2.3.0+cu121.html: relative links into a directory
  // whose name holds a '+', escaped as %2B.
  std::string page =
      "<html>\n<head><meta name=\"pypi:repository-version\" content=\"1.0\"></head>\n<body>\n"
      "<a href=\"torch-2.3.0%2Bcu121/pyg_lib-0.4.0%2Bpt23cu121-cp311-cp311-linux_x86_64.whl\">"
      "torch-2.3.0+cu121/pyg_lib-0.4.0+pt23cu121-cp311-cp311-linux_x86_64.whl</a><br>\n"
      "<a "
      "href=\"torch-2.3.0%2Bcu121/torch_scatter-2.1.2%2Bpt23cu121-cp311-cp311-linux_x86_64.whl\">"
      "torch-2.3.0+cu121/torch_scatter-2.1.2+pt23cu121-cp311-cp311-linux_x86_64.whl</a><br>\n"
      "</body>\n</html>\n";
  std::vector<IndexLink> links = parse(page, "https://data.pyg.org/whl/torch-2.3.0+cu121.html");
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].filename, "pyg_lib-0.4.0+pt23cu121-cp311-cp311-linux_x86_64.whl");
  EXPECT_EQ(links[0].url,
            "https://data.pyg.org/whl/torch-2.3.0%2Bcu121/"
            "pyg_lib-0.4.0%2Bpt23cu121-cp311-cp311-linux_x86_64.whl");
  EXPECT_EQ(links[1].filename, "torch_scatter-2.1.2+pt23cu121-cp311-cp311-linux_x86_64.whl");
  EXPECT_EQ(links[1].sha256, std::nullopt);
}

TEST(SimpleHtml, GitHubLikeReleasePage) {
  // A page that was never meant as an index: navigation, scripts, fragments,
  // mailto and javascript links around the release assets.
  std::string page = R"HTML(<!DOCTYPE html><html lang="en" data-color-mode="auto">
<head><script type="application/javascript">document.write('<a href="/evil/fake.whl">x</a>');</script>
<style>a[href$=".whl"]::after { content: "<a href='style.whl'>"; }</style>
<title>Release v2.8.3 &middot; Dao-AILab/flash-attention &lt;a href="title.whl"&gt;</title></head>
<body><a href="#start-of-content" class="px-2">Skip to content</a>
<a href="https://github.com/" aria-label="Homepage">home</a>
<a href="/Dao-AILab/flash-attention" data-pjax="#repo-content-pjax-container">flash-attention</a>
<a href="mailto:someone@example.com">mail</a> <a href="javascript:void(0)">menu</a>
<ul data-view-component="true">
<li><a href="/Dao-AILab/flash-attention/releases/download/v2.8.3/flash_attn-2.8.3%2Bcu12torch2.8cxx11abiTRUE-cp311-cp311-linux_x86_64.whl" rel="nofollow" data-turbo="false" data-view-component="true" class="Truncate">
  <span class="Truncate-text text-bold">flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp311-cp311-linux_x86_64.whl</span></a></li>
<li><a href="/Dao-AILab/flash-attention/releases/download/v2.8.3/flash_attn-2.8.3%2Bcu12torch2.8cxx11abiFALSE-cp311-cp311-linux_x86_64.whl" rel="nofollow" data-turbo="false">FALSE</a></li>
<li><a href="/Dao-AILab/flash-attention/archive/refs/tags/v2.8.3.tar.gz" rel="nofollow">Source code (tar.gz)</a></li>
</ul></body></html>)HTML";
  std::vector<IndexLink> links =
      parse(page, "https://github.com/Dao-AILab/flash-attention/releases/tag/v2.8.3");
  EXPECT_EQ(filenames(links),
            (std::vector<std::string>{
                "flash-attention",
                "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp311-cp311-linux_x86_64.whl",
                "flash_attn-2.8.3+cu12torch2.8cxx11abiFALSE-cp311-cp311-linux_x86_64.whl",
                "v2.8.3.tar.gz"}));
  EXPECT_EQ(links[1].url,
            "https://github.com/Dao-AILab/flash-attention/releases/download/v2.8.3/"
            "flash_attn-2.8.3%2Bcu12torch2.8cxx11abiTRUE-cp311-cp311-linux_x86_64.whl");
}

// Found by the fuzz harness index_html: "https:x.whl" is relative under an
// https page (as pip's urljoin reads it), and an http(s) URL without a host
// ("http:y.whl" under https) names nothing fetchable, so it is no link.
TEST(SimpleHtml, SchemeWithoutHostLinks) {
  std::vector<IndexLink> links = parse(R"(
<a href="https:x-1-py3-none-any.whl">same scheme</a>
<a href="http:y-1-py3-none-any.whl">other scheme, no host</a>
<a href="http://h/z-1-py3-none-any.whl">absolute</a>)",
                                       "https://index.example/simple/x/");
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].url, "https://index.example/simple/x/x-1-py3-none-any.whl");
  EXPECT_EQ(links[1].url, "http://h/z-1-py3-none-any.whl");
}

TEST(SimpleHtml, RelativeAbsoluteAndSchemeRelativeLinks) {
  std::vector<IndexLink> links = parse(R"(
<a href="x-1.whl">same dir</a>
<a href="../../packages/ab/x-2.whl">up</a>
<a href="/files/x-3.whl">root</a>
<a href="//cdn.example.com/x-4.whl">scheme-relative</a>
<a href="http://other.example/x-5.whl?token=1#sha256=)" +
                                       kHashA + R"(">query</a>
<a href="file:///srv/wheels/x-6.whl">file</a>
<a href="ftp://old.example/x-7.whl">ftp is not fetched</a>
<a href="data:text/plain,x-8.whl">data</a>
<a href="sub/">a directory</a>
<a href="">the page</a>
<a>no href</a>
<a href="  x-9.whl
 ">spaces</a>)");
  EXPECT_EQ(urls(links), (std::vector<std::string>{
                             "https://example.org/simple/pkg/x-1.whl",
                             "https://example.org/packages/ab/x-2.whl",
                             "https://example.org/files/x-3.whl",
                             "https://cdn.example.com/x-4.whl",
                             "http://other.example/x-5.whl?token=1",
                             "file:///srv/wheels/x-6.whl",
                             "https://example.org/simple/pkg/x-9.whl",
                         }));
  EXPECT_EQ(links[4].filename, "x-5.whl");
  EXPECT_EQ(links[4].sha256, kHashA);
}

TEST(SimpleHtml, LocalPageWithoutScheme) {
  std::vector<IndexLink> links = parse(R"(<a href="w/x-1.whl">x</a>)", "/srv/index/page.html");
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].url, "/srv/index/w/x-1.whl");
}

TEST(SimpleHtml, BaseHref) {
  // The first <base href> anywhere on the page applies to every link, and is
  // itself relative to the page.
  EXPECT_EQ(
      urls(parse(R"(<a href="x-1.whl">x</a>
<base target="_blank"><base href="../mirror/files/"><base href="https://ignored.example/">
<a href="x-2.whl">y</a><a href="/x-3.whl">z</a><a href="https://abs.example/x-4.whl">w</a>)")),
      (std::vector<std::string>{"https://example.org/simple/mirror/files/x-1.whl",
                                "https://example.org/simple/mirror/files/x-2.whl",
                                "https://example.org/x-3.whl", "https://abs.example/x-4.whl"}));
  EXPECT_EQ(
      urls(parse(
          R"(<head><BASE HREF="https://mirror.example.net/pypi/"></head><a href="x-1.whl">)")),
      (std::vector<std::string>{"https://mirror.example.net/pypi/x-1.whl"}));
  // An empty base href is no base.
  EXPECT_EQ(urls(parse(R"(<base href=""><a href="x-1.whl">)")),
            (std::vector<std::string>{"https://example.org/simple/pkg/x-1.whl"}));
}

TEST(SimpleHtml, TagAndAttributeSyntax) {
  std::vector<IndexLink> links = parse(R"(
<A HREF="x-1.whl" DATA-YANKED>upper case</A>
<a href='x-2.whl' data-requires-python='&gt;=3.10'>single quotes</a>
<a href=x-3.whl data-yanked=old>unquoted</a>
<a   href   =   "x-4.whl"   >spaces around =</a>
<a title="a > b" href="x-5.whl">quoted '>'</a>
<a href="x-6.whl" href="ignored.whl">first of duplicates wins</a>
<a/href="x-7.whl"/>slashes</a>
<a href="x-8.whl"data-yanked="glued">no space between attributes</a>
<a href=x-9.whl>unquoted at '>'</a>
<abbr href="not-an-anchor.whl">abbr</abbr>
<a href=>empty unquoted</a>
<a data-href="nope.whl">data-href</a>
)");
  EXPECT_EQ(filenames(links),
            (std::vector<std::string>{"x-1.whl", "x-2.whl", "x-3.whl", "x-4.whl", "x-5.whl",
                                      "x-6.whl", "x-7.whl", "x-8.whl", "x-9.whl"}));
  EXPECT_TRUE(links[0].yanked);
  EXPECT_EQ(links[0].yanked_reason, "");
  EXPECT_EQ(links[1].requires_python, ">=3.10");
  EXPECT_TRUE(links[2].yanked);
  EXPECT_EQ(links[2].yanked_reason, "old");
  EXPECT_EQ(links[7].yanked_reason, "glued");
}

TEST(SimpleHtml, CommentsAndRawText) {
  std::vector<IndexLink> links = parse(R"(<!DOCTYPE html><?xml version="1.0"?>
<!-- <a href="hidden-1.whl"> -->
<!-- -- > <a href="hidden-2.whl"> --!>
<!--><a href="x-1.whl">abrupt comment end</a>
<!---><a href="x-2.whl">abrupt comment end</a>
<![CDATA[ <a href="hidden-3.whl"> ]]>
<script>var s = "</scripty><a href='hidden-4.whl'>";</script ><a href="x-3.whl">after script</a>
<SCRIPT type="x"></SCRIPT><a href="x-4.whl">after upper-case script</a>
<style>/* <a href="hidden-5.whl"> */</style>
<textarea><a href="hidden-6.whl"></textarea>
</a href="hidden-7.whl"><a href="x-5.whl">end tags are not links</a>
< a href="hidden-8.whl">not a tag</a>
<noscript><a href="x-6.whl">noscript is parsed (no scripting)</a></noscript>
<plaintext><a href="hidden-9.whl">)");
  EXPECT_EQ(filenames(links), (std::vector<std::string>{"x-1.whl", "x-2.whl", "x-3.whl", "x-4.whl",
                                                        "x-5.whl", "x-6.whl"}));
}

TEST(SimpleHtml, UnterminatedConstructsHideTheRest) {
  EXPECT_EQ(filenames(parse(R"(<a href="x-1.whl"><!-- <a href="x-2.whl">)")),
            (std::vector<std::string>{"x-1.whl"}));
  EXPECT_EQ(filenames(parse(R"(<a href="x-1.whl"><script><a href="x-2.whl">)")),
            (std::vector<std::string>{"x-1.whl"}));
  EXPECT_EQ(filenames(parse(R"(<a href="x-1.whl"><a title="oops href="x-2.whl">)")),
            (std::vector<std::string>{"x-1.whl"}));
  EXPECT_EQ(filenames(parse(R"(<a href="x-1.whl"><a href="x-2.whl")")),
            (std::vector<std::string>{"x-1.whl"}));
}

TEST(SimpleHtml, EntitiesInAttributes) {
  std::vector<IndexLink> links = parse(R"(
<a href="x-1.whl?a=1&amp;b=2&AMP;c=3">amp</a>
<a href="x-2&#43;cu12.whl">decimal</a>
<a href="x-3&#x2B;cu12&#X2b.whl">hex, no semicolon</a>
<a href="x-4.whl?q=&copy;&amp&lt=1">unknown and unterminated named references stay</a>
<a href="x-5&#0;&#xD800;&#99999999999;.whl">invalid code points</a>
<a href="x-6&#;&#x;.whl">no digits</a>
<a href="x-7&quot;&apos;&#39;.whl">quotes</a>
<a href="&#x78;-8&#x2e;whl">letters</a>
)");
  ASSERT_EQ(links.size(), 8u);
  EXPECT_EQ(links[0].url, "https://example.org/simple/pkg/x-1.whl?a=1&b=2&c=3");
  EXPECT_EQ(links[1].filename, "x-2+cu12.whl");
  EXPECT_EQ(links[2].filename, "x-3+cu12+.whl");
  EXPECT_EQ(links[3].url, "https://example.org/simple/pkg/x-4.whl?q=&copy;&amp&lt=1");
  EXPECT_EQ(links[4].filename, "x-5\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD.whl");
  EXPECT_EQ(links[4].url, "https://example.org/simple/pkg/x-5%EF%BF%BD%EF%BF%BD%EF%BF%BD.whl");
  // "&#;" is no reference, so its literal '#' starts the URL's fragment.
  EXPECT_EQ(links[5].filename, "x-6&");
  EXPECT_EQ(links[5].url, "https://example.org/simple/pkg/x-6&");
  EXPECT_EQ(links[6].filename, "x-7\"''.whl");
  EXPECT_EQ(links[6].url, "https://example.org/simple/pkg/x-7%22''.whl");
  EXPECT_EQ(links[7].filename, "x-8.whl");
}

TEST(SimpleHtml, RequiresPython) {
  std::vector<IndexLink> links = parse(R"(
<a href="x-1.whl" data-requires-python="&gt;=3.8, !=3.9.*, &lt;4">x</a>
<a href="x-2.whl" data-requires-python="">empty is none</a>
<a href="x-3.whl" data-requires-python>no value is none</a>
<a href="x-4.whl" data-requires-python=">=3.9">raw '>' in quotes</a>)");
  ASSERT_EQ(links.size(), 4u);
  EXPECT_EQ(links[0].requires_python, ">=3.8, !=3.9.*, <4");
  EXPECT_EQ(links[1].requires_python, std::nullopt);
  EXPECT_EQ(links[2].requires_python, std::nullopt);
  EXPECT_EQ(links[3].requires_python, ">=3.9");
}

TEST(SimpleHtml, CoreMetadata) {
  // PEP 714's attribute first, PEP 658's when it is absent; "true" or a hash.
  std::vector<IndexLink> links = parse(R"(
<a href="x-1.whl" data-core-metadata="sha256=)" +
                                       kHashUpper + R"(">hash</a>
<a href="x-2.whl" data-core-metadata="true" data-dist-info-metadata="sha256=)" +
                                       kHashA + R"(">core wins</a>
<a href="x-3.whl" data-dist-info-metadata=" sha256=)" +
                                       kHashA + R"( ">PEP 658</a>
<a href="x-4.whl" data-core-metadata="md5=abc">another algorithm: offered, unchecked</a>
<a href="x-5.whl" data-core-metadata="sha256=xyz">a corrupt hash: not offered</a>
<a href="x-6.whl" data-core-metadata="false">no</a>
<a href="x-7.whl" data-core-metadata>no value</a>
<a href="x-8.whl">none</a>)");
  ASSERT_EQ(links.size(), 8u);
  EXPECT_EQ(links[0].core_metadata, kHashLower);
  EXPECT_EQ(links[1].core_metadata, "");
  EXPECT_EQ(links[2].core_metadata, kHashA);
  EXPECT_EQ(links[3].core_metadata, "");
  for (std::size_t i = 4; i < links.size(); ++i)
    EXPECT_EQ(links[i].core_metadata, std::nullopt) << links[i].filename;
}

TEST(SimpleHtml, HashFragments) {
  std::vector<IndexLink> links = parse(R"(
<a href="x-1.whl#sha256=)" + kHashUpper +
                                       R"(">upper-case hex</a>
<a href="x-2.whl#md5=0123456789abcdef0123456789abcdef">md5 is not kept</a>
<a href="x-3.whl#sha256=xyz">invalid hex</a>
<a href="x-4.whl#sha256=)" + kHashA + R"(0">65 digits</a>
<a href="x-5.whl#egg=x&amp;sha256=)" + kHashA +
                                       R"(">after another key</a>
<a href="x-6.whl#sha512=)" + std::string(128, 'b') +
                                       R"(">sha512 is not kept</a>
<a href="x-7.whl#sha256=)" + kHashA +
                                       "&sha256=" + kHashLower + R"(">the first decides</a>
<a href="x-8.whl#">empty fragment</a>
<a href="x-9.whl#SHA256=)" + kHashA + R"(">names are lower-case</a>)");
  ASSERT_EQ(links.size(), 9u);
  EXPECT_EQ(links[0].sha256, kHashLower);
  EXPECT_EQ(links[1].sha256, std::nullopt);
  EXPECT_EQ(links[2].sha256, std::nullopt);
  EXPECT_EQ(links[3].sha256, std::nullopt);
  EXPECT_EQ(links[4].sha256, kHashA);
  EXPECT_EQ(links[5].sha256, std::nullopt);
  EXPECT_EQ(links[6].sha256, kHashA);
  EXPECT_EQ(links[7].sha256, std::nullopt);
  EXPECT_EQ(links[8].sha256, std::nullopt);
  for (const IndexLink& link : links) {
    EXPECT_EQ(link.url.find('#'), std::string::npos) << link.url;
  }
}

TEST(SimpleHtml, UnsafeFileNamesAreSkipped) {
  std::vector<IndexLink> links = parse(R"(
<a href="..%2F..%2F.bashrc">encoded slashes</a>
<a href="a%5Cb.whl">encoded backslash</a>
<a href="%2E%2E">encoded dot-dot</a>
<a href="%2e">encoded dot</a>
<a href="x%00.whl">NUL</a>
<a href="x%0A.whl">newline</a>
<a href="x%7F.whl">DEL</a>
<a href="https://host">no path</a>
<a href="ok%20name.whl">a space is fine</a>
<a href="caf%C3%A9-1.whl">so is UTF-8</a>)");
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].filename, "ok name.whl");
  EXPECT_EQ(links[0].url, "https://example.org/simple/pkg/ok%20name.whl");
  EXPECT_EQ(links[1].filename, "caf\xC3\xA9-1.whl");
}

TEST(SimpleHtml, UnsafeUrlBytesAreEncoded) {
  std::vector<IndexLink> links = parse("<a href=\"dir x/\xC3\xA9 <1>|`^{}.whl\">x</a>");
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].url,
            "https://example.org/simple/pkg/dir%20x/%C3%A9%20%3C1%3E%7C%60%5E%7B%7D.whl");
  EXPECT_EQ(links[0].filename, "\xC3\xA9 <1>|`^{}.whl");
}

TEST(SimpleHtml, EmptyAndLinklessPages) {
  EXPECT_TRUE(parse("").empty());
  EXPECT_TRUE(parse("no markup at all").empty());
  EXPECT_TRUE(parse("<").empty());
  EXPECT_TRUE(parse("<html><body></body></html>").empty());
}

TEST(SimpleHtml, DuplicatesAreKeptInDocumentOrder) {
  EXPECT_EQ(filenames(parse(R"(<a href="b.whl"></a><a href="a.whl"></a><a href="b.whl"></a>)")),
            (std::vector<std::string>{"b.whl", "a.whl", "b.whl"}));
}

}  // namespace
}  // namespace flashfit::resolve
