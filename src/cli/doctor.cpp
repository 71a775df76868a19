// flashfit doctor [PACKAGE...]: every fact that decides which binary works
// here, what to fix, and the answer per package (installed and importable /
// the wheel that fits and its command / why none fits and the next step).
// Findings are advice: doctor exits 0 whatever it finds (2 for bad usage).

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/doctor_answer.hpp"
#include "cli/environment_json.hpp"
#include "cli/environment_text.hpp"
#include "cli/resolve_pipeline.hpp"
#include "cli/source_flags.hpp"
#include "cli/what_if_flags.hpp"
#include "env/findings.hpp"
#include "install/installed.hpp"
#include "resolve/suggestions.hpp"
#include "util/interrupt.hpp"

namespace flashfit::cli {
namespace {

struct DoctorOptions {
  std::vector<std::string> packages;  // none: every recipe's package
  EnvironmentFlags environment;
  resolve::SourceFlags sources;
  bool json = false;
};

// The import that proves an installed package: its recipe's compiled module.
// Only on the real interpreter: under what-if flags the environment judged is not it.
void check_installed(PackageFacts& facts, const resolve::Recipe* recipe,
                     const env::Environment& environment) {
  const auto& interpreter = *environment.python.interpreter;
  auto found = install::find_installed(interpreter.site_dirs, facts.package);
  if (!found) return;
  facts.installed_version = found->version;
  if (environment.what_if.any()) {
    facts.import_skipped = "what-if flags describe another environment";
  } else if (!recipe || recipe->binary_module.empty()) {
    facts.import_skipped = "no recipe names its compiled module";
  } else {
    auto check = install::check_imports(
        {interpreter.executable, {recipe->binary_module}, false, true, std::chrono::seconds{120}});
    if (check) {
      facts.import_check = *check;
    } else {
      facts.import_skipped = "the check could not run: " + check.error().message;
    }
  }
}

std::string install_command(const std::string& package, const env::Environment& environment,
                            const EnvironmentFlags& flags) {
  std::string out = "flashfit install " + resolve::shell_quote(package);
  for (const auto& [flag, value] : command_context(environment, flags).flags)
    out.append(" ").append(flag).append(" ").append(value);
  return out;
}

// One package's facts: installed (and its import), else the resolver's answer
// through the same pipeline as `flashfit resolve`.
// The sources for the next package: once the network failed for one, the
// rest are answered offline (a blackholed network would cost every package
// its connect timeouts), and their notes say why.
struct Network {
  resolve::SourceFlags flags;
  std::string offline_reason;
};

util::Result<PackageAnswer> answer_for(const std::string& package, const DoctorOptions& options,
                                       const env::Environment& environment,
                                       const resolve::RecipeBook& book, Network& network) {
  PackageFacts facts;
  const resolve::Recipe* recipe = book.find(package);
  facts.package = recipe ? recipe->name : package;
  check_installed(facts, recipe, environment);
  if (facts.import_check && facts.import_check->ok()) {
    facts.cannot_run = kernels_cannot_run(recipe, environment);
    if (recipe && recipe->fallback.ends_with("_attention"))
      facts.fallback_command = "flashfit fallback";
    return decide_answer(facts);
  }
  PipelineOptions pipeline;
  pipeline.spec = package;
  pipeline.environment = &options.environment;
  pipeline.sources = &network.flags;
  pipeline.explain_rejected = 1;
  pipeline.probed = &environment;
  pipeline.print_warnings = false;
  auto resolved = run_pipeline(pipeline);
  if (!resolved) {
    if (resolved.error().kind == util::ErrorKind::usage ||
        resolved.error().kind == util::ErrorKind::interrupted)
      return tl::unexpected(resolved.error());
    facts.error = resolved.error().message;
    return decide_answer(facts);
  }
  const Resolved& r = **resolved;
  facts.package = r.resolution.request.name;
  for (const resolve::SourceReport& s : r.sources) {
    if (s.status.rfind("unreachable", 0) == 0)
      facts.unreachable.push_back(s.plan.name + ": " + s.status);
  }
  if (r.resolution.selected) {
    for (const std::string& n : r.resolution.candidates[*r.resolution.selected].notes) {
      if (n.find("could not be confirmed") != std::string::npos)
        facts.unreachable.push_back("the pick's URL: " + n.substr(0, n.find("; --offline")));
    }
  }
  facts.offline_reason = network.offline_reason;
  if (!facts.unreachable.empty() && !network.flags.offline) {
    network.flags.offline = true;
    network.offline_reason = "the network was unavailable for " + facts.package;
  }
  facts.resolution = &r.resolution;
  facts.install_command = install_command(facts.package, r.environment, options.environment);
  return decide_answer(facts);
}

util::Result<int> run_doctor(const DoctorOptions& options) {
  auto probe = probe_options_from(options.environment);
  if (!probe) return tl::unexpected(probe.error());
  const auto environment = env::probe_environment(*probe);
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  if (auto usable =
          require_interpreter(environment, options.environment, WithoutInterpreter::refuse);
      !usable) {
    return tl::unexpected(usable.error());
  }
  const auto findings = env::diagnose(environment);
  // Ctrl-C during the probe: report it, and print no result that might be partial.
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  auto setup = load_user_setup();
  if (!setup) return tl::unexpected(setup.error());
  std::vector<std::string> packages = options.packages;
  if (packages.empty()) {
    for (const resolve::Recipe& r : setup->book.recipes()) packages.push_back(r.name);
  }
  std::vector<PackageAnswer> answers;
  Network network{options.sources, options.sources.offline ? "--offline" : ""};
  for (const std::string& package : packages) {
    auto answer = answer_for(package, options, environment, setup->book, network);
    if (!answer) return tl::unexpected(answer.error());
    answers.push_back(std::move(*answer));
  }
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  if (options.json) {
    auto doc = environment_json(environment);
    doc["findings"] = findings_json(findings);
    doc["answers"] = answer_json(answers);
    write_stdout(doc.dump(2) + "\n");
  } else {
    write_stdout(environment_text(environment) + "\n" + findings_text(findings) +
                 answer_text(answers));
  }
  return 0;
}

}  // namespace

Runner define_doctor(CLI::App& app) {
  auto options = std::make_shared<DoctorOptions>();
  app.add_option("packages", options->packages,
                 "Packages to answer for (default: every package with a recipe)")
      ->type_name("PACKAGE");
  add_environment_flags(app, options->environment);
  add_source_flags(app, options->sources);
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  return [options]() { return run_doctor(*options); };
}

}  // namespace flashfit::cli
