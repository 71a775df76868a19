// install -r's report; see install_requirements_report.hpp.
#include "cli/install_requirements_report.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "cli/install_outcome_json.hpp"

namespace flashfit::cli {
namespace {

using nlohmann::json;

std::string indent(const std::string& text, std::string_view prefix) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out += prefix;
    out += text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

std::string form_words(workflow::RecipeLineForm form) {
  switch (form) {
    case workflow::RecipeLineForm::spec:
      return "a requirement";
    case workflow::RecipeLineForm::wheel_url:
      return "a wheel built for some environment";
    case workflow::RecipeLineForm::sdist:
      return "an sdist";
    case workflow::RecipeLineForm::source:
      return "a source (VCS or directory)";
  }
  return "a requirement";
}

// What stays in the environment when a step failed after the installer's run.
std::vector<std::string> remaining(const InstallRequirementsReport& report) {
  std::vector<std::string> out;
  for (const auto& change : report.installer_changes) out.push_back(workflow::describe(change));
  return out;
}

}  // namespace

std::string requirements_text(const InstallRequirementsReport& report) {
  const auto& plan = report.plan;
  std::string out = report.dry_run ? "plan (dry run: nothing is installed)\n" : "plan\n";
  out += fmt::format("  for {} ({} line{}, one run, {}):\n", report.installer,
                     plan.installer.size(), plan.installer.size() == 1 ? "" : "s",
                     report.installer_shared ? "with the first compiled wheel" : "first");
  if (!workflow::installer_runs(plan)) out += "    (none)\n";
  for (const auto& line : plan.installer)
    out += fmt::format("    {}:{}  {}\n", line.file, line.line, line.text);
  // Option lines go to the installer (-e ./pkg installs a package).
  for (const auto& option : plan.passthrough)
    out += fmt::format("    {}:{}  {}  (option, for the installer)\n", option.file, option.line,
                       option.text);
  for (const auto& line : plan.constraints)
    out += fmt::format("    {}:{}  {}  (constraint)\n", line.file, line.line, line.text);
  out += fmt::format("  flashfit takes ({}):\n", plan.flashfit.size());
  if (plan.flashfit.empty()) out += "    (none)\n";
  for (std::size_t i = 0; i < plan.flashfit.size(); ++i) {
    const auto& taken = plan.flashfit[i];
    const auto& verdict =
        i < report.url_verdicts.size() ? report.url_verdicts[i] : std::optional<UrlVerdict>{};
    const std::string spec = workflow::install_spec(taken, verdict);
    out += fmt::format("    {}  {}  -> flashfit install {}\n", taken.where, taken.recipe, spec);
    if (taken.url) {
      out += fmt::format("      named {}: {}\n", form_words(taken.form), *taken.url);
      if (verdict && verdict->fits && spec != taken.spec) {
        out += "      its name fits here: installed as named, once inspected\n";
      } else if (verdict && verdict->fits) {
        out +=
            "      its name fits here, but it is no file here: flashfit picks by the pin, from "
            "its sources\n";
      } else if (verdict) {
        out += "      it does not fit here:\n";
        for (const auto& reason : verdict->reasons) out += "        - " + reason + "\n";
      }
    }
    for (const auto& note : taken.notes) out += "      note: " + note + "\n";
  }
  for (const auto& skipped : plan.skipped)
    out += fmt::format("  skipped (marker false here): {}  {}\n", skipped.where, skipped.text);
  if (plan.sources.index_url) out += "  index: " + *plan.sources.index_url + "\n";
  for (const auto& url : plan.sources.extra_index_urls) out += "  extra index: " + url + "\n";
  for (const auto& link : plan.sources.find_links) out += "  find-links: " + link + "\n";
  if (report.torch_line) {
    out += fmt::format(
        "  note: {} names torch: the installer's run may change it, and the picks below are for "
        "the torch installed now (a real run picks again after that run)\n",
        *report.torch_line);
  }

  if (report.installer_ok) {
    out += fmt::format("\n{}: {}\n", report.installer,
                       !*report.installer_ok ? "FAILED: " + report.installer_failure
                       : report.installer_shared
                           ? fmt::format("done, in one run with {}'s wheel and its dependencies "
                                         "(torch held at its version)",
                                         report.plan.flashfit.front().recipe)
                           : std::string("done"));
    if (report.installer_changes.empty()) out += "  (nothing changed)\n";
    for (const auto& change : report.installer_changes)
      out += "  " + workflow::describe(change) + "\n";
  }
  for (const auto& run : report.packages) {
    out += fmt::format("\n{} ({}):\n", run.recipe, run.spec);
    if (!run.exit_code) {
      out += "  not attempted (an earlier step failed)\n";
      continue;
    }
    if (!run.error.empty()) out += indent(run.error, "  ");
    out += indent(run.report, "  ");
  }
  if (!report.unmet.empty()) {
    out += "\ndependencies of the compiled packages not satisfied:\n";
    for (const auto& u : report.unmet) out += "  " + workflow::describe(u) + "\n";
    if (!report.fix_command.empty())
      out += "  install them (torch kept): " + report.fix_command + "\n";
  } else if (report.ok && !report.dry_run && !report.packages.empty()) {
    out += "\ndependencies of the compiled packages: satisfied\n";
  }
  if (!report.unchecked.empty()) {
    out +=
        "\ncompiled packages the installer put in as dependencies of the lines (its choice: "
        "not picked for this environment nor verified by flashfit):\n";
    for (const auto& change : report.unchecked) out += "  " + workflow::describe(change) + "\n";
    out += "  check or replace them: " + report.unchecked_command + "\n";
  }
  if (!report.ok && !report.dry_run && report.unmet.empty() && report.unchecked.empty()) {
    out += "\nfailed: ";
    const auto failing = std::find_if(
        report.packages.begin(), report.packages.end(),
        [](const workflow::PackageRun& run) { return run.exit_code && *run.exit_code != 0; });
    // What the failing install changed and put back is its own report's to
    // say (it may have installed nothing at all).
    out += report.installer_ok == false ? std::string(
                                              "the installer's run failed; flashfit "
                                              "installed nothing\n")
           : failing != report.packages.end()
               ? fmt::format(
                     "{} is not installed (its report above says what was tried and "
                     "what was put back)\n",
                     failing->recipe)
               : std::string("a step failed\n");
    const auto left = remaining(report);
    if (!left.empty()) {
      out += "the installer's changes remain:\n";
      for (const auto& line : left) out += "  " + line + "\n";
    }
    for (const auto& back : report.rolled_back) {
      out += back.ok ? fmt::format("rolled back: {}: {}\n", back.package, back.outcome)
                     : fmt::format("NOT rolled back: {}: {}\n", back.package, back.outcome);
    }
  }
  return out;
}

json requirements_json(const InstallRequirementsReport& report) {
  const auto& plan = report.plan;
  json installer_lines = json::array();
  for (const auto& line : plan.installer) {
    installer_lines.push_back({{"where", fmt::format("{}:{}", line.file, line.line)},
                               {"text", line.text},
                               {"hashes", line.hashes}});
  }
  json options = json::array();
  for (const auto& option : plan.passthrough)
    options.push_back(
        {{"where", fmt::format("{}:{}", option.file, option.line)}, {"text", option.text}});
  json constraints = json::array();
  for (const auto& line : plan.constraints)
    constraints.push_back(
        {{"where", fmt::format("{}:{}", line.file, line.line)}, {"text", line.text}});
  json taken = json::array();
  for (std::size_t i = 0; i < plan.flashfit.size(); ++i) {
    const auto& t = plan.flashfit[i];
    json item{{"name", t.recipe},
              {"where", t.where},
              {"form", workflow::to_string(t.form)},
              {"spec", t.spec},
              {"url", t.url ? json(*t.url) : json(nullptr)},
              {"url_fits", nullptr},
              {"url_reasons", json::array()},
              {"notes", t.notes}};
    if (i < report.url_verdicts.size() && report.url_verdicts[i]) {
      item["url_fits"] = report.url_verdicts[i]->fits;
      item["url_reasons"] = report.url_verdicts[i]->reasons;
    }
    taken.push_back(std::move(item));
  }
  json skipped = json::array();
  for (const auto& s : plan.skipped) skipped.push_back({{"where", s.where}, {"text", s.text}});
  const json changes = changes_json(report.installer_changes);
  json packages = json::array();
  for (const auto& run : report.packages) {
    json item{{"name", run.recipe},
              {"spec", run.spec},
              {"exit_code", run.exit_code ? json(*run.exit_code) : json(nullptr)},
              {"error", run.error.empty() ? json(nullptr) : json(run.error)},
              {"report", nullptr}};
    if (!run.report.empty()) {
      json parsed = json::parse(run.report, nullptr, false);
      item["report"] = parsed.is_discarded() ? json(run.report) : parsed;
    }
    packages.push_back(std::move(item));
  }
  const json rolled_back = rolled_back_json(report.rolled_back);
  const json unmet = unmet_json(report.unmet);
  const json unchecked = changes_json(report.unchecked);
  json sources{
      {"index_url", plan.sources.index_url ? json(*plan.sources.index_url) : json(nullptr)},
      {"extra_index_urls", plan.sources.extra_index_urls},
      {"find_links", plan.sources.find_links},
      {"no_index", plan.sources.no_index}};
  return json{
      {"dry_run", report.dry_run},
      {"ok", report.ok},
      {"torch_line", report.torch_line ? json(*report.torch_line) : json(nullptr)},
      {"installer",
       {{"name", report.installer},
        {"command", report.installer_argv},
        {"lines", installer_lines},
        {"options", options},
        {"constraints", constraints},
        {"ran", report.installer_ok.has_value()},
        {"ok", report.installer_ok ? json(*report.installer_ok) : json(nullptr)},
        // The compiled package whose wheel went into the same run, or null.
        {"shared_with",
         report.installer_shared ? json(report.plan.flashfit.front().recipe) : json(nullptr)},
        {"failure",
         report.installer_failure.empty() ? json(nullptr) : json(report.installer_failure)},
        {"changes", changes}}},
      {"flashfit", taken},
      {"skipped", skipped},
      {"sources", sources},
      {"packages", packages},
      {"rolled_back", rolled_back},
      {"unmet_dependencies", unmet},
      {"unchecked_compiled", unchecked},
      {"unchecked_command",
       report.unchecked_command.empty() ? json(nullptr) : json(report.unchecked_command)},
      {"fix_command", report.fix_command.empty() ? json(nullptr) : json(report.fix_command)}};
}

}  // namespace flashfit::cli
