#include "cli/pretty_json.hpp"

#include <array>
#include <cstdint>
#include <cstring>

namespace flashfit::cli {
namespace {

// ",\n" and the indentation for a depth up to kPadDepth, as one piece cut
// from one buffer (an append per value, not three).
constexpr int kPadDepth = 32;
constexpr std::array<char, 2 + 2 * kPadDepth> kCommaNewlinePad = [] {
  std::array<char, 2 + 2 * kPadDepth> pad{};
  pad[0] = ',';
  pad[1] = '\n';
  for (std::size_t k = 2; k < pad.size(); ++k) pad[k] = ' ';
  return pad;
}();

}  // namespace

void PrettyJson::newline(bool comma) {
  const char* from = kCommaNewlinePad.data() + (comma ? 0 : 1);
  const std::size_t line = comma ? 2 : 1;
  if (depth_ <= kPadDepth) {
    out_.append(from, line + static_cast<std::size_t>(depth_) * 2);
    return;
  }
  out_.append(from, line);
  out_.append(static_cast<std::size_t>(depth_) * 2, ' ');
}

void PrettyJson::before_value() {
  if (after_key_) {  // the key wrote the separator and the indentation
    after_key_ = false;
    return;
  }
  if (empty_.empty()) return;  // the top-level value
  newline(!empty_.back());
  empty_.back() = false;
}

void PrettyJson::open(char bracket) {
  before_value();
  out_ += bracket;
  empty_.push_back(true);
  ++depth_;
}

void PrettyJson::close(char bracket) {
  --depth_;
  if (!empty_.back()) newline(false);
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

// What a byte below 0x80 needs in a JSON string: nothing (0), a short escape
// ('"' for \", 'n' for \n, ...), or 'u' for \u00xx.
constexpr std::array<char, 0x80> kAsciiEscape = [] {
  std::array<char, 0x80> table{};
  for (std::size_t c = 0; c < 0x20; ++c) table[c] = 'u';
  table['"'] = '"';
  table['\\'] = '\\';
  table['\b'] = 'b';
  table['\f'] = 'f';
  table['\n'] = 'n';
  table['\r'] = 'r';
  table['\t'] = 't';
  return table;
}();

// Whether none of the 8 bytes at `p` needs a look of its own: each is
// printable ASCII other than '"' and '\\' (word-at-a-time tests, exact for
// "is there any such byte": a control character is one below 0x20, and
// x ^ '"' has a zero byte exactly where x has a '"').
bool plain_word(const char* p) {
  std::uint64_t w = 0;
  std::memcpy(&w, p, sizeof w);
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const auto has_zero = [](std::uint64_t x) { return (x - kOnes) & ~x & kHigh; };
  const std::uint64_t below_space = (w - kOnes * 0x20) & ~w & kHigh;
  return ((w & kHigh) | below_space | has_zero(w ^ (kOnes * '"')) | has_zero(w ^ (kOnes * '\\'))) ==
         0;
}

}  // namespace

// As nlohmann's serializer escapes with ensure_ascii off: the two JSON
// specials, the short forms it uses, \u00xx (lower-case hex) for the other
// control characters; well-formed UTF-8 as it is. Where its dump throws on
// a byte that is not UTF-8 (a file name from a hostile index page), this
// writes U+FFFD for it, so the output stays valid JSON. What needs nothing is
// appended a run at a time, not a byte at a time: resolve --all --json writes
// megabytes of file names and URLs, and the per-byte append was half its time.
void PrettyJson::escaped(std::string_view text) {
  out_ += '"';
  std::size_t run = 0;  // where the bytes not yet appended start
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.size() - i >= 8 && plain_word(text.data() + i)) {
      i += 8;
      continue;
    }
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80 && kAsciiEscape[byte] == 0) {
      ++i;
      continue;
    }
    if (byte >= 0x80) {
      // A well-formed sequence stays in the run, as it is.
      if (const std::size_t length = utf8_length(text, i); length != 0) {
        i += length;
        continue;
      }
    }
    out_.append(text.data() + run, i - run);
    if (byte >= 0x80) {
      out_ += "\xEF\xBF\xBD";
    } else if (const char form = kAsciiEscape[byte]; form != 'u') {
      const char escape[2] = {'\\', form};
      out_.append(escape, 2);
    } else {
      constexpr std::string_view kHex = "0123456789abcdef";
      const char escape[6] = {'\\', 'u', '0', '0', kHex[byte >> 4], kHex[byte & 0xF]};
      out_.append(escape, 6);
    }
    run = ++i;
  }
  out_.append(text.data() + run, text.size() - run);
  out_ += '"';
}

}  // namespace flashfit::cli
