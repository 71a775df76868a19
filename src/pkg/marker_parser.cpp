#include "pkg/marker_parser.hpp"

#include <fmt/format.h>

#include "pkg/name.hpp"
#include "util/strings.hpp"

namespace flashfit::pkg::detail {
namespace {

constexpr std::string_view kOperators = "<=, <, !=, ==, >=, >, ~=, ===, in, not in";

// The spellings packaging's VARIABLE token accepts, for "did you mean".
constexpr std::string_view kVariableSpellings[] = {
    "python_version",      "python_full_version",    "os_name",
    "sys_platform",        "platform_release",       "platform_system",
    "platform_version",    "platform_machine",       "platform_python_implementation",
    "implementation_name", "implementation_version", "extra"};

std::string known_variables() {
  std::string out;
  for (const auto name : kVariableSpellings) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace

util::Result<Marker> MarkerParser::parse() {
  marker_ = Marker{};
  auto root = parse_expression(0);
  if (!root) return tl::unexpected(std::move(root.error()));
  normalize_extras();
  return std::move(marker_);
}

util::Result<std::size_t> MarkerParser::parse_expression(std::size_t depth) {
  const std::size_t index = marker_.nodes_.size();
  marker_.nodes_.push_back(Marker::Node{});
  marker_.nodes_[index].is_group = true;
  while (true) {
    auto item = parse_atom(depth);
    if (!item) return item;
    marker_.nodes_[index].items.push_back(*item);
    if (lexer_.keyword("or")) {
      marker_.nodes_[index].or_after.push_back(true);
    } else if (lexer_.keyword("and")) {
      marker_.nodes_[index].or_after.push_back(false);
    } else {
      return index;
    }
  }
}

util::Result<std::size_t> MarkerParser::parse_atom(std::size_t depth) {
  lexer_.skip_whitespace();
  util::Result<std::size_t> node;
  if (lexer_.peek('(')) {
    const std::size_t open = lexer_.position();
    // Bounded so hostile input cannot exhaust the stack; real markers nest
    // two or three levels.
    if (depth >= kMaxMarkerDepth) {
      return tl::unexpected(lexer_.error(fmt::format(
          "'(' at column {} nests deeper than the {} levels of parentheses flashfit allows",
          lexer_.column(open), kMaxMarkerDepth)));
    }
    lexer_.accept('(');
    lexer_.skip_whitespace();
    node = parse_expression(depth + 1);
    if (!node) return node;
    lexer_.skip_whitespace();
    if (!lexer_.accept(')')) {
      return tl::unexpected(lexer_.expected(
          lexer_.position(),
          fmt::format("'and', 'or' or ')' to close the '(' of column {}", lexer_.column(open))));
    }
  } else {
    node = parse_comparison();
    if (!node) return node;
  }
  lexer_.skip_whitespace();
  return node;
}

util::Result<std::size_t> MarkerParser::parse_comparison() {
  lexer_.skip_whitespace();
  const std::size_t start = lexer_.position();
  auto left = parse_operand();
  if (!left) return tl::unexpected(std::move(left.error()));
  lexer_.skip_whitespace();
  auto op = parse_operator();
  if (!op) return tl::unexpected(std::move(op.error()));
  lexer_.skip_whitespace();
  auto right = parse_operand();
  if (!right) return tl::unexpected(std::move(right.error()));
  lexer_.skip_whitespace();

  // packaging compares extra names after Unicode lower-casing; flashfit only
  // knows ASCII case rules, so it refuses what it could get wrong.
  const bool left_extra = left->is_variable && left->text == "extra";
  const bool right_extra = right->is_variable && right->text == "extra";
  const Marker::Operand& other = left_extra ? *right : *left;
  if ((left_extra || right_extra) && !other.is_variable && !util::is_ascii(other.text)) {
    return tl::unexpected(
        lexer_.error(fmt::format("extra name \"{}\" compared at column {} is not ASCII",
                                 util::printable(other.text, 60), lexer_.column(start)),
                     "extra names are ASCII letters, digits, '-', '_' and '.' (PEP 685)"));
  }

  Marker::Node node;
  node.left = std::move(*left);
  node.op = std::move(*op);
  node.right = std::move(*right);
  marker_.nodes_.push_back(std::move(node));
  return marker_.nodes_.size() - 1;
}

util::Result<Marker::Operand> MarkerParser::parse_operand() {
  if (auto name = lexer_.variable()) return Marker::Operand{true, std::move(*name)};
  const std::size_t at = lexer_.position();
  auto value = lexer_.quoted_string();
  if (!value) return tl::unexpected(std::move(value.error()));
  if (*value) return Marker::Operand{false, std::move(**value)};

  const auto word = lexer_.word_at(at);
  std::string hint;
  if (!word.empty()) {
    const auto near = util::near_names(word, kVariableSpellings, util::within(2));
    const std::string_view best = near.empty() ? "" : kVariableSpellings[near.front().index];
    hint = best.empty() ? fmt::format("string values need quotes (\"{}\"); the variables are {}",
                                      util::printable(word, 40), known_variables())
                        : fmt::format("did you mean '{}'?", best);
  } else {
    hint = "the variables are " + known_variables();
  }
  return tl::unexpected(
      lexer_.expected(at, "a marker variable or a quoted string", std::move(hint)));
}

util::Result<std::string> MarkerParser::parse_operator() {
  if (lexer_.keyword("in")) return std::string("in");
  if (lexer_.keyword("not")) {
    if (!lexer_.skip_whitespace()) {
      return tl::unexpected(lexer_.expected(lexer_.position(), "whitespace after 'not'"));
    }
    if (!lexer_.keyword("in")) {
      return tl::unexpected(lexer_.expected(lexer_.position(), "'in' after 'not'"));
    }
    return std::string("not in");
  }
  if (auto op = lexer_.comparison_operator()) return std::string(*op);
  return tl::unexpected(
      lexer_.expected(lexer_.position(), fmt::format("a marker operator (one of {})", kOperators)));
}

void MarkerParser::normalize_extras() {
  // packaging's _normalize_extra_values looks only at the first item of the
  // outermost group, and only when it is a comparison; it turns the other
  // side into a normalised string value, even when that side is a variable.
  auto& root = marker_.nodes_[0];
  auto& first = marker_.nodes_[root.items.front()];
  if (first.is_group) return;
  if (first.left.is_variable && first.left.text == "extra") {
    first.right = Marker::Operand{false, canonicalize_name(first.right.text)};
  } else if (first.right.is_variable && first.right.text == "extra") {
    first.left = Marker::Operand{false, canonicalize_name(first.left.text)};
  }
}

}  // namespace flashfit::pkg::detail
