#include "pkg/requirement.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pkg/marker_parser.hpp"
#include "pkg/pep508_lexer.hpp"
#include "pkg/requirement_url.hpp"
#include "util/strings.hpp"

namespace flashfit::pkg {
namespace {

using detail::Pep508Lexer;

// The grammar of packaging 23.0's _parser.py (requirement, extras,
// requirement_details, specifier), one function per rule.
class RequirementParser {
 public:
  explicit RequirementParser(std::string_view text) : lexer_(text, "requirement") {}

  util::Result<Requirement> parse();

 private:
  util::Result<void> parse_extras();
  util::Result<void> parse_details();
  util::Result<void> parse_specifier();
  util::Result<void> parse_marker(std::string_view after);
  util::Error unexpected_after_specifier(std::size_t at, bool have_specifier) const;
  tl::unexpected<util::Error> fail_expected(std::string_view what, std::string hint = {}) const {
    return tl::unexpected(lexer_.expected(lexer_.position(), what, std::move(hint)));
  }

  Pep508Lexer lexer_;
  Requirement result_;
  std::string specifier_text_;
  std::size_t specifier_start_ = 0;
  std::size_t url_start_ = 0;
  std::size_t last_token_start_ = 0;  // of the last version specifier token
  std::size_t last_token_end_ = 0;
};

util::Result<Requirement> RequirementParser::parse() {
  if (auto valid = lexer_.check_utf8(); !valid) return tl::unexpected(std::move(valid.error()));
  lexer_.skip_whitespace();
  const auto name = lexer_.identifier();
  if (!name) {
    return fail_expected("a package name at the start of the requirement",
                         "a name starts with an ASCII letter or digit");
  }
  result_.name = std::string(*name);
  lexer_.skip_whitespace();
  if (auto extras = parse_extras(); !extras) return tl::unexpected(std::move(extras.error()));
  lexer_.skip_whitespace();
  if (auto details = parse_details(); !details) {
    return tl::unexpected(std::move(details.error()));
  }
  if (!lexer_.at_end()) return fail_expected("'and', 'or' or the end of the requirement");

  // What packaging checks once the syntax is known: the URL, then the
  // specifiers (it builds the SpecifierSet after the URL check).
  if (result_.url) {
    if (auto problem = detail::requirement_url_problem(*result_.url)) {
      return tl::unexpected(lexer_.error(fmt::format("invalid URL '{}' at column {}: {}",
                                                     util::printable(*result_.url, 120),
                                                     lexer_.column(url_start_), *problem)));
    }
  }
  auto specifier = SpecifierSet::parse(specifier_text_);
  if (!specifier) {
    return tl::unexpected(lexer_.error(fmt::format(
        "invalid version specifier '{}' at column {}: {}", util::printable(specifier_text_, 120),
        lexer_.column(specifier_start_), specifier.error().message)));
  }
  result_.specifier = std::move(*specifier);
  std::sort(result_.extras.begin(), result_.extras.end());
  result_.extras.erase(std::unique(result_.extras.begin(), result_.extras.end()),
                       result_.extras.end());
  return std::move(result_);
}

// extras = (LEFT_BRACKET WS? extras_list? WS? RIGHT_BRACKET)?
util::Result<void> RequirementParser::parse_extras() {
  if (!lexer_.peek('[')) return {};
  const std::size_t open = lexer_.position();
  lexer_.accept('[');
  lexer_.skip_whitespace();
  if (const auto first = lexer_.identifier()) {
    result_.extras.emplace_back(*first);
    while (true) {
      lexer_.skip_whitespace();
      if (lexer_.peek_identifier()) {
        return fail_expected("',' between extra names");
      }
      if (!lexer_.accept(',')) break;
      lexer_.skip_whitespace();
      const auto extra = lexer_.identifier();
      if (!extra) {
        return fail_expected("an extra name after ','");
      }
      result_.extras.emplace_back(*extra);
    }
  }
  lexer_.skip_whitespace();
  if (!lexer_.accept(']')) {
    return fail_expected(
        fmt::format("an extra name, ',' or ']' to close the '[' of column {}", lexer_.column(open)),
        "extra names are ASCII letters, digits, '-', '_' and '.'");
  }
  return {};
}

// requirement_details = AT URL (WS requirement_marker?)?
//                     | specifier WS? requirement_marker?
util::Result<void> RequirementParser::parse_details() {
  if (lexer_.accept('@')) {
    lexer_.skip_whitespace();
    url_start_ = lexer_.position();
    const auto url = lexer_.url();
    if (!url) {
      return fail_expected("a URL after '@'");
    }
    result_.url = std::string(*url);
    if (lexer_.at_end()) return {};
    // The URL runs to the next space or tab, so whitespace follows it here.
    lexer_.skip_whitespace();
    if (lexer_.at_end()) return {};
    return parse_marker("the URL");
  }
  specifier_start_ = lexer_.position();
  if (auto specifier = parse_specifier(); !specifier) return specifier;
  lexer_.skip_whitespace();
  if (lexer_.at_end()) return {};
  if (!lexer_.peek(';')) {
    return tl::unexpected(unexpected_after_specifier(lexer_.position(), !specifier_text_.empty()));
  }
  return parse_marker("the version specifier");
}

// specifier = LEFT_PARENTHESIS WS? version_many WS? RIGHT_PARENTHESIS
//           | WS? version_many WS?
// version_many = (SPECIFIER (WS? COMMA WS? SPECIFIER)*)?  (a trailing comma is kept)
util::Result<void> RequirementParser::parse_specifier() {
  const std::size_t open = lexer_.position();
  const bool parenthesised = lexer_.accept('(');
  lexer_.skip_whitespace();
  while (true) {
    last_token_start_ = lexer_.position();
    const auto token = lexer_.version_specifier();
    if (!token) break;
    last_token_end_ = lexer_.position();
    specifier_text_ += *token;
    lexer_.skip_whitespace();
    if (!lexer_.accept(',')) break;
    specifier_text_ += ',';
    lexer_.skip_whitespace();
  }
  lexer_.skip_whitespace();
  if (parenthesised && !lexer_.accept(')')) {
    const auto at = lexer_.position();
    if (lexer_.peek(';') || lexer_.at_end()) {
      return fail_expected(fmt::format("')' to close the '(' of column {}", lexer_.column(open)));
    }
    auto error = unexpected_after_specifier(at, !specifier_text_.empty());
    error.message += fmt::format(" (inside the '(' of column {})", lexer_.column(open));
    return tl::unexpected(std::move(error));
  }
  return {};
}

util::Result<void> RequirementParser::parse_marker(std::string_view after) {
  if (!lexer_.accept(';')) {
    return fail_expected(
        fmt::format("';' and a marker, or the end of the requirement, after {}", after));
  }
  detail::MarkerParser parser(lexer_);
  auto marker = parser.parse();
  if (!marker) return tl::unexpected(std::move(marker.error()));
  result_.marker = std::move(*marker);
  lexer_.skip_whitespace();
  return {};
}

// Says what went wrong where a specifier, ';' or the end was expected:
// packaging's single "Expected end or semicolon" hides the common cases.
util::Error RequirementParser::unexpected_after_specifier(std::size_t at,
                                                          bool have_specifier) const {
  const auto text = lexer_.text();
  const auto rest = text.substr(at);
  if (detail::match_specifier_token(text, at) != 0) {
    return lexer_.expected(at, "',' between version specifiers");
  }
  // A specifier the token did not take whole ("==", ">=2.8.3+cu12", "~=2"):
  // the PEP 440 parser says precisely what is wrong with it.
  std::size_t piece_start = std::string_view::npos;
  if (have_specifier && at == last_token_end_) piece_start = last_token_start_;
  if (!rest.empty() && std::string_view("<>=!~").find(rest[0]) != std::string_view::npos) {
    piece_start = at;
  }
  if (piece_start != std::string_view::npos) {
    const auto piece_end = std::min(text.find_first_of(" \t;,)", at), text.size());
    const auto piece = text.substr(piece_start, piece_end - piece_start);
    if (auto parsed = Specifier::parse(piece); !parsed) {
      return lexer_.error(
          fmt::format("invalid version specifier '{}' at column {}: {}", util::printable(piece, 60),
                      lexer_.column(piece_start), parsed.error().message),
          parsed.error().hint);
    }
  }
  if (!rest.empty() && std::string_view("<>=!~").find(rest[0]) != std::string_view::npos) {
    return lexer_.expected(at, "a version operator (one of ~=, ==, !=, <=, >=, <, >, ===)");
  }
  std::string hint;
  if (!rest.empty() && rest[0] >= '0' && rest[0] <= '9') {
    hint = "a version needs an operator in front, such as ==";
  } else if (have_specifier && util::starts_with(rest, "+")) {
    hint = "local version labels (+...) only go with == and !=";
  } else if (have_specifier && util::starts_with(rest, ".*")) {
    hint = "wildcards (.*) only go with == and !=";
  }
  return lexer_.expected(at,
                         fmt::format("{}';' and a marker, or the end of the requirement, after {}",
                                     have_specifier ? "',', " : "a version specifier, ",
                                     have_specifier ? "the version specifier" : "the name"),
                         std::move(hint));
}

}  // namespace

std::string Requirement::str() const {
  std::string out = name;
  if (!extras.empty()) out += "[" + util::join(extras, ",") + "]";
  if (!specifier.empty()) out += specifier.str();
  if (url) {
    out += "@ " + *url;
    if (marker) out += " ";
  }
  if (marker) out += "; " + marker->str();
  return out;
}

util::Result<Requirement> parse_requirement(std::string_view text) {
  return RequirementParser(text).parse();
}

}  // namespace flashfit::pkg
