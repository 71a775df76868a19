// Answers version_cases.py lines with pkg::Version (format in that file).
#include <iostream>
#include <string>

#include "line_evaluator.hpp"
#include "pkg/version.hpp"

namespace {

using flashfit::pkg::Version;

const char* yn(bool flag) {
  return flag ? "1" : "0";
}

std::string or_dash(const std::optional<std::string>& value) {
  return value ? *value : "-";
}

std::string describe(const Version& v) {
  std::string release;
  for (std::size_t i = 0; i < v.release().size(); ++i) {
    if (i != 0) release += '.';
    release += v.release()[i];
  }
  const std::string pre = v.pre() ? v.pre()->first + v.pre()->second : "-";
  return v.str() + "|" + v.public_str() + "|" + v.base_str() + "|" + v.epoch() + "|" + release +
         "|" + pre + "|" + or_dash(v.post()) + "|" + or_dash(v.dev()) + "|" +
         (v.has_local() ? v.local() : "-") + "|" + yn(v.is_prerelease()) + "|" +
         yn(v.is_postrelease()) + "|" + yn(v.is_devrelease()) + "|" + yn(v.has_local());
}

// The normalised form must parse back to an equal version with the same text.
bool round_trips(const Version& v) {
  auto again = Version::parse(v.str());
  return again && *again == v && again->str() == v.str();
}

std::string answer(const std::string& line) {
  const auto tab = line.find('\t');
  const std::string kind = line.substr(0, tab);
  const std::string rest = tab == std::string::npos ? "" : line.substr(tab + 1);
  if (kind == "S") {
    auto v = Version::parse(rest);
    if (!v) return "ERR";
    if (!round_trips(*v)) return "ROUND-TRIP FAILED " + v->str();
    return "OK " + describe(*v);
  }
  const auto tab2 = rest.find('\t');
  auto a = Version::parse(rest.substr(0, tab2));
  auto b = Version::parse(rest.substr(tab2 + 1));
  if (!a || !b) return "ERR";
  const auto order = *a <=> *b;
  const char* sign = order < 0 ? "<" : (order > 0 ? ">" : "=");
  if ((*a == *b) != (order == 0) || ((*b <=> *a) < 0) != (order > 0)) return "CMP inconsistent";
  return std::string("CMP ") + sign;
}

}  // namespace

int main() {
  return run_line_evaluator(answer);
}
