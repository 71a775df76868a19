#pragma once
// Internal to pkg/: one hand-written scanner for the PEP 440 grammar, shared
// by Version (VERSION_PATTERN) and Specifier (its per-operator variants), so
// both accept exactly the same spellings as packaging 23.0's regexes.
//
// The regexes are backtracking, but for this grammar a greedy left-to-right
// scan accepts the same strings and captures the same values: every optional
// piece either cannot start where another one could, or (a separator and
// digits after a letter) taking it greedily leaves the rest at least as
// matchable as not taking it. The differential tests hold us to that claim.

#include <cstddef>
#include <string>
#include <string_view>

namespace flashfit::pkg::detail {

// Python's `\s` and str.strip() on ASCII: the usual six plus the four
// information separators 0x1c..0x1f, which Python counts as whitespace.
constexpr bool is_py_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}
constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
constexpr bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr bool is_alnum(char c) {
  return is_digit(c) || is_alpha(c);
}
constexpr bool is_separator(char c) {
  return c == '-' || c == '_' || c == '.';
}
constexpr char to_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string_view strip_py_space(std::string_view text);

// Digit strings as unbounded integers: leading zeros dropped ("" and "000" -> "0").
std::string normalize_number(std::string_view digits);
// Compares two normalised digit strings numerically (-1, 0, 1).
int compare_numbers(std::string_view a, std::string_view b);

enum class PreKind { alpha, beta, rc };  // ordered as packaging orders "a" < "b" < "rc"

struct GrammarOptions {
  bool allow_local = true;              // a "+label" suffix
  bool allow_wildcard = false;          // a ".*" right after the release (== and != only)
  std::size_t min_release = 1;          // ~= needs two release segments
  const char* operator_name = nullptr;  // for messages when called for a specifier
};

// What the scan found; the views point into the scanned text.
struct Scanned {
  std::size_t begin = 0;  // the version text, surrounding whitespace excluded
  std::size_t end = 0;
  std::string_view epoch;    // digits, empty when absent
  std::string_view release;  // "1.2.3": digit runs joined by '.' (no vector: parsing is hot)
  std::size_t release_count = 0;
  bool has_pre = false;
  PreKind pre_kind = PreKind::alpha;
  std::string_view pre_number;  // may be empty: an implicit 0
  bool has_post = false;
  std::string_view post_number;
  bool has_dev = false;
  std::string_view dev_number;
  bool wildcard = false;
  std::string_view local;  // the raw label after '+', empty when absent
};

struct ScanError {
  std::size_t position = 0;
  std::string message;
};

// Scans text[start..] as optional whitespace, a version, optional whitespace
// and the end of the text. Assumes the caller has rejected non-ASCII bytes.
// Returns false and fills `error` when the text does not match.
bool scan_version(std::string_view text, std::size_t start, const GrammarOptions& options,
                  Scanned& out, ScanError& error);

// 'text', made safe by util::printable, for error messages. (Built by
// appending: GCC 12's -Wrestrict misfires on "'" + std::string(...).)
std::string quote(std::string_view text);

// Shared by every parser for input a user typed: NUL and non-ASCII bytes get
// their own message (the grammar is ASCII). Returns false and fills `error`.
bool check_ascii(std::string_view text, std::string_view what, ScanError& error);

}  // namespace flashfit::pkg::detail
