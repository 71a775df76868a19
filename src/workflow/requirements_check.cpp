// What install -r changed and what it left unmet; see requirements_check.hpp.
#include "workflow/requirements_check.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "pkg/name.hpp"
#include "pkg/requirement.hpp"
#include "pkg/version.hpp"

namespace flashfit::workflow {

std::vector<InstalledChange> diff_installed(const InstalledVersions& before,
                                            const InstalledVersions& after) {
  std::set<std::string> names;
  for (const auto& [name, version] : before) names.insert(name);
  for (const auto& [name, version] : after) names.insert(name);
  std::vector<InstalledChange> out;
  for (const std::string& name : names) {
    auto b = before.find(name);
    auto a = after.find(name);
    InstalledChange change{name, std::nullopt, std::nullopt};
    if (b != before.end()) change.before = b->second;
    if (a != after.end()) change.after = a->second;
    if (change.before == change.after) continue;
    out.push_back(std::move(change));
  }
  return out;
}

std::string describe(const InstalledChange& change) {
  if (!change.after) return fmt::format("{} (removed, was {})", change.name, *change.before);
  if (!change.before) return fmt::format("{} {} (new)", change.name, *change.after);
  return fmt::format("{} {} (was {})", change.name, *change.after, *change.before);
}

std::string describe(const UnmetDependency& unmet) {
  return fmt::format(
      "{} requires {} ({})", unmet.package, unmet.requirement,
      unmet.installed ? "installed: " + *unmet.installed : std::string("not installed"));
}

std::vector<UnmetDependency> unmet_dependencies(const std::string& package,
                                                const std::vector<std::string>& requires_dist,
                                                const pkg::MarkerEnvironment& markers,
                                                const InstalledVersions& installed,
                                                const std::vector<std::string>& extras) {
  std::vector<UnmetDependency> out;
  // No extra asked for reads as "" (packaging); then each extra of the line.
  std::vector<std::string> extras_asked{""};
  extras_asked.insert(extras_asked.end(), extras.begin(), extras.end());
  std::vector<pkg::MarkerEnvironment> asked;
  asked.reserve(extras_asked.size());
  for (const std::string& extra : extras_asked) {
    pkg::MarkerEnvironment one = markers;
    if (auto* variable = one.find("extra")) *variable = extra;
    asked.push_back(std::move(one));
  }
  for (const std::string& text : requires_dist) {
    auto requirement = pkg::parse_requirement(text);
    if (!requirement) {
      out.push_back({package, text, text, std::nullopt, text});
      continue;
    }
    if (requirement->marker) {
      const bool applies = std::any_of(asked.begin(), asked.end(), [&](const auto& environment) {
        auto result = requirement->marker->evaluate(environment);
        return result && *result;
      });
      if (!applies) continue;
    }
    pkg::Requirement bare = *requirement;
    bare.marker.reset();
    const std::string wanted = bare.str();
    const std::string name = pkg::canonicalize_name(requirement->name);
    auto found = installed.find(name);
    if (found == installed.end()) {
      out.push_back({package, text, name, std::nullopt, wanted});
      continue;
    }
    if (requirement->specifier.empty()) continue;
    auto version = pkg::Version::parse(found->second);
    // pip check reads a version it cannot parse as not satisfying.
    if (!version || !requirement->specifier.contains(*version, true)) {
      out.push_back({package, text, name, found->second, wanted});
    }
  }
  return out;
}

std::vector<std::string> requires_dist(const std::string& metadata) {
  std::vector<std::string> out;
  std::size_t start = 0;
  constexpr std::string_view kKey = "Requires-Dist:";
  while (start < metadata.size()) {
    auto end = metadata.find('\n', start);
    if (end == std::string::npos) end = metadata.size();
    std::string_view line(metadata.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the body (the description) starts
    if (line.size() > kKey.size() && line.substr(0, kKey.size()) == kKey) {
      auto value = line.substr(kKey.size());
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
        value.remove_suffix(1);
      out.emplace_back(value);
    }
    start = end + 1;
  }
  return out;
}

}  // namespace flashfit::workflow
