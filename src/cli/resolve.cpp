// flashfit resolve SPEC: which prebuilt wheel fits this environment, why
// every other candidate does not, and what change would make one fit.
// Exit 0 when a wheel was selected, 1 when none fits, 2 for bad usage.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/resolve_pipeline.hpp"
#include "cli/resolve_report.hpp"
#include "cli/source_flags.hpp"
#include "cli/what_if_flags.hpp"

namespace flashfit::cli {
namespace {

struct ResolveCliOptions {
  std::string spec;
  EnvironmentFlags environment;
  resolve::SourceFlags sources;
  bool all = false;
  bool json = false;
};

// What run_resolve leaves to the process's exit, reachable from a static until
// then, so that a leak checker (the sanitized build's LeakSanitizer) sees
// memory in use, not memory lost.
const Resolved*& kept_until_exit() {
  static const Resolved* kept = nullptr;
  return kept;
}

util::Result<int> run_resolve(const ResolveCliOptions& options) {
  PipelineOptions pipeline;
  pipeline.spec = options.spec;
  pipeline.environment = &options.environment;
  pipeline.sources = &options.sources;
  pipeline.without_interpreter = WithoutInterpreter::what_if_python_version;
  // Text and JSON show a few rejections, nearest first, with their messages
  // (and count the rest by reason); --all every one in rank order.
  if (!options.all) pipeline.explain_rejected = pipeline.rank_rejected = kResolveNearestShown;
  auto resolved = run_pipeline(pipeline);
  if (!resolved) return tl::unexpected(resolved.error());
  const Resolved& r = **resolved;
  ResolveReport report{r.resolution, r.recipe,    r.environment,
                       r.sources,    options.all, &r.config_effects};
  write_stdout(options.json ? resolve_json(report) : resolve_text(report));
  const int code = r.resolution.selected ? 0 : 1;
  // The process ends after this command: thousands of candidates and judged
  // records go back with its pages at exit instead of one free at a time
  // (about 6% of a full-catalog resolve; bench/README.md, the 5 ms goal).
  kept_until_exit() = resolved->release();
  return code;
}

}  // namespace

Runner define_resolve(CLI::App& app) {
  auto options = std::make_shared<ResolveCliOptions>();
  app.add_option("spec", options->spec,
                 "A requirement: flash-attn, flash-attn==2.8.3, 'flash-attn>=2.6,<2.8'")
      ->type_name("SPEC")
      ->required();
  add_environment_flags(app, options->environment);
  add_source_flags(app, options->sources);
  app.add_flag("--all", options->all, "List every candidate, not only the nearest rejections");
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  return [options]() { return run_resolve(*options); };
}

}  // namespace flashfit::cli
