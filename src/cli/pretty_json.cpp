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

// As nlohmann's serializer escapes with ensure_ascii off: the two JSON
// specials, the short forms it uses, \u00xx (lower-case hex) for the other
// control characters; every other byte as it is.
void PrettyJson::escaped(std::string_view text) {
  out_ += '"';
  for (char c : text) {
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
