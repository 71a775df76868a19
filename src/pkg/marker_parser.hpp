#pragma once
// Internal to pkg/: the recursive-descent marker grammar of packaging 23.0's
// _parser.py, shared by Marker::parse and parse_requirement (which parses the
// marker after ';' with the same lexer, so columns refer to the whole input).

#include <cstddef>
#include <string>
#include <string_view>

#include "pkg/marker.hpp"
#include "pkg/pep508_lexer.hpp"
#include "util/error.hpp"

namespace flashfit::pkg::detail {

class MarkerParser {
 public:
  explicit MarkerParser(Pep508Lexer& lexer) : lexer_(lexer) {}

  // marker = marker_atom (BOOLOP marker_atom)*, then packaging's
  // _normalize_extra_values. Stops before whatever follows the marker; the
  // caller decides whether that is an error.
  util::Result<Marker> parse();

 private:
  util::Result<std::size_t> parse_expression(std::size_t depth);
  util::Result<std::size_t> parse_atom(std::size_t depth);
  util::Result<std::size_t> parse_comparison();
  util::Result<Marker::Operand> parse_operand();
  util::Result<std::string> parse_operator();
  void normalize_extras();

  Pep508Lexer& lexer_;
  Marker marker_;
};

}  // namespace flashfit::pkg::detail
