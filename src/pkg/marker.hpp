#pragma once
// PEP 508 environment markers (`python_version >= "3.9" and sys_platform ==
// "linux"`): parsed, printed and evaluated as packaging 23.0's Marker does.
//
// Deliberate differences from packaging 23.0 (each asserted in
// tests/unit/pkg/marker_test.cpp):
// - Marker::parse rejects text after a complete marker; packaging's Marker()
//   silently ignores it (`python_version > "3" garbage` parses there).
// - Parentheses nest at most kMaxMarkerDepth deep; packaging allows ~480 and
//   then fails with RecursionError.
// - A comparison of `extra` with a non-ASCII string is refused at parse time,
//   and a non-ASCII extra in the environment at evaluation: packaging
//   lower-cases extra names with Unicode rules flashfit does not carry.
// - Version comparisons use pkg::Version and pkg::Specifier, which are ASCII:
//   a value packaging's Unicode `\s` would strip ("3.11" + U+00A0) is not a
//   version here, so the comparison fails to evaluate.
// - Token-level narrowings shared with requirements: see pep508_lexer.hpp and
//   python_string.hpp.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace flashfit::pkg {

namespace detail {
class MarkerParser;
}

inline constexpr std::size_t kMaxMarkerDepth = 64;

// The PEP 508 marker variables of one target interpreter. Callers fill it (the
// probe from the interpreter, tests and what-if runs by hand); a variable left
// unset makes any marker that reads it fail to evaluate, rather than silently
// comparing against an empty string.
struct MarkerEnvironment {
  std::optional<std::string> implementation_name;             // "cpython"
  std::optional<std::string> implementation_version;          // "3.11.2"
  std::optional<std::string> os_name;                         // "posix"
  std::optional<std::string> platform_machine;                // "x86_64"
  std::optional<std::string> platform_python_implementation;  // "CPython"
  std::optional<std::string> platform_release;                // "6.1.0-18-amd64"
  std::optional<std::string> platform_system;                 // "Linux"
  std::optional<std::string> platform_version;                // "#1 SMP ..."
  std::optional<std::string> python_full_version;             // "3.11.2"
  std::optional<std::string> python_version;                  // "3.11"
  std::optional<std::string> sys_platform;                    // "linux"
  // The extra being installed; unset reads as "" (as packaging's
  // Marker.evaluate, and pip when no extra was asked for).
  std::optional<std::string> extra;

  // The variable named `name` (the canonical PEP 508 spelling), or nullptr
  // when no variable has that name.
  const std::optional<std::string>* find(std::string_view name) const;
  std::optional<std::string>* find(std::string_view name);

  // Every canonical variable name, in the order of the fields above.
  static const std::vector<std::string_view>& variable_names();
};

class Marker {
 public:
  static util::Result<Marker> parse(std::string_view text);

  // str(packaging Marker): values in double quotes, one space around each
  // operator, redundant parentheses dropped as packaging drops them.
  std::string str() const;

  // packaging 23.0's evaluation: each comparison is a PEP 440 Specifier check
  // (pre-releases allowed) when `op + right` parses as a Specifier, in which
  // case the left side must parse as a Version or evaluation fails; otherwise
  // a Python string comparison (`in`, `not in`, `==`, `<`, ...). Extra names
  // are compared after PEP 503 normalisation. Every comparison is evaluated
  // (no short-circuit), so an error anywhere fails the whole marker.
  util::Result<bool> evaluate(const MarkerEnvironment& environment) const;

  // As packaging: markers are equal when they print the same.
  friend bool operator==(const Marker& a, const Marker& b) { return a.str() == b.str(); }

 private:
  struct Operand {
    bool is_variable = false;
    std::string text;  // the canonical variable name, or the decoded string value
  };
  // Either one comparison or a parenthesised group (the outermost group is
  // nodes_[0]). A group holds its items and the `and`/`or` between them.
  struct Node {
    bool is_group = false;
    Operand left;
    std::string op;  // "==", "not in", ...
    Operand right;
    std::vector<std::size_t> items;
    std::vector<bool> or_after;  // or_after[i]: the operator after items[i] is `or`
  };

  std::string format(std::size_t node, bool outermost) const;
  util::Result<bool> evaluate_node(std::size_t node, const MarkerEnvironment& environment) const;
  util::Result<bool> evaluate_comparison(const Node& node,
                                         const MarkerEnvironment& environment) const;

  Marker() = default;  // only the parser builds markers

  std::vector<Node> nodes_;

  friend class detail::MarkerParser;
};

}  // namespace flashfit::pkg
