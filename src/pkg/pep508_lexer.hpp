#pragma once
// Internal to pkg/: the tokens of PEP 508 dependency specifiers, recognised
// exactly as packaging 23.0's tokenizer (_tokenizer.py) recognises them,
// including its regex quirks (word boundaries, `$` before a final newline,
// the specifier token's backtracking), so that requirement.cpp and
// marker_parser.cpp can follow packaging's grammar token for token.
//
// One deliberate narrowing: outside URLs and quoted strings every token is
// ASCII. packaging's regexes are Unicode-aware there (`\s` matches U+00A0,
// IGNORECASE folds U+017F to 's', `===` takes any non-space), and flashfit
// rejects such input instead.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace flashfit::pkg::detail {

class Pep508Lexer {
 public:
  // `what` names the input in errors ("requirement", "marker").
  Pep508Lexer(std::string_view text, std::string_view what) : text_(text), what_(what) {}

  std::string_view text() const { return text_; }
  // Python strings are always valid Unicode; bytes that are not UTF-8 are
  // refused up front so that values and messages stay well-formed.
  util::Result<void> check_utf8() const;
  std::size_t position() const { return pos_; }

  // packaging's END (`$`): the end, or only a final '\n' left.
  bool at_end() const;
  // WS: one or more spaces or tabs.
  bool skip_whitespace();
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool accept(char c);

  // IDENTIFIER: \b[a-zA-Z0-9][a-zA-Z0-9._-]*\b (trailing '.' and '-' are left).
  std::optional<std::string_view> identifier();
  // Whether an identifier starts here, without consuming it.
  bool peek_identifier() const;
  // SPECIFIER: one PEP 440 operator and version as packaging's Specifier regex
  // matches it (whitespace may follow the operator).
  std::optional<std::string_view> version_specifier();
  // URL: [^ \t]+
  std::optional<std::string_view> url();
  // A keyword with word boundaries on both sides (`\band\b`).
  bool keyword(std::string_view word);
  // VARIABLE, normalised as packaging does: '.' becomes '_' and
  // python_implementation becomes platform_python_implementation.
  std::optional<std::string> variable();
  // OP: === == ~= != <= >= < >
  std::optional<std::string_view> comparison_operator();
  // QUOTED_STRING, decoded as Python's ast.literal_eval decodes it. nullopt
  // when no quote starts here; an error when the string is unterminated or
  // its escapes are invalid.
  util::Result<std::optional<std::string>> quoted_string();

  // 1-based column of a byte offset, counted in characters (UTF-8 aware).
  std::size_t column(std::size_t offset) const;
  // What stands at `offset`, for "found ..." in messages: "end of input" or a
  // short quoted excerpt.
  std::string found_at(std::size_t offset) const;
  // The word-like text at `offset` (letters, digits, '.', '_', '-').
  std::string_view word_at(std::size_t offset) const;
  // "expected <what> at column N, found <what is there>".
  util::Error expected(std::size_t offset, std::string_view what, std::string hint = {}) const;
  // An input error with the whole input as context; the message names its column.
  util::Error error(std::string message, std::string hint = {}) const;

 private:
  std::string_view text_;
  std::string_view what_;
  std::size_t pos_ = 0;
};

// Length of a SPECIFIER token at `pos`, or 0 when none matches there.
std::size_t match_specifier_token(std::string_view text, std::size_t pos);

// Python's `\w` restricted to what can matter here: ASCII letters, digits,
// '_', and any non-ASCII byte (Unicode letters are word characters too).
bool is_word_byte(char c);

// Offset of the first byte that breaks UTF-8, or npos when `text` is valid.
std::size_t invalid_utf8_offset(std::string_view text);

}  // namespace flashfit::pkg::detail
