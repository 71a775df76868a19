#include "cli/install_outcome_json.hpp"

namespace flashfit::cli {

using nlohmann::json;

json changes_json(const std::vector<workflow::InstalledChange>& changes) {
  json out = json::array();
  for (const auto& c : changes) {
    out.push_back({{"name", c.name},
                   {"before", c.before ? json(*c.before) : json(nullptr)},
                   {"after", c.after ? json(*c.after) : json(nullptr)}});
  }
  return out;
}

json rolled_back_json(const std::vector<workflow::RolledBack>& rolled) {
  json out = json::array();
  for (const auto& back : rolled)
    out.push_back({{"name", back.package}, {"ok", back.ok}, {"outcome", back.outcome}});
  return out;
}

json unmet_json(const std::vector<workflow::UnmetDependency>& unmet) {
  json out = json::array();
  for (const auto& u : unmet) {
    out.push_back({{"package", u.package},
                   {"requirement", u.requirement},
                   {"name", u.name},
                   {"installed", u.installed ? json(*u.installed) : json(nullptr)}});
  }
  return out;
}

}  // namespace flashfit::cli
