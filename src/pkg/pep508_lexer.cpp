#include "pkg/pep508_lexer.hpp"

#include <fmt/format.h>

#include <array>

#include "pkg/python_string.hpp"
#include "pkg/version_grammar.hpp"
#include "util/strings.hpp"

namespace flashfit::pkg::detail {
namespace {

// Case-insensitive literal at `i` (the specifier regex is IGNORECASE).
bool match_word_ci(std::string_view s, std::size_t i, std::string_view word) {
  if (s.size() - i < word.size()) return false;
  for (std::size_t k = 0; k < word.size(); ++k) {
    if (to_lower(s[i + k]) != word[k]) return false;
  }
  return true;
}

std::size_t skip_digits(std::string_view s, std::size_t i) {
  while (i < s.size() && is_digit(s[i])) ++i;
  return i;
}

bool separator_at(std::string_view s, std::size_t i) {
  return i < s.size() && is_separator(s[i]);
}

constexpr std::size_t kNone = std::string_view::npos;

// `[-_\.]?(word1|word2|...)[-_\.]?[0-9]*`, trying the words in regex order;
// the optional leading separator is given back when no word follows it.
template <std::size_t N>
std::size_t match_letter_segment(std::string_view s, std::size_t i,
                                 const std::array<std::string_view, N>& words) {
  for (const std::size_t start : {separator_at(s, i) ? i + 1 : kNone, i}) {
    if (start == kNone) continue;
    for (const auto word : words) {
      if (!match_word_ci(s, start, word)) continue;
      std::size_t j = start + word.size();
      if (separator_at(s, j)) ++j;
      return skip_digits(s, j);
    }
  }
  return kNone;
}

constexpr std::array<std::string_view, 8> kPreWords = {"alpha", "beta", "preview", "pre",
                                                       "a",     "b",    "c",       "rc"};
constexpr std::array<std::string_view, 3> kPostWords = {"post", "rev", "r"};
constexpr std::array<std::string_view, 1> kDevWords = {"dev"};

// `\s* v? (?:[0-9]+!)? [0-9]+ (?:\.[0-9]+)*` with at least `min_dots` dotted parts.
std::size_t match_release(std::string_view s, std::size_t i, int min_dots) {
  while (i < s.size() && is_py_space(s[i])) ++i;
  if (i < s.size() && to_lower(s[i]) == 'v') ++i;
  const std::size_t epoch_end = skip_digits(s, i);
  // The epoch is taken only if a release follows it; otherwise the regex
  // backtracks and reads the digits as the release.
  for (const std::size_t start :
       {epoch_end > i && epoch_end < s.size() && s[epoch_end] == '!' ? epoch_end + 1 : kNone, i}) {
    if (start == kNone) continue;
    std::size_t j = skip_digits(s, start);
    if (j == start) continue;
    int dots = 0;
    while (j + 1 < s.size() && s[j] == '.' && is_digit(s[j + 1])) {
      j = skip_digits(s, j + 1);
      ++dots;
    }
    if (dots >= min_dots) return j;
  }
  return kNone;
}

// The optional pre, post and dev segments shared by every non-=== operator.
std::size_t match_suffixes(std::string_view s, std::size_t i) {
  if (const auto j = match_letter_segment(s, i, kPreWords); j != kNone) i = j;
  if (i + 1 < s.size() && s[i] == '-' && is_digit(s[i + 1])) {
    i = skip_digits(s, i + 1);
  } else if (const auto j = match_letter_segment(s, i, kPostWords); j != kNone) {
    i = j;
  }
  if (const auto j = match_letter_segment(s, i, kDevWords); j != kNone) i = j;
  return i;
}

std::size_t match_local(std::string_view s, std::size_t i) {
  if (i >= s.size() || s[i] != '+' || i + 1 >= s.size() || !is_alnum(s[i + 1])) return i;
  std::size_t j = i + 1;
  while (j < s.size() && is_alnum(s[j])) ++j;
  while (separator_at(s, j) && j + 1 < s.size() && is_alnum(s[j + 1])) {
    ++j;
    while (j < s.size() && is_alnum(s[j])) ++j;
  }
  return j;
}

// After == and !=: wildcard or pre/post/dev plus a local label.
std::size_t match_equality_version(std::string_view s, std::size_t i) {
  i = match_release(s, i, 0);
  if (i == kNone) return kNone;
  if (i + 1 < s.size() && s[i] == '.' && s[i + 1] == '*') return i + 2;
  return match_local(s, match_suffixes(s, i));
}

// After ===: `\s*[^\s;)]*`, kept to ASCII (see the header).
std::size_t match_arbitrary_version(std::string_view s, std::size_t i) {
  while (i < s.size() && is_py_space(s[i])) ++i;
  while (i < s.size() && !is_py_space(s[i]) && s[i] != ';' && s[i] != ')' &&
         static_cast<unsigned char>(s[i]) < 0x80) {
    ++i;
  }
  return i;
}

}  // namespace

bool is_word_byte(char c) {
  return is_alnum(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

std::size_t match_specifier_token(std::string_view s, std::size_t pos) {
  const auto rest = s.substr(pos);
  std::size_t end = kNone;
  if (util::starts_with(rest, "~=")) {
    const auto i = match_release(s, pos + 2, 1);
    end = i == kNone ? kNone : match_suffixes(s, i);
  } else if (util::starts_with(rest, "==")) {
    // The operator alternation tries "==" first and falls back to "===".
    end = match_equality_version(s, pos + 2);
    if (end == kNone && util::starts_with(rest, "===")) end = match_arbitrary_version(s, pos + 3);
  } else if (util::starts_with(rest, "!=")) {
    end = match_equality_version(s, pos + 2);
  } else if (!rest.empty() && (rest[0] == '<' || rest[0] == '>')) {
    const std::size_t op_length = rest.size() > 1 && rest[1] == '=' ? 2 : 1;
    const auto i = match_release(s, pos + op_length, 0);
    end = i == kNone ? kNone : match_suffixes(s, i);
  }
  return end == kNone ? 0 : end - pos;
}

std::size_t invalid_utf8_offset(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xbf;
    if (b < 0x80) {
      ++i;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      length = 2;
    } else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b == 0xe0) low = 0xa0;   // no overlong forms
      if (b == 0xed) high = 0x9f;  // no surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b == 0xf0) low = 0x90;
      if (b == 0xf4) high = 0x8f;  // nothing beyond U+10FFFF
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if (c < (k == 1 ? low : 0x80) || c > (k == 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

util::Result<void> Pep508Lexer::check_utf8() const {
  const std::size_t bad = invalid_utf8_offset(text_);
  if (bad == std::string_view::npos) return {};
  return tl::unexpected(error(fmt::format("invalid UTF-8 byte 0x{:02x} at column {}",
                                          static_cast<unsigned char>(text_[bad]), column(bad))));
}

bool Pep508Lexer::at_end() const {
  return pos_ == text_.size() || (pos_ + 1 == text_.size() && text_[pos_] == '\n');
}

bool Pep508Lexer::skip_whitespace() {
  const std::size_t start = pos_;
  while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  return pos_ != start;
}

bool Pep508Lexer::accept(char c) {
  if (!peek(c)) return false;
  ++pos_;
  return true;
}

static std::size_t identifier_length(std::string_view s, std::size_t pos) {
  if (pos >= s.size() || !is_alnum(s[pos])) return 0;
  if (pos > 0 && is_word_byte(s[pos - 1])) return 0;  // leading \b
  std::size_t greedy = pos + 1;
  while (greedy < s.size() &&
         (is_alnum(s[greedy]) || s[greedy] == '.' || s[greedy] == '_' || s[greedy] == '-')) {
    ++greedy;
  }
  // The regex backtracks from the greedy end to the longest prefix that ends
  // on a word boundary.
  for (std::size_t end = greedy; end > pos; --end) {
    const bool after = end < s.size() && is_word_byte(s[end]);
    if (is_word_byte(s[end - 1]) != after) return end - pos;
  }
  return 0;
}

bool Pep508Lexer::peek_identifier() const {
  return identifier_length(text_, pos_) != 0;
}

std::optional<std::string_view> Pep508Lexer::identifier() {
  const std::size_t length = identifier_length(text_, pos_);
  if (length == 0) return std::nullopt;
  const auto token = text_.substr(pos_, length);
  pos_ += length;
  return token;
}

std::optional<std::string_view> Pep508Lexer::version_specifier() {
  const std::size_t length = match_specifier_token(text_, pos_);
  if (length == 0) return std::nullopt;
  const auto token = text_.substr(pos_, length);
  pos_ += length;
  return token;
}

std::optional<std::string_view> Pep508Lexer::url() {
  std::size_t end = pos_;
  while (end < text_.size() && text_[end] != ' ' && text_[end] != '\t') ++end;
  if (end == pos_) return std::nullopt;
  const auto token = text_.substr(pos_, end - pos_);
  pos_ = end;
  return token;
}

bool Pep508Lexer::keyword(std::string_view word) {
  if (!util::starts_with(text_.substr(pos_), word)) return false;
  if (pos_ > 0 && is_word_byte(text_[pos_ - 1])) return false;
  const std::size_t end = pos_ + word.size();
  if (end < text_.size() && is_word_byte(text_[end])) return false;
  pos_ = end;
  return true;
}

std::optional<std::string> Pep508Lexer::variable() {
  // In the order of packaging's VARIABLE alternation; none is a prefix of
  // another, so the first literal match is the only candidate.
  static constexpr std::array<std::string_view, 18> kSpellings = {"python_version",
                                                                  "python_full_version",
                                                                  "os_name",
                                                                  "os.name",
                                                                  "sys_platform",
                                                                  "sys.platform",
                                                                  "platform_release",
                                                                  "platform_system",
                                                                  "platform_version",
                                                                  "platform.version",
                                                                  "platform_machine",
                                                                  "platform.machine",
                                                                  "platform_python_implementation",
                                                                  "platform.python_implementation",
                                                                  "python_implementation",
                                                                  "implementation_name",
                                                                  "implementation_version",
                                                                  "extra"};
  for (const auto spelling : kSpellings) {
    if (!keyword(spelling)) continue;
    if (spelling == "python_implementation") return std::string("platform_python_implementation");
    std::string name(spelling);
    for (auto& c : name) {
      if (c == '.') c = '_';
    }
    return name;
  }
  return std::nullopt;
}

std::optional<std::string_view> Pep508Lexer::comparison_operator() {
  for (const std::string_view op : {"===", "==", "~=", "!=", "<=", ">=", "<", ">"}) {
    if (util::starts_with(text_.substr(pos_), op)) {
      pos_ += op.size();
      return op;
    }
  }
  return std::nullopt;
}

util::Result<std::optional<std::string>> Pep508Lexer::quoted_string() {
  if (!peek('\'') && !peek('"')) return std::optional<std::string>{};
  const char quote = text_[pos_];
  const std::size_t close = text_.find(quote, pos_ + 1);
  if (close == std::string_view::npos) {
    return tl::unexpected(error(fmt::format(
        "unterminated quoted string at column {}: no closing {}", column(pos_), quote)));
  }
  const std::size_t body_start = pos_ + 1;
  auto decoded = decode_python_string(text_.substr(body_start, close - body_start));
  if (!decoded) {
    return tl::unexpected(
        error(fmt::format("invalid quoted string at column {}: {}",
                          column(body_start + decoded.error().offset), decoded.error().message)));
  }
  pos_ = close + 1;
  return std::optional<std::string>(std::move(*decoded));
}

std::size_t Pep508Lexer::column(std::size_t offset) const {
  std::size_t column = 1;
  for (std::size_t i = 0; i < offset && i < text_.size(); ++i) {
    if ((static_cast<unsigned char>(text_[i]) & 0xc0) != 0x80) ++column;
  }
  return column;
}

std::string Pep508Lexer::found_at(std::size_t offset) const {
  if (offset >= text_.size()) return "end of input";
  std::size_t end = offset + 1;
  while (end < text_.size() && end - offset < 20 && text_[end] != ' ' && text_[end] != '\t') ++end;
  return "'" + util::printable(text_.substr(offset, end - offset), 40) + "'";
}

std::string_view Pep508Lexer::word_at(std::size_t offset) const {
  std::size_t end = offset;
  while (end < text_.size() &&
         (is_alnum(text_[end]) || text_[end] == '.' || text_[end] == '_' || text_[end] == '-')) {
    ++end;
  }
  return text_.substr(offset, end - offset);
}

util::Error Pep508Lexer::expected(std::size_t offset, std::string_view what,
                                  std::string hint) const {
  return error(
      fmt::format("expected {} at column {}, found {}", what, column(offset), found_at(offset)),
      std::move(hint));
}

util::Error Pep508Lexer::error(std::string message, std::string hint) const {
  return util::Error{util::ErrorKind::input, std::move(message),
                     fmt::format("{} '{}'", what_, util::printable(text_)), std::move(hint)};
}

}  // namespace flashfit::pkg::detail
