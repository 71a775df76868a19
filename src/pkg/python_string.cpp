#include "pkg/python_string.hpp"

#include <fmt/format.h>

namespace flashfit::pkg::detail {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

tl::unexpected<LiteralError> fail(std::size_t offset, std::string message) {
  return tl::unexpected<LiteralError>(LiteralError{offset, std::move(message)});
}

}  // namespace

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

tl::expected<std::string, LiteralError> decode_python_string(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  std::size_t i = 0;
  while (i < body.size()) {
    const char c = body[i];
    // compile() refuses NUL anywhere in source; a raw line break ends a
    // single-quoted Python string before its closing quote.
    if (c == '\0') return fail(i, "a NUL character is not allowed");
    if (c == '\n' || c == '\r') return fail(i, "a line break is not allowed");
    if (c != '\\') {
      out += c;
      ++i;
      continue;
    }
    const std::size_t start = i;
    if (i + 1 >= body.size()) {
      // In Python source this backslash escapes the closing quote.
      return fail(start, "it ends with a backslash, which escapes the closing quote");
    }
    const char e = body[i + 1];
    i += 2;
    switch (e) {
      case '\\':
        out += '\\';
        continue;
      case '\'':
        out += '\'';
        continue;
      case '"':
        out += '"';
        continue;
      case 'a':
        out += '\a';
        continue;
      case 'b':
        out += '\b';
        continue;
      case 'f':
        out += '\f';
        continue;
      case 'n':
        out += '\n';
        continue;
      case 'r':
        out += '\r';
        continue;
      case 't':
        out += '\t';
        continue;
      case 'v':
        out += '\v';
        continue;
      case '\n':
        continue;  // line continuation
      case '\r':
        if (i < body.size() && body[i] == '\n') ++i;
        continue;
      default:
        break;
    }
    if (e >= '0' && e <= '7') {
      // Up to three octal digits; Python 3.11 allows values up to 0o777.
      char32_t value = static_cast<char32_t>(e - '0');
      for (int n = 1; n < 3 && i < body.size() && body[i] >= '0' && body[i] <= '7'; ++n, ++i) {
        value = value * 8 + static_cast<char32_t>(body[i] - '0');
      }
      append_utf8(out, value);
      continue;
    }
    if (e == 'x' || e == 'u' || e == 'U') {
      const std::size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
      char32_t value = 0;
      for (std::size_t n = 0; n < digits; ++n) {
        const int h = i + n < body.size() ? hex_value(body[i + n]) : -1;
        if (h < 0) {
          return fail(start, fmt::format("truncated \\{}{} escape: it needs {} hex digits", e,
                                         std::string(digits, 'X'), digits));
        }
        value = value * 16 + static_cast<char32_t>(h);
      }
      i += digits;
      if (value > 0x10ffff) {
        return fail(start, fmt::format("escape \\{} is beyond the last Unicode code point",
                                       body.substr(start + 1, digits + 1)));
      }
      if (value >= 0xd800 && value <= 0xdfff) {
        return fail(start, fmt::format("escape \\{} is a lone surrogate, which UTF-8 cannot hold",
                                       body.substr(start + 1, digits + 1)));
      }
      append_utf8(out, value);
      continue;
    }
    if (e == 'N') {
      return fail(start, "named escapes (\\N{...}) are not supported in marker strings");
    }
    // Python keeps unknown escapes as they are (with a DeprecationWarning);
    // the character after the backslash is read again as ordinary text.
    out += '\\';
    i = start + 1;
  }
  return out;
}

}  // namespace flashfit::pkg::detail
