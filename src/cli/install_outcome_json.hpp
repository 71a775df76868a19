#pragma once
// The JSON shapes `install -r` and `install --lock` share (docs/json.md):
// an installer's changes, the rollback of earlier compiled packages, and the
// compiled packages' unmet dependencies.
#include <nlohmann/json.hpp>
#include <vector>

#include "workflow/requirements_check.hpp"
#include "workflow/requirements_rollback.hpp"

namespace flashfit::cli {

// [{"name", "before" (or null: new), "after" (or null: removed)}]
nlohmann::json changes_json(const std::vector<workflow::InstalledChange>& changes);
// [{"name", "ok", "outcome"}]
nlohmann::json rolled_back_json(const std::vector<workflow::RolledBack>& rolled);
// [{"package", "requirement", "name", "installed" (or null)}]
nlohmann::json unmet_json(const std::vector<workflow::UnmetDependency>& unmet);

}  // namespace flashfit::cli
