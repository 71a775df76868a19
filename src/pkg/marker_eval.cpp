// Marker evaluation, following packaging 23.0's _evaluate_markers and
// _eval_op, quirks included (see Marker::evaluate).
#include <fmt/format.h>

#include "pkg/marker.hpp"
#include "pkg/name.hpp"
#include "pkg/specifier.hpp"
#include "pkg/version.hpp"
#include "util/strings.hpp"

namespace flashfit::pkg {

util::Result<bool> Marker::evaluate(const MarkerEnvironment& environment) const {
  auto result = evaluate_node(0, environment);
  if (!result) {
    return tl::unexpected(
        std::move(result.error()).with_context("marker '" + util::printable(str()) + "'"));
  }
  return result;
}

util::Result<bool> Marker::evaluate_node(std::size_t index,
                                         const MarkerEnvironment& environment) const {
  const Node& node = nodes_[index];
  if (!node.is_group) return evaluate_comparison(node, environment);
  // `and` binds tighter than `or`: the items split at each `or` into runs
  // that must each hold entirely. Every item is evaluated, as packaging does,
  // so an error in any item fails the marker even when the result is known.
  bool any_run = false;
  bool this_run = true;
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    auto value = evaluate_node(node.items[i], environment);
    if (!value) return value;
    this_run = this_run && *value;
    if (i + 1 == node.items.size() || node.or_after[i]) {
      any_run = any_run || this_run;
      this_run = true;
    }
  }
  return any_run;
}

util::Result<bool> Marker::evaluate_comparison(const Node& node,
                                               const MarkerEnvironment& environment) const {
  // Printed only for a message, so the common path does not format.
  const auto fail = [&](const std::string& why, std::string hint = {}) -> util::Result<bool> {
    const std::string comparison = format(static_cast<std::size_t>(&node - nodes_.data()), true);
    return util::input_error(fmt::format("cannot evaluate `{}`: {}", comparison, why), {},
                             std::move(hint));
  };
  // packaging reads the environment through the left side when it is a
  // variable, and otherwise through the right side's text, even when that
  // side is a quoted string ("3.8" < "python_version" reads python_version).
  const std::string& key = node.left.is_variable ? node.left.text : node.right.text;
  const auto* value = environment.find(key);
  if (value == nullptr) {
    return fail(fmt::format("\"{}\" is not a marker variable", util::printable(key, 60)),
                "a comparison needs a marker variable on one side");
  }
  if (!*value && key != "extra") return fail("the environment does not set " + key);
  const std::string& variable = value->has_value() ? **value : std::string();  // extra: ""
  std::string lhs = node.left.is_variable ? variable : node.left.text;
  std::string rhs = node.left.is_variable ? node.right.text : variable;
  if (key == "extra") {
    if (!util::is_ascii(lhs) || !util::is_ascii(rhs)) {
      return fail(fmt::format("extra name \"{}\" is not ASCII",
                              util::printable(util::is_ascii(lhs) ? rhs : lhs, 60)));
    }
    lhs = canonicalize_name(lhs);
    rhs = canonicalize_name(rhs);
  }

  const std::string& op = node.op;
  if (op != "in" && op != "not in") {
    if (auto specifier = Specifier::parse(op + rhs)) {
      auto version = Version::parse(lhs);
      if (!version) {
        return fail(fmt::format(
            "\"{}\" is not a valid version, and \"{}{}\" makes this a version comparison",
            util::printable(lhs, 60), op, util::printable(rhs, 60)));
      }
      return specifier->contains(*version, true);
    }
  }
  if (op == "in") return rhs.find(lhs) != std::string::npos;
  if (op == "not in") return rhs.find(lhs) == std::string::npos;
  // std::string compares bytes as unsigned char, which on UTF-8 is Python's
  // code point order.
  if (op == "==") return lhs == rhs;
  if (op == "!=") return lhs != rhs;
  if (op == "<") return lhs < rhs;
  if (op == "<=") return lhs <= rhs;
  if (op == ">") return lhs > rhs;
  if (op == ">=") return lhs >= rhs;
  return fail(fmt::format("'{}' needs a version on the right, and \"{}\" is not one", op,
                          util::printable(rhs, 60)));
}

}  // namespace flashfit::pkg
