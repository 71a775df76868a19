// Answers specifier_cases.py lines with pkg::SpecifierSet (format in that file).
#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "line_evaluator.hpp"
#include "pkg/specifier.hpp"
#include "pkg/version.hpp"
#include "util/strings.hpp"

namespace {

using flashfit::pkg::Specifier;
using flashfit::pkg::SpecifierSet;
using flashfit::pkg::Version;

// Where packaging raises (see specifier_cases.py), both sides print X.
bool arbitrary_non_version(const Specifier& s) {
  return s.op() == "===" && !Version::parse(s.version_text());
}

const char* tri(std::optional<bool> value) {
  return !value ? "N" : (*value ? "T" : "F");
}

std::string answer(const std::string& line) {
  const auto fields = flashfit::util::split(line, '\t');
  auto set = SpecifierSet::parse(fields[0]);
  if (!set) return "ERR";
  std::optional<bool> pre;
  if (fields[1] == "T") pre = true;
  if (fields[1] == "F") pre = false;

  std::vector<const Specifier*> specs;
  for (const auto& s : set->specifiers()) specs.push_back(&s);
  std::sort(specs.begin(), specs.end(),
            [](const Specifier* a, const Specifier* b) { return a->str() < b->str(); });
  const bool poisoned = std::any_of(specs.begin(), specs.end(),
                                    [](const Specifier* s) { return arbitrary_non_version(*s); });

  std::vector<std::optional<Version>> versions;
  std::vector<Version> valid;
  for (std::size_t i = 2; i < fields.size(); ++i) {
    auto v = Version::parse(fields[i]);
    versions.push_back(v ? std::optional<Version>(*v) : std::nullopt);
    if (v) valid.push_back(*v);
  }
  const auto verdicts = [&](auto check, bool raises) {
    std::string out;
    for (const auto& v : versions) out += !v ? 'E' : (raises ? 'X' : (check(*v) ? '1' : '0'));
    return out;
  };

  std::string out =
      "OK " + set->str() + "|" + (poisoned ? "X" : tri(set->allows_prereleases())) + "|";
  for (const auto* s : specs)
    out += arbitrary_non_version(*s) ? "X" : (s->allows_prereleases() ? "1" : "0");
  out += "|" + verdicts([&](const Version& v) { return set->contains(v, pre); }, !pre && poisoned);
  out += "|";
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (i != 0) out += ';';
    out += verdicts([&](const Version& v) { return specs[i]->contains(v, pre); },
                    !pre && arbitrary_non_version(*specs[i]));
  }
  out += "|";
  if (!pre && poisoned) {
    out += "X";
  } else {
    const auto kept = set->filter(valid, pre);
    for (std::size_t i = 0; i < kept.size(); ++i) {
      if (i != 0) out += ',';
      out += kept[i].str();
    }
  }
  return out;
}

}  // namespace

int main() {
  return run_line_evaluator(answer);
}
