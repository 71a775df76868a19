#include "pkg/name.hpp"

#include "pkg/version_grammar.hpp"

namespace flashfit::pkg {

std::string canonicalize_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool in_run = false;
  for (char c : name) {
    if (detail::is_separator(c)) {
      if (!in_run) out += '-';
      in_run = true;
    } else {
      out += detail::to_lower(c);
      in_run = false;
    }
  }
  return out;
}

bool is_valid_project_name(std::string_view name) {
  if (name.empty() || !detail::is_alnum(name.front()) || !detail::is_alnum(name.back())) {
    return false;
  }
  for (char c : name) {
    if (!detail::is_alnum(c) && !detail::is_separator(c)) return false;
  }
  return true;
}

}  // namespace flashfit::pkg
