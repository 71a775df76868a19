// Answers requirement_cases.py lines with pkg::parse_requirement and
// Marker::evaluate (format in that file).
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "line_evaluator.hpp"
#include "pkg/marker.hpp"
#include "pkg/requirement.hpp"
#include "util/strings.hpp"

namespace {

using flashfit::pkg::MarkerEnvironment;

// Keeps every answer on one line; the same escaping as the oracle's.
std::string escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += c;
    }
  }
  return out;
}

std::string answer(const std::string& line) {
  // The requirement may hold tabs; the compact JSON environment holds none.
  const auto tab = line.rfind('\t');
  const std::string text = line.substr(0, tab);
  MarkerEnvironment environment;
  const auto variables = nlohmann::json::parse(line.substr(tab + 1));
  for (const auto& [name, value] : variables.items()) {
    auto* field = environment.find(name);
    if (field == nullptr) return "BAD ENVIRONMENT KEY " + name;
    *field = value.get<std::string>();
  }

  const auto requirement = flashfit::pkg::parse_requirement(text);
  if (!requirement) return "ERR";
  std::string evaluated = "None";
  if (requirement->marker) {
    const auto result = requirement->marker->evaluate(environment);
    evaluated = !result ? "ERR" : (*result ? "True" : "False");
  }
  return "OK " + escape(requirement->name) + "|" +
         escape(flashfit::util::join(requirement->extras, ",")) + "|" +
         escape(requirement->specifier.str()) + "|" + escape(requirement->url.value_or("")) + "|" +
         escape(requirement->marker ? requirement->marker->str() : "") + "|" + evaluated + "|" +
         escape(requirement->str());
}

}  // namespace

int main() {
  return run_line_evaluator(answer);
}
