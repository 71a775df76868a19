#pragma once
// Internal to pkg/: decoding the body of a quoted string in a PEP 508 marker
// the way packaging 23.0 does it, which is ast.literal_eval on the quoted
// text. So Python's escapes apply: "\x41" is "A" and "\n" is a newline.

#include <cstddef>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

namespace flashfit::pkg::detail {

struct LiteralError {
  std::size_t offset = 0;  // into the body
  std::string message;
};

// `body` is the text between the quotes (it cannot contain the quote itself,
// since the tokenizer ends the string at the first matching quote). Returns
// the decoded value as UTF-8.
//
// Narrower than Python on purpose: "\N{NAME}" (needs the Unicode name
// database) and escapes that produce a lone surrogate ("\ud800", which UTF-8
// cannot hold) are refused.
tl::expected<std::string, LiteralError> decode_python_string(std::string_view body);

// Appends the UTF-8 encoding of a code point below 0x110000.
void append_utf8(std::string& out, char32_t code_point);

}  // namespace flashfit::pkg::detail
