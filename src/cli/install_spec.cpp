// One SPEC or .whl through workflow::install_package, its report rendered:
// `flashfit install SPEC` and each compiled package of `install -r`.
#include "cli/install_spec.hpp"

#include <cstdio>
#include <filesystem>

#include "cli/build_report.hpp"
#include "cli/common.hpp"
#include "cli/install_report.hpp"
#include "cli/resolve_pipeline.hpp"
#include "cli/resolve_report.hpp"
#include "util/strings.hpp"
#include "workflow/install_package.hpp"

namespace flashfit::cli {

namespace fs = std::filesystem;

util::Result<int> install_spec(const InstallSpecOptions& options) {
  PipelineOptions pipeline;
  pipeline.environment = options.environment;
  pipeline.sources = &options.sources;
  std::error_code ec;
  if (util::ends_with(options.spec, ".whl")) {
    if (!fs::is_regular_file(options.spec, ec))
      return util::fail(util::ErrorKind::input, "no such wheel file", options.spec);
    pipeline.wheel_file = fs::path(options.spec);
  } else {
    pipeline.spec = options.spec;
  }
  workflow::InstallPassOptions pass_options;
  pass_options.dry_run = options.dry_run;
  pass_options.max_attempts = options.max_attempts;
  pass_options.wheel_file = pipeline.wheel_file.has_value();
  pass_options.preloaded = options.preloaded;
  pass_options.lines = options.lines;
  pass_options.progress = [](std::string_view line) { note(line); };
  pass_options.warning = [](std::string_view line) {
    std::fprintf(stderr, "flashfit: warning: %.*s\n", static_cast<int>(line.size()), line.data());
  };
  workflow::RealInstallPackageSteps steps(
      [&pipeline] { return run_pipeline(pipeline); }, std::move(pass_options),
      {options.spec, &options.sources, options.toolkit, build_sinks(options.json)});
  workflow::InstallPackageOptions flow;
  flow.dry_run = options.dry_run;
  flow.no_build = options.no_build;
  flow.on_hand_over = [&options](const Resolved& first) {
    if (!options.json)
      write_stdout(
          resolve_text({first.resolution, first.recipe, first.environment, first.sources, false}));
    note("no prebuilt wheel works here: building " + options.spec + " from source");
  };
  if (options.lines) {
    flow.before_build = [lines = options.lines] { return lines->ensure_lines(); };
  }
  flow.on_built = [&options](const build::BuildOutcome& built) {
    if (!options.json) write_stdout(build_outcome_text(built));
  };
  auto done = workflow::install_package(steps, flow);
  if (!done) return tl::unexpected(done.error());
  const Resolved& r = *done->pass.resolved;
  const HandOverParts build = hand_over_parts(options.spec, done->build);
  const InstallReport report{
      r.resolution,          r.recipe, r.environment,   r.sources,  done->pass.outcome,
      done->pass.named_file, done->ok, options.dry_run, build.json, build.text};
  write_stdout(options.json ? install_json(report).dump(2) + "\n" : install_text(report));
  return done->ok ? 0 : 1;
}

}  // namespace flashfit::cli
