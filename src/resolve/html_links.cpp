// The HTML5 tokenizer's data, tag-open, tag-name and attribute states, reduced
// to what finding links needs. Every state moves forward only: a tag or
// comment cut off by the end of input ends the scan instead of being rescanned,
// which is both what browsers do and what keeps "<a<a<a..." linear.
#include "resolve/html_links.hpp"

#include <array>
#include <cstdint>

namespace flashfit::resolve::detail {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}
bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// Tag and attribute names are compared, never stored whole: a hostile
// megabyte-long name costs one pass and no allocation.
class ShortName {
 public:
  void push(char c) {
    if (size_ < buffer_.size()) {
      buffer_[size_++] = lower(c);
    } else {
      overflow_ = true;
    }
  }
  bool is(std::string_view name) const {
    return !overflow_ && std::string_view(buffer_.data(), size_) == name;
  }

 private:
  std::array<char, 24> buffer_{};
  std::size_t size_ = 0;
  bool overflow_ = false;
};

// The attributes links need, raw (not yet decoded); the first of duplicates
// wins, as in HTML5.
struct Tag {
  ShortName name;
  std::optional<std::string_view> href;
  std::optional<std::string_view> requires_python;
  std::optional<std::string_view> yanked;
  std::optional<std::string_view> core_metadata;       // PEP 714's name
  std::optional<std::string_view> dist_info_metadata;  // PEP 658's, read when the other is absent
};

// Elements whose content is text, not markup (HTML5 raw text and RCDATA).
// Links inside them are not links. <plaintext> never ends.
constexpr std::array<std::string_view, 8> kRawTextElements = {
    "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"};

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  HtmlAnchors run() {
    HtmlAnchors result;
    while (pos_ < text_.size()) {
      std::size_t open = text_.find('<', pos_);
      if (open == std::string_view::npos) break;
      pos_ = open + 1;
      if (pos_ >= text_.size()) break;
      char next = text_[pos_];
      if (next == '!') {
        ++pos_;
        if (text_.substr(pos_, 2) == "--") {
          pos_ += 2;
          skip_comment();
        } else {
          skip_past('>');  // <!doctype ...>, <![CDATA[...]]>: bogus comments
        }
      } else if (next == '?') {
        skip_past('>');
      } else if (next == '/') {
        ++pos_;
        if (pos_ < text_.size() && is_alpha(text_[pos_])) {
          if (!read_tag()) break;  // end tag: its attributes only matter for where it ends
        } else if (pos_ < text_.size() && text_[pos_] == '>') {
          ++pos_;  // "</>" is ignored
        } else {
          skip_past('>');
        }
      } else if (is_alpha(next)) {
        std::optional<Tag> tag = read_tag();
        if (!tag) break;  // cut off by the end of input: dropped
        if (!take(*tag, result)) break;
      }
      // Otherwise the '<' was text; carry on after it.
    }
    return result;
  }

 private:
  // Keeps what an <a> or <base> tag says; false when the rest is plain text.
  bool take(const Tag& tag, HtmlAnchors& result) {
    if (tag.name.is("a")) {
      if (tag.href) {
        RawAnchor anchor;
        anchor.href = decode_html_entities(*tag.href);
        if (tag.requires_python)
          anchor.requires_python = decode_html_entities(*tag.requires_python);
        if (tag.yanked) anchor.yanked = decode_html_entities(*tag.yanked);
        if (auto metadata = tag.core_metadata ? tag.core_metadata : tag.dist_info_metadata)
          anchor.core_metadata = decode_html_entities(*metadata);
        result.anchors.push_back(std::move(anchor));
      }
    } else if (tag.name.is("base")) {
      if (tag.href && !result.base_href) result.base_href = decode_html_entities(*tag.href);
    } else if (tag.name.is("plaintext")) {
      return false;
    } else {
      for (std::string_view raw : kRawTextElements) {
        if (tag.name.is(raw)) {
          skip_raw_text(raw);
          break;
        }
      }
    }
    return true;
  }

  void skip_past(char c) {
    std::size_t at = text_.find(c, pos_);
    pos_ = at == std::string_view::npos ? text_.size() : at + 1;
  }

  // After "<!--": ends at "-->" or "--!>", or at once for "<!-->" and
  // "<!--->"; an unterminated comment runs to the end of input.
  void skip_comment() {
    std::size_t start = pos_;
    if (text_.substr(start, 1) == ">") {
      pos_ = start + 1;
      return;
    }
    if (text_.substr(start, 2) == "->") {
      pos_ = start + 2;
      return;
    }
    std::size_t at = start;
    while ((at = text_.find('>', at)) != std::string_view::npos) {
      if ((at >= start + 2 && text_.substr(at - 2, 2) == "--") ||
          (at >= start + 3 && text_.substr(at - 3, 3) == "--!")) {
        pos_ = at + 1;
        return;
      }
      ++at;
    }
    pos_ = text_.size();
  }

  // Leaves pos_ at the "</name" that closes a raw-text element (the main loop
  // then reads it as an end tag), or at the end of input.
  void skip_raw_text(std::string_view name) {
    std::size_t at = pos_;
    while ((at = text_.find("</", at)) != std::string_view::npos) {
      std::size_t after = at + 2 + name.size();
      bool matches = after <= text_.size();
      for (std::size_t i = 0; matches && i < name.size(); ++i) {
        matches = lower(text_[at + 2 + i]) == name[i];
      }
      if (matches && (after == text_.size() || is_space(text_[after]) || text_[after] == '/' ||
                      text_[after] == '>')) {
        pos_ = at;
        return;
      }
      at += 2;
    }
    pos_ = text_.size();
  }

  // From the first letter of a tag name to just past its '>'. nullopt when
  // the input ends inside the tag.
  std::optional<Tag> read_tag() {
    Tag tag;
    while (pos_ < text_.size() && !is_space(text_[pos_]) && text_[pos_] != '/' &&
           text_[pos_] != '>') {
      tag.name.push(text_[pos_++]);
    }
    while (true) {
      while (pos_ < text_.size() && (is_space(text_[pos_]) || text_[pos_] == '/')) ++pos_;
      if (pos_ >= text_.size()) return std::nullopt;
      if (text_[pos_] == '>') {
        ++pos_;
        return tag;
      }
      // Attribute name; a leading '=' belongs to the name (HTML5).
      ShortName name;
      name.push(text_[pos_++]);
      while (pos_ < text_.size() && !is_space(text_[pos_]) && text_[pos_] != '/' &&
             text_[pos_] != '>' && text_[pos_] != '=') {
        name.push(text_[pos_++]);
      }
      while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
      if (pos_ >= text_.size()) return std::nullopt;
      std::string_view value;
      if (text_[pos_] == '=') {
        ++pos_;
        while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
        if (pos_ >= text_.size()) return std::nullopt;
        char quote = text_[pos_];
        if (quote == '"' || quote == '\'') {
          std::size_t close = text_.find(quote, pos_ + 1);
          if (close == std::string_view::npos) return std::nullopt;
          value = text_.substr(pos_ + 1, close - pos_ - 1);
          pos_ = close + 1;
        } else if (quote != '>') {  // "href=>" is an empty value; '>' ends the tag next turn
          std::size_t start = pos_;
          while (pos_ < text_.size() && !is_space(text_[pos_]) && text_[pos_] != '>') ++pos_;
          if (pos_ >= text_.size()) return std::nullopt;
          value = text_.substr(start, pos_ - start);
        }
      }
      if (name.is("href") && !tag.href) tag.href = value;
      if (name.is("data-requires-python") && !tag.requires_python) tag.requires_python = value;
      if (name.is("data-yanked") && !tag.yanked) tag.yanked = value;
      if (name.is("data-core-metadata") && !tag.core_metadata) tag.core_metadata = value;
      if (name.is("data-dist-info-metadata") && !tag.dist_info_metadata)
        tag.dist_info_metadata = value;
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

int digit_value(char c, bool hex) {
  if (c >= '0' && c <= '9') return c - '0';
  if (hex && c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (hex && c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

struct NamedReference {
  std::string_view name;  // with the ';'
  std::string_view text;
};
// The references index pages use; HTML5 has two thousand more, none of which
// belong in a URL or a version specifier.
constexpr std::array<NamedReference, 10> kNamed = {{{"amp;", "&"},
                                                    {"lt;", "<"},
                                                    {"gt;", ">"},
                                                    {"quot;", "\""},
                                                    {"apos;", "'"},
                                                    {"nbsp;", "\xC2\xA0"},
                                                    {"AMP;", "&"},
                                                    {"LT;", "<"},
                                                    {"GT;", ">"},
                                                    {"QUOT;", "\""}}};

}  // namespace

HtmlAnchors scan_html_anchors(std::string_view html) {
  return Scanner(html).run();
}

std::string decode_html_entities(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '&') {
      out.push_back(text[i++]);
      continue;
    }
    std::string_view rest = text.substr(i + 1);
    if (!rest.empty() && rest[0] == '#') {
      bool hex = rest.size() > 1 && (rest[1] == 'x' || rest[1] == 'X');
      std::size_t j = hex ? 2 : 1;
      std::size_t digits_start = j;
      std::uint32_t value = 0;
      bool too_big = false;
      for (int d; j < rest.size() && (d = digit_value(rest[j], hex)) >= 0; ++j) {
        if (!too_big) value = value * (hex ? 16 : 10) + static_cast<std::uint32_t>(d);
        if (value > 0x10FFFF) too_big = true;  // keep consuming the digits
      }
      if (j > digits_start) {
        if (j < rest.size() && rest[j] == ';') ++j;
        bool surrogate = value >= 0xD800 && value <= 0xDFFF;
        append_utf8(out, (too_big || value == 0 || surrogate) ? 0xFFFD : value);
        i += 1 + j;
        continue;
      }
    } else {
      bool matched = false;
      for (const NamedReference& named : kNamed) {
        if (rest.substr(0, named.name.size()) == named.name) {
          out.append(named.text);
          i += 1 + named.name.size();
          matched = true;
          break;
        }
      }
      if (matched) continue;
    }
    out.push_back(text[i++]);  // not a reference: the '&' is literal
  }
  return out;
}

}  // namespace flashfit::resolve::detail
