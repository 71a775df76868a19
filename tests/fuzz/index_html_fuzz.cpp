// PEP 503 / find-links HTML pages: every link is absolute, without a
// fragment, names a file, and a hash is 64 lower-case hex digits.
#include "fuzz_common.hpp"
#include "resolve/html_links.hpp"
#include "resolve/index_page.hpp"

namespace {
bool is_sha256_hex(const std::string& text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::resolve;
  const auto text = flashfit::fuzz::as_text(data, size);
  const detail::HtmlAnchors anchors = detail::scan_html_anchors(text);  // never fails
  (void)anchors;
  (void)detail::decode_html_entities(text);
  auto links = parse_simple_html(text, "https://index.example/simple/flash-attn/");
  if (!links) return 0;
  for (const IndexLink& link : *links) {
    FUZZ_CHECK(flashfit::fuzz::fetchable_url(link.url), "not absolute: " + link.url);
    FUZZ_CHECK(link.url.find('#') == std::string::npos, "fragment kept: " + link.url);
    FUZZ_CHECK(link.filename.find('/') == std::string::npos, "filename with '/': " + link.filename);
    if (link.sha256) FUZZ_CHECK(is_sha256_hex(*link.sha256), "bad sha256: " + *link.sha256);
    // The METADATA file's hash: none ("") or a checkable one, never a malformed one.
    if (link.core_metadata && !link.core_metadata->empty())
      FUZZ_CHECK(is_sha256_hex(*link.core_metadata), "bad metadata sha256: " + *link.core_metadata);
  }
  return 0;
}
