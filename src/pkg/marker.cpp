#include "pkg/marker.hpp"

#include <fmt/format.h>

#include "pkg/marker_parser.hpp"
#include "pkg/pep508_lexer.hpp"

namespace flashfit::pkg {

util::Result<Marker> Marker::parse(std::string_view text) {
  detail::Pep508Lexer lexer(text, "marker");
  if (auto valid = lexer.check_utf8(); !valid) return tl::unexpected(std::move(valid.error()));
  detail::MarkerParser parser(lexer);
  auto marker = parser.parse();
  if (!marker) return marker;
  // packaging 23.0's Marker() stops at the first thing that is not `and` or
  // `or` and ignores the rest; a typo there would silently change meaning.
  if (!lexer.at_end()) {
    return tl::unexpected(lexer.expected(lexer.position(), "'and', 'or' or the end of the marker"));
  }
  return marker;
}

std::string Marker::str() const {
  return format(0, true);
}

std::string Marker::format(std::size_t index, bool outermost) const {
  const Node& node = nodes_[index];
  if (!node.is_group) {
    auto operand = [](const Operand& o) { return o.is_variable ? o.text : '"' + o.text + '"'; };
    return operand(node.left) + " " + node.op + " " + operand(node.right);
  }
  // packaging drops the parentheses of a group holding a single item, and
  // prints that item as if it were outermost: "a and ((b or c))" prints as
  // "a and b or c". Reproduced as is, since str() must match packaging.
  if (node.items.size() == 1) return format(node.items[0], true);
  std::string out;
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    if (i > 0) out += node.or_after[i - 1] ? " or " : " and ";
    out += format(node.items[i], false);
  }
  return outermost ? out : "(" + out + ")";
}

const std::vector<std::string_view>& MarkerEnvironment::variable_names() {
  static const std::vector<std::string_view> names = {"implementation_name",
                                                      "implementation_version",
                                                      "os_name",
                                                      "platform_machine",
                                                      "platform_python_implementation",
                                                      "platform_release",
                                                      "platform_system",
                                                      "platform_version",
                                                      "python_full_version",
                                                      "python_version",
                                                      "sys_platform",
                                                      "extra"};
  return names;
}

namespace {

// One lookup for both constnesses of MarkerEnvironment::find.
template <class Environment>
auto find_variable(Environment& env, std::string_view name) -> decltype(&env.extra) {
  decltype(&env.extra) const fields[] = {&env.implementation_name,
                                         &env.implementation_version,
                                         &env.os_name,
                                         &env.platform_machine,
                                         &env.platform_python_implementation,
                                         &env.platform_release,
                                         &env.platform_system,
                                         &env.platform_version,
                                         &env.python_full_version,
                                         &env.python_version,
                                         &env.sys_platform,
                                         &env.extra};
  const auto& names = MarkerEnvironment::variable_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return fields[i];
  }
  return nullptr;
}

}  // namespace

std::optional<std::string>* MarkerEnvironment::find(std::string_view name) {
  return find_variable(*this, name);
}

const std::optional<std::string>* MarkerEnvironment::find(std::string_view name) const {
  return find_variable(*this, name);
}

}  // namespace flashfit::pkg
