// Answers wheelname_cases.py lines with pkg::parse_wheel_filename (format in that file).
#include <iostream>
#include <string>

#include "line_evaluator.hpp"
#include "pkg/wheel_name.hpp"

namespace {

std::string answer(const std::string& line) {
  auto wheel = flashfit::pkg::parse_wheel_filename(line);
  if (!wheel) return "ERR";
  std::string out =
      "OK " + wheel->name + "|" + wheel->canonical_name + "|" + wheel->version.str() + "|";
  out += wheel->build ? wheel->build->first + "," + wheel->build->second : "-";
  out += "|";
  for (std::size_t i = 0; i < wheel->tags.size(); ++i) {
    if (i != 0) out += ' ';
    out += wheel->tags[i].str();
  }
  return out;
}

}  // namespace

int main() {
  return run_line_evaluator(answer);
}
