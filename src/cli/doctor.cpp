// flashfit doctor: every fact that decides which binary works here, and what
// to fix. Findings are advice: doctor exits 0 whatever it finds.

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/environment_json.hpp"
#include "cli/environment_text.hpp"
#include "cli/what_if_flags.hpp"
#include "env/findings.hpp"
#include "util/interrupt.hpp"

namespace flashfit::cli {
namespace {

struct DoctorOptions {
  EnvironmentFlags environment;
  bool json = false;
};

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
  if (options.json) {
    auto doc = environment_json(environment);
    doc["findings"] = findings_json(findings);
    write_stdout(doc.dump(2) + "\n");
  } else {
    write_stdout(environment_text(environment) + "\n" + findings_text(findings));
  }
  return 0;
}

}  // namespace

Runner define_doctor(CLI::App& app) {
  auto options = std::make_shared<DoctorOptions>();
  add_environment_flags(app, options->environment);
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  return [options]() { return run_doctor(*options); };
}

}  // namespace flashfit::cli
