// flashfit inspect TARGET: will this wheel / extension module load and run
// here? TARGET is a .whl, a shared object, or the name of a distribution
// installed in the chosen interpreter. Exit 0 compatible, 1 incompatible,
// 2 unreadable input or bad usage.

#include "binary/inspect.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <system_error>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/inspect_report.hpp"
#include "cli/source_flags.hpp"
#include "cli/what_if_flags.hpp"
#include "env/load_host.hpp"
#include "install/installed.hpp"
#include "pkg/name.hpp"
#include "resolve/required_modules.hpp"
#include "util/interrupt.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

namespace fs = std::filesystem;

struct InspectCliOptions {
  std::string target;
  EnvironmentFlags environment;
  bool json = false;
};

util::Result<int> run_inspect(const InspectCliOptions& options) {
  const fs::path target(options.target);
  std::error_code ec;
  const bool is_wheel = util::ends_with(options.target, ".whl");
  const bool is_file = fs::is_regular_file(target, ec);
  if (is_wheel && !is_file) {
    return util::fail(util::ErrorKind::input, "no such wheel file", options.target);
  }
  if (!is_file &&
      (options.target.find('/') != std::string::npos || util::ends_with(options.target, ".so"))) {
    return util::fail(util::ErrorKind::input, "no such file", options.target);
  }
  if (!is_file && !pkg::is_valid_project_name(options.target)) {
    return util::fail(util::ErrorKind::usage,
                      fmt::format("'{}' is neither a file nor a distribution name",
                                  util::printable(options.target)),
                      "", "give a .whl or .so path, or the name of an installed distribution");
  }

  auto probe = probe_options_from(options.environment);
  if (!probe) return tl::unexpected(probe.error());
  const env::Environment environment = env::probe_environment(*probe);
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  // Without an interpreter nothing here is known (its tags, its torch): a
  // verdict would be invented.
  if (auto usable =
          require_interpreter(environment, options.environment, WithoutInterpreter::refuse);
      !usable) {
    return tl::unexpected(usable.error());
  }
  binary::LoadHost host = env::load_host_for(environment);
  // Which compiled module each package must carry: from the recipes (built-in and the user's).
  auto setup = load_user_setup();
  if (!setup) return tl::unexpected(setup.error());
  host.required_modules = resolve::required_modules(setup->book);

  util::Result<binary::InspectReport> report = tl::unexpected(util::Error{});
  if (is_wheel) {
    report = binary::inspect_wheel(target, host, {wheel_extraction_dir(), {}});
  } else if (is_file) {
    report = binary::inspect_library(target, host);
  } else {
    std::optional<install::InstalledDist> installed;
    if (environment.python.interpreter.known()) {
      installed =
          install::find_installed(environment.python.interpreter->site_dirs, options.target);
    }
    if (!installed) {
      const std::string where = environment.python.interpreter.known()
                                    ? environment.python.interpreter->executable
                                    : std::string("the interpreter (none found)");
      return util::fail(
          util::ErrorKind::input,
          fmt::format("no distribution '{}' is installed for {}", options.target, where), "",
          "give a .whl or .so path, or choose the environment with --python");
    }
    report = binary::inspect_installed(installed->dist_info, host);
  }
  // Ctrl-C during the read: say so, not "unreadable", and print nothing partial.
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  if (!report) return tl::unexpected(std::move(report.error()));

  if (options.json) {
    write_stdout(inspect_json(*report, environment).dump(2) + "\n");
  } else {
    write_stdout(inspect_text(*report, environment));
  }
  return report->compatible() ? 0 : 1;
}

}  // namespace

Runner define_inspect(CLI::App& app) {
  auto options = std::make_shared<InspectCliOptions>();
  app.add_option("target", options->target,
                 "A .whl file, a .so file, or an installed distribution's name")
      ->type_name("TARGET")
      ->required();
  add_environment_flags(app, options->environment);
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  return [options]() { return run_inspect(*options); };
}

}  // namespace flashfit::cli
