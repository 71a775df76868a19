#include "cli/install_report.hpp"

#include <fmt/core.h>

#include "cli/build_report.hpp"
#include "cli/colour.hpp"
#include "cli/resolve_report.hpp"

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
        {"gpu_test", a.import_check->gpu_test},
        {"interpreter", a.import_check->preloaded ? "preloaded" : "fresh"},
        {"redone_because", a.import_check->redone_because.empty()
                               ? json(nullptr)
                               : json(a.import_check->redone_because)}};
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

HandOverParts hand_over_parts(const std::string& spec,
                              const std::optional<workflow::HandOver>& hand_over) {
  HandOverParts out{nullptr, {}};
  if (!hand_over) return out;
  if (const auto& error = hand_over->build.not_started) {
    out.json = {{"ok", false},
                {"stage", "source"},
                {"failure", error->message},
                {"hint", error->hint.empty() ? json(nullptr) : json(error->hint)}};
    out.text = "\nno source build: " + error->message +
               (error->hint.empty() ? "" : " (" + error->hint + ")") + "\n";
  } else if (const auto& built = hand_over->build.outcome) {
    out.json = build_json(spec, *built);
    if (!built->ok) out.text = build_outcome_text(*built);
  }
  return out;
}

json install_json(const InstallReport& report) {
  const install::InstallOutcome& outcome = report.outcome;
  json attempts = json::array();
  for (const auto& a : outcome.attempts) attempts.push_back(attempt_json(a));
  json suggestions = json::array();
  if (!report.ok) {
    for (const auto& s : report.resolution.suggestions) {
      json item{{"kind", resolve::to_string(s.kind)}, {"message", s.message}};
      if (s.command) item["command"] = *s.command;
      suggestions.push_back(item);
    }
  }
  json installed = nullptr;
  if (outcome.installed) {
    const auto& a = outcome.attempts[*outcome.installed];
    installed = {{"filename", a.filename},
                 {"source", a.source},
                 {"url", a.url},
                 {"sha256", a.sha256 ? json(*a.sha256) : json(nullptr)}};
  }
  json plan = nullptr;
  if (outcome.plan) plan = plan_json(*outcome.plan);
  return json{{"requirement", report.resolution.request.text},
              {"dry_run", report.dry_run},
              {"installer", outcome.installer},
              {"installed", installed},
              {"previous", outcome.previous ? json(*outcome.previous) : json(nullptr)},
              {"restore", outcome.restore},
              {"torch_untouched", outcome.torch_untouched},
              {"attempts", attempts},
              {"plan", plan},
              {"suggestions", suggestions},
              {"build", report.build},
              {"warnings", report.resolution.warnings}};
}

std::string install_text(const InstallReport& report) {
  std::string text;
  if (!report.resolution.selected && !report.named_file) {
    // After a hand-over the resolve report was shown before the build.
    if (report.build.is_null()) {
      text = resolve_text(ResolveReport{report.resolution, report.recipe, report.environment,
                                        report.sources, false});
    }
  } else {
    text = outcome_text(report.outcome, report.dry_run);
    const auto& next = report.resolution.suggestions;
    if (!report.ok && !next.empty()) {
      text += "\nwhat now:\n";
      for (const auto& s : next)
        text += "  [" + std::string(resolve::to_string(s.kind)) + "] " + s.message +
                (s.command ? "\n       $ " + *s.command : "") + "\n";
    }
  }
  return text + report.build_text;
}

}  // namespace flashfit::cli
