#include "pkg/version_grammar.hpp"

#include <array>

#include "util/strings.hpp"

namespace flashfit::pkg::detail {

std::string_view strip_py_space(std::string_view text) {
  while (!text.empty() && is_py_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_py_space(text.back())) text.remove_suffix(1);
  return text;
}

std::string normalize_number(std::string_view digits) {
  std::size_t first = 0;
  while (first < digits.size() && digits[first] == '0') ++first;
  if (first == digits.size()) return "0";
  return std::string(digits.substr(first));
}

int compare_numbers(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::string quote(std::string_view text) {
  std::string out(1, '\'');
  out += util::printable(text);
  out += '\'';
  return out;
}

bool check_ascii(std::string_view text, std::string_view what, ScanError& error) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == 0) {
      error = {i, "embedded NUL byte at position " + std::to_string(i)};
      return false;
    }
    if (byte >= 0x80) {
      error = {i, "non-ASCII byte " + util::printable(text.substr(i, 1)) + " at position " +
                      std::to_string(i) + "; " + std::string(what) + " must be ASCII"};
      return false;
    }
  }
  return true;
}

namespace {

// Case-insensitive match of a lower-case word at text[pos..].
bool word_at(std::string_view text, std::size_t pos, std::string_view word) {
  if (pos + word.size() > text.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (to_lower(text[pos + i]) != word[i]) return false;
  }
  return true;
}

struct Spelling {
  std::string_view word;
  PreKind kind;
};
// Longest spellings first: the regex tries "a" before "alpha", but "a"
// followed by "lpha" can never complete a match, so longest-first is the
// same choice.
constexpr std::array<Spelling, 8> kPreSpellings{{{"preview", PreKind::rc},
                                                 {"alpha", PreKind::alpha},
                                                 {"beta", PreKind::beta},
                                                 {"pre", PreKind::rc},
                                                 {"rc", PreKind::rc},
                                                 {"a", PreKind::alpha},
                                                 {"b", PreKind::beta},
                                                 {"c", PreKind::rc}}};
constexpr std::array<std::string_view, 3> kPostSpellings{{"post", "rev", "r"}};

std::size_t pre_at(std::string_view text, std::size_t pos, PreKind& kind) {
  for (const auto& s : kPreSpellings) {
    if (word_at(text, pos, s.word)) {
      kind = s.kind;
      return s.word.size();
    }
  }
  return 0;
}

std::size_t post_at(std::string_view text, std::size_t pos) {
  for (auto word : kPostSpellings) {
    if (word_at(text, pos, word)) return word.size();
  }
  return 0;
}

enum class Last { release, pre, post, dev, local, wildcard };

class Scanner {
 public:
  Scanner(std::string_view text, const GrammarOptions& options, Scanned& out, ScanError& error)
      : s_(text), opt_(options), out_(out), err_(error) {}

  bool run(std::size_t start);

 private:
  bool at(std::size_t i, char c) const { return i < s_.size() && s_[i] == c; }
  bool digit_at(std::size_t i) const { return i < s_.size() && is_digit(s_[i]); }
  bool sep_at(std::size_t i) const { return i < s_.size() && is_separator(s_[i]); }
  bool alnum_at(std::size_t i) const { return i < s_.size() && is_alnum(s_[i]); }
  std::string_view digits() {
    const std::size_t b = p_;
    while (digit_at(p_)) ++p_;
    return s_.substr(b, p_ - b);
  }
  std::string found(std::size_t i) const {
    if (i >= s_.size()) return "the end of the text";
    return quote(s_.substr(i, 1));
  }
  std::string where(std::size_t i) const { return " at position " + std::to_string(i); }
  std::string op_text() const {
    return opt_.operator_name ? std::string("'") + opt_.operator_name + "'" : std::string();
  }
  bool fail(std::size_t i, std::string message) {
    err_ = {i, std::move(message)};
    return false;
  }
  bool scan_suffixes();
  bool scan_local();
  bool explain_leftover(std::size_t end_of_version, std::size_t i);

  std::string_view s_;
  const GrammarOptions& opt_;
  Scanned& out_;
  ScanError& err_;
  std::size_t p_ = 0;
  Last last_ = Last::release;
};

bool Scanner::run(std::size_t start) {
  p_ = start;
  while (p_ < s_.size() && is_py_space(s_[p_])) ++p_;
  out_.begin = p_;
  if (p_ == s_.size()) {
    if (opt_.operator_name) return fail(p_, op_text() + " must be followed by a version");
    return fail(p_, start == s_.size() ? "empty version" : "the version is only whitespace");
  }
  if (s_[p_] == 'v' || s_[p_] == 'V') ++p_;
  if (!digit_at(p_)) {
    return fail(p_, "expected a release number (a digit)" + where(p_) + ", found " + found(p_));
  }
  std::string_view first = digits();
  if (at(p_, '!')) {
    out_.epoch = first;
    ++p_;
    if (!digit_at(p_)) {
      return fail(
          p_, "expected a release number after the epoch '!'" + where(p_) + ", found " + found(p_));
    }
    first = digits();
  }
  const std::size_t release_begin = static_cast<std::size_t>(first.data() - s_.data());
  out_.release_count = 1;
  while (at(p_, '.') && digit_at(p_ + 1)) {
    ++p_;
    digits();
    ++out_.release_count;
  }
  out_.release = s_.substr(release_begin, p_ - release_begin);
  if (out_.release_count < opt_.min_release) {
    return fail(p_, op_text() + " needs at least " + std::to_string(opt_.min_release) +
                        " release segments (as in '~=2.8'), found " +
                        std::to_string(out_.release_count));
  }
  if (opt_.allow_wildcard && at(p_, '.') && at(p_ + 1, '*')) {
    out_.wildcard = true;
    last_ = Last::wildcard;
    p_ += 2;
  } else if (!scan_suffixes()) {
    return false;
  }
  out_.end = p_;
  while (p_ < s_.size() && is_py_space(s_[p_])) ++p_;
  if (p_ == s_.size()) return true;
  return explain_leftover(out_.end, p_);
}

bool Scanner::scan_suffixes() {
  // Pre-release: [-_.]? letter [-_.]? digits?
  std::size_t q = sep_at(p_) ? p_ + 1 : p_;
  PreKind kind{};
  if (const auto n = pre_at(s_, q, kind)) {
    p_ = q + n;
    if (sep_at(p_)) ++p_;
    out_.has_pre = true;
    out_.pre_kind = kind;
    out_.pre_number = digits();
    last_ = Last::pre;
  }
  // Post-release: "-digits", or [-_.]? post|rev|r [-_.]? digits?
  if (at(p_, '-') && digit_at(p_ + 1)) {
    ++p_;
    out_.has_post = true;
    out_.post_number = digits();
    last_ = Last::post;
  } else {
    q = sep_at(p_) ? p_ + 1 : p_;
    if (const auto n = post_at(s_, q)) {
      p_ = q + n;
      if (sep_at(p_)) ++p_;
      out_.has_post = true;
      out_.post_number = digits();
      last_ = Last::post;
    }
  }
  // Development release: [-_.]? dev [-_.]? digits?
  q = sep_at(p_) ? p_ + 1 : p_;
  if (word_at(s_, q, "dev")) {
    p_ = q + 3;
    if (sep_at(p_)) ++p_;
    out_.has_dev = true;
    out_.dev_number = digits();
    last_ = Last::dev;
  }
  if (at(p_, '+') && opt_.allow_local) return scan_local();
  return true;
}

bool Scanner::scan_local() {
  const std::size_t plus = p_;
  ++p_;
  if (!alnum_at(p_)) {
    return fail(p_, "expected a local version label (letters and digits) after '+'" + where(plus) +
                        ", found " + found(p_));
  }
  while (true) {
    while (alnum_at(p_)) ++p_;
    if (sep_at(p_) && alnum_at(p_ + 1)) {
      ++p_;
      continue;
    }
    break;
  }
  out_.local = s_.substr(plus + 1, p_ - plus - 1);
  last_ = Last::local;
  return true;
}

// The version stopped at `end`; text[i..] (i >= end) is left over. Say as
// precisely as we can why it does not belong.
bool Scanner::explain_leftover(std::size_t end, std::size_t i) {
  if (i > end) return fail(end, "whitespace inside the version" + where(end));
  const char c = s_[i];
  if (last_ == Last::wildcard) {
    return fail(i, "nothing may follow the '.*' wildcard, found " + found(i) + where(i));
  }
  if (c == '.' && at(i + 1, '*')) {
    return fail(i, "a '.*' wildcard" + where(i) +
                       (opt_.operator_name
                            ? " is not allowed with " + op_text() + " (only with '==' and '!=')"
                            : std::string(" is not part of a version (only '==' and '!=' "
                                          "specifiers take one)")));
  }
  if (c == '+') {
    if (!opt_.allow_local) {
      return fail(i, "a local version label ('+...')" + where(i) + " is not allowed with " +
                         op_text() + " (only with '==' and '!=')");
    }
    return fail(i, "a second '+'" + where(i) + "; a version has at most one local label");
  }
  if (last_ == Last::local) {
    if (is_separator(c)) {
      return fail(i, "separator " + quote(s_.substr(i, 1)) + where(i) +
                         " in the local version label must be followed by a letter or digit, "
                         "found " +
                         found(i + 1));
    }
    return fail(i, "character " + found(i) + where(i) +
                       " is not allowed in a local version label (letters, digits and '-_.')");
  }
  if (c == '-' && digit_at(i + 1)) {  // the "1.0-1" spelling of a post-release
    return fail(i, out_.has_post ? "a second post-release segment" + where(i)
                                 : "post-release segment" + where(i) +
                                       " must come before the dev-release segment");
  }
  std::size_t w = i;
  if (is_separator(c)) {
    if (i + 1 == s_.size()) {
      return fail(i, "trailing separator " + quote(s_.substr(i, 1)) + where(i));
    }
    if (!is_alpha(s_[i + 1])) {
      return fail(i, "separator " + quote(s_.substr(i, 1)) + where(i) +
                         " must be followed by a release number or a pre-, post- or dev-release "
                         "segment, found " +
                         found(i + 1));
    }
    w = i + 1;
  }
  if (is_alpha(s_[w])) {
    std::size_t e = w;
    while (e < s_.size() && is_alpha(s_[e])) ++e;
    const std::string word = util::ascii_lower(s_.substr(w, e - w));
    const std::string quoted = quote(s_.substr(w, e - w)) + where(w);
    PreKind kind{};
    const bool is_pre = pre_at(word, 0, kind) == word.size();
    const bool is_post = post_at(word, 0) == word.size();
    if (is_pre) {
      return fail(w, out_.has_pre ? "a second pre-release segment " + quoted
                                  : "pre-release segment " + quoted +
                                        " must come before the post- and dev-release segments");
    }
    if (is_post) {
      return fail(w, out_.has_post ? "a second post-release segment " + quoted
                                   : "post-release segment " + quoted +
                                         " must come before the dev-release segment");
    }
    if (word == "dev") return fail(w, "a second dev-release segment " + quoted);
    return fail(w, "unknown segment " + quoted +
                       " (expected a, b, rc, alpha, beta, c, pre, preview, post, rev, r, dev or a "
                       "'+' local label)");
  }
  return fail(i, "unexpected character " + found(i) + where(i));
}

}  // namespace

bool scan_version(std::string_view text, std::size_t start, const GrammarOptions& options,
                  Scanned& out, ScanError& error) {
  out = Scanned{};
  return Scanner(text, options, out, error).run(start);
}

}  // namespace flashfit::pkg::detail
