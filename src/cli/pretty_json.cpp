#include "cli/pretty_json.hpp"

#include <fmt/format.h>

namespace flashfit::cli {

void PrettyJson::indent() {
  out_.append(static_cast<std::size_t>(depth_) * 2, ' ');
}

void PrettyJson::before_value() {
  if (after_key_) {  // the key wrote the separator and the indentation
    after_key_ = false;
    return;
  }
  if (empty_.empty()) return;  // the top-level value
  out_ += empty_.back() ? "\n" : ",\n";
  empty_.back() = false;
  indent();
}

void PrettyJson::open(char bracket) {
  before_value();
  out_ += bracket;
  empty_.push_back(true);
  ++depth_;
}

void PrettyJson::close(char bracket) {
  --depth_;
  if (!empty_.back()) {
    out_ += '\n';
    indent();
  }
  empty_.pop_back();
  out_ += bracket;
}

void PrettyJson::key(std::string_view name) {
  before_value();
  escaped(name);
  out_ += ": ";
  after_key_ = true;
}

void PrettyJson::value(std::string_view text) {
  before_value();
  escaped(text);
}

void PrettyJson::value(bool flag) {
  before_value();
  out_ += flag ? "true" : "false";
}

void PrettyJson::null() {
  before_value();
  out_ += "null";
}

void PrettyJson::any(const nlohmann::json& value) {
  before_value();
  std::string text = value.dump(2);
  // Re-indent nested lines to this depth (dump starts at depth 0).
  std::string pad = "\n" + std::string(static_cast<std::size_t>(depth_) * 2, ' ');
  for (char c : text) {
    if (c == '\n') {
      out_ += pad;
    } else {
      out_ += c;
    }
  }
}

namespace {

// The length of the well-formed UTF-8 sequence starting at text[i]; 0 when
// there is none (a stray continuation byte, an overlong form, a surrogate, a
// code point past U+10FFFF, a truncated sequence).
std::size_t utf8_length(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size() || byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

// As nlohmann's serializer escapes with ensure_ascii off: the two JSON
// specials, the short forms it uses, \u00xx (lower-case hex) for the other
// control characters; well-formed UTF-8 as it is. Where its dump throws on
// a byte that is not UTF-8 (a file name from a hostile index page), this
// writes U+FFFD for it, so the output stays valid JSON.
void PrettyJson::escaped(std::string_view text) {
  out_ += '"';
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      const std::size_t length = utf8_length(text, i);
      if (length == 0) {
        out_ += "\xEF\xBF\xBD";
      } else {
        out_.append(text.substr(i, length));
        i += length - 1;
      }
      continue;
    }
    switch (c) {
      case '"':
        out_ += "\\\"";
        break;
      case '\\':
        out_ += "\\\\";
        break;
      case '\b':
        out_ += "\\b";
        break;
      case '\f':
        out_ += "\\f";
        break;
      case '\n':
        out_ += "\\n";
        break;
      case '\r':
        out_ += "\\r";
        break;
      case '\t':
        out_ += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out_ += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out_ += c;
        }
    }
  }
  out_ += '"';
}

}  // namespace flashfit::cli
