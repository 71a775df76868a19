#pragma once
// A small, lenient HTML tokenizer that finds <a> and <base> start tags, for
// index and find-links pages. It follows the HTML5 tokenizer's states closely
// enough that every real index page parses as a browser would, and it never
// looks at a byte twice, so hostile pages cost linear time.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flashfit::resolve::detail {

// One <a> start tag with an href; attribute values are entity-decoded.
struct RawAnchor {
  std::string href;
  std::optional<std::string> requires_python;  // data-requires-python
  std::optional<std::string> yanked;           // data-yanked: present (value may be empty)
  // data-core-metadata, else data-dist-info-metadata (PEP 714, 658): "true" or "sha256=<hex>".
  std::optional<std::string> core_metadata;
};

struct HtmlAnchors {
  std::optional<std::string> base_href;  // the first <base href=...> anywhere in the page
  std::vector<RawAnchor> anchors;        // in document order
};

// Comments, <!doctype>, <?...>, end tags and the contents of raw-text elements
// (script, style, textarea, title, ...) are skipped. A tag cut off by the end
// of input is dropped, as in HTML5. Never fails.
HtmlAnchors scan_html_anchors(std::string_view html);

// Decodes character references in an attribute value: the named &amp; &lt;
// &gt; &quot; &apos; &nbsp; (semicolon required) and numeric &#NN; / &#xHH;
// (semicolon optional). Unknown or malformed references are left as written;
// code points that are not Unicode scalar values become U+FFFD.
std::string decode_html_entities(std::string_view text);

}  // namespace flashfit::resolve::detail
