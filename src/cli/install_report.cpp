#include "cli/install_report.hpp"

#include <fmt/core.h>

#include "cli/colour.hpp"

namespace flashfit::cli {

using nlohmann::json;

json attempt_json(const install::Attempt& a) {
  json out{{"filename", a.filename},
           {"url", a.url},
           {"source", a.source},
           {"stage", install::to_string(a.stage)},
           {"ok", a.ok},
           {"detail", a.detail},
           {"sha256", a.sha256 ? json(*a.sha256) : json(nullptr)}};
  if (a.import_check) {
    json modules = json::array();
    for (const auto& m : a.import_check->modules)
      modules.push_back({{"module", m.module}, {"ok", m.ok}, {"error", m.error}});
    out["import_check"] = {
        {"torch", a.import_check->torch_ok ? json(a.import_check->torch_version) : json(nullptr)},
        {"modules", modules},
        {"gpu_test", a.import_check->gpu_test}};
  }
  return out;
}

json plan_json(const install::InstallPlan& p) {
  json candidates = json::array();
  for (const install::PlannedCandidate& c : p.candidates) {
    candidates.push_back({{"filename", c.filename},
                          {"source", c.source},
                          {"url", c.url},
                          {"path", c.wheel_path ? json(c.wheel_path->string()) : json(nullptr)},
                          {"sha256", c.sha256 ? json(*c.sha256) : json(nullptr)},
                          {"installer_argv", c.installer_argv}});
  }
  return {{"interpreter", p.interpreter},
          {"site_dirs", p.site_dirs},
          {"installer", p.installer},
          {"previous", p.previous ? json(*p.previous) : json(nullptr)},
          {"backup_previous", p.backup_previous},
          {"restore", p.restore},
          {"uninstall_argv", p.uninstall_argv},
          {"import_modules", p.import_modules},
          {"candidates", candidates}};
}

std::string outcome_text(const install::InstallOutcome& o, bool dry_run) {
  std::string out;
  for (const install::Attempt& a : o.attempts) {
    out += fmt::format("{} {}  [{}]\n     {}: {}\n",
                       a.ok ? paint(Paint::good, "ok  ") : paint(Paint::bad, "FAIL"), a.filename,
                       a.source, install::to_string(a.stage), a.detail);
    if (a.import_check && a.ok) out += "     GPU check: " + a.import_check->gpu_test + "\n";
  }
  if (o.installed) {
    const install::Attempt& a = o.attempts[*o.installed];
    out += fmt::format("\ninstalled {}{}\n", a.filename,
                       o.previous ? fmt::format(" (replacing {})", *o.previous) : std::string());
  } else if (dry_run) {
    if (o.plan && !o.attempts.empty()) out += "\n" + install::plan_text(*o.plan);
    out += o.attempts.empty() ? "\nnothing would be installed: no wheel fits.\n"
                              : "\n(dry run: nothing was changed)\n";
  } else {
    out += "\nnothing was installed.";
    if (!o.restore.empty()) out += " " + o.restore + ".";
    out += "\n";
  }
  if (!o.torch_note.empty()) out += o.torch_note + ".\n";
  return out;
}

}  // namespace flashfit::cli
