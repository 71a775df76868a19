// flashfit install SPEC|WHEEL: resolve, fetch into the cache, inspect the
// bytes, install with --no-deps (torch is never touched), prove the import,
// and roll back to what was there when nothing works. Exit 0 installed,
// 1 nothing could be installed (the environment is as before), 2 bad usage.
#include "install/install.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/build_command.hpp"
#include "cli/build_report.hpp"
#include "cli/colour.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/install_lock.hpp"
#include "cli/install_report.hpp"
#include "cli/install_requirements.hpp"
#include "cli/resolve_pipeline.hpp"
#include "cli/resolve_report.hpp"
#include "cli/uninstall.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"
#include "workflow/install_flow.hpp"

namespace flashfit::cli {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct InstallCliOptions {
  std::string spec;
  std::vector<std::string> specs;         // as given: one, or with -r any number
  std::vector<std::string> requirements;  // -r FILE (cli/install_requirements)
  std::optional<std::string> lock;        // --lock DIR|FILE (cli/install_lock)
  EnvironmentFlags environment;
  resolve::SourceFlags sources;
  bool dry_run = false;
  std::optional<std::string> toolkit;  // for a hand-over to build
  bool no_build = false;
  bool json = false;
  bool undo = false;  // --undo: put back what the last install replaced
  std::size_t max_attempts = 5;
};

using workflow::hand_over_to_build;
using workflow::installed_ok;
using Pass = workflow::InstallPass;

util::Result<Pass> resolve_and_install(const InstallCliOptions& options,
                                       const PipelineOptions& pipeline) {
  auto resolved = run_pipeline(pipeline);
  if (!resolved) return tl::unexpected(resolved.error());
  workflow::InstallPassOptions pass_options;
  pass_options.dry_run = options.dry_run;
  pass_options.max_attempts = options.max_attempts;
  pass_options.wheel_file = pipeline.wheel_file.has_value();
  pass_options.progress = [](std::string_view line) { note(line); };
  pass_options.warning = [](std::string_view line) {
    std::fprintf(stderr, "flashfit: warning: %.*s\n", static_cast<int>(line.size()), line.data());
  };
  return workflow::install_resolved(std::move(*resolved), pass_options);
}

// What-if flags describe an environment that is not the interpreter's: what
// would be installed there can be shown, but nothing is fetched, installed or
// built into this one (issue 13: cp312 wheels went into a 3.11 venv).
util::Result<InstallCliOptions> dry_run_for_what_if(InstallCliOptions options) {
  auto what_if = what_if_from(options.environment);
  if (!what_if) return tl::unexpected(what_if.error());
  if (what_if->any() && !options.dry_run) {
    options.dry_run = true;
    std::fprintf(stderr,
                 "flashfit: %s describe%s another environment than this interpreter's: a dry run "
                 "(--dry-run), nothing is fetched, installed or built\n",
                 util::join(what_if->describe(), " ").c_str(),
                 what_if->describe().size() == 1 ? "s" : "");
  }
  return options;
}

util::Result<int> run_install(const InstallCliOptions& given) {
  if (given.lock) {
    return run_install_lock({*given.lock, &given.specs, &given.requirements, &given.environment,
                             &given.sources, given.dry_run, given.json, given.undo});
  }
  if (!given.requirements.empty()) {
    if (given.undo) return util::fail(util::ErrorKind::usage, "--undo takes no -r FILE");
    return run_install_requirements(
        {given.requirements, given.specs, &given.environment, given.sources, given.dry_run,
         given.json},
        [&given](const std::string& spec, const resolve::SourceFlags& sources, bool dry_run) {
          InstallCliOptions one = given;
          one.requirements.clear();
          one.specs = {spec};
          one.sources = sources;
          one.dry_run = dry_run;
          return run_install(one);
        });
  }
  if (given.specs.size() > 1)
    return util::fail(util::ErrorKind::usage, "install takes one SPEC; several go with -r FILE");
  if (!given.specs.empty() && given.spec != given.specs.front()) {
    InstallCliOptions one = given;
    one.spec = given.specs.front();
    return run_install(one);
  }
  if (given.undo != given.spec.empty())
    return util::fail(util::ErrorKind::usage,
                      given.undo ? "--undo takes no SPEC: it undoes the last install"
                                 : "install needs a SPEC (or --undo)");
  if (given.undo && given.dry_run)
    return util::fail(util::ErrorKind::usage, "--undo cannot be a --dry-run", {},
                      "what --undo would restore is recorded in "
                      "backups/last-install.json beside the wheels/ of `flashfit cache dir`");
  if (given.undo) return run_install_undo(given.environment, given.json);
  auto adjusted = dry_run_for_what_if(given);
  if (!adjusted) return tl::unexpected(adjusted.error());
  const InstallCliOptions& options = *adjusted;
  PipelineOptions pipeline;
  pipeline.environment = &options.environment;
  pipeline.sources = &options.sources;
  std::error_code ec;
  if (util::ends_with(options.spec, ".whl")) {
    if (!fs::is_regular_file(options.spec, ec))
      return util::fail(util::ErrorKind::input, "no such wheel file", options.spec);
    pipeline.wheel_file = fs::path(options.spec);
  } else {
    pipeline.spec = options.spec;
  }
  auto pass = resolve_and_install(options, pipeline);
  if (!pass) return tl::unexpected(pass.error());

  json build_report = nullptr;
  std::string build_text;
  if (hand_over_to_build(*pass, options.no_build, options.dry_run)) {
    const Resolved& first = *pass->resolved;
    if (!options.json)
      write_stdout(
          resolve_text({first.resolution, first.recipe, first.environment, first.sources, false}));
    note("no prebuilt wheel works here: building " + options.spec + " from source");
    build::BuildRequest request;
    request.spec = options.spec;
    request.package = first.resolution.request.name;
    SdistSources sdists = sdist_sources(first.config, options.sources);
    request.index_urls = sdists.index_urls;
    request.find_links = sdists.find_links;
    auto cache_root = util::require_cache_root();
    if (!cache_root) return tl::unexpected(cache_root.error());
    request.cache_root = *cache_root;
    // The resolve probed the toolkit only if nothing was picked; a picked wheel
    // that failed its import leaves it unprobed, and preflight needs nvcc's facts.
    // Probed once per command: never a second `nvcc --version`.
    env::Environment environment = first.environment;
    if (!first.toolkit_probed) environment.toolkit = env::probe_toolkit(first.probe.toolkit);
    if (options.toolkit) {
      auto chosen = choose_toolkit(*options.toolkit, first.probe, environment, options.json);
      if (!chosen) return tl::unexpected(chosen.error());
      request.toolkit_origin = *chosen;
    }
    auto built = run_build_shown(environment, first.book, request, options.json);
    if (!built) {
      if (built.error().kind == util::ErrorKind::interrupted) return tl::unexpected(built.error());
      build_report = {
          {"ok", false},
          {"stage", "source"},
          {"failure", built.error().message},
          {"hint", built.error().hint.empty() ? json(nullptr) : json(built.error().hint)}};
      build_text = "\nno source build: " + built.error().message +
                   (built.error().hint.empty() ? "" : " (" + built.error().hint + ")") + "\n";
    } else {
      build_report = build_json(options.spec, *built);
      build_text = build_outcome_text(*built);
      if (built->ok) {
        if (!options.json) write_stdout(build_text);
        build_text.clear();
        auto again = resolve_and_install(options, pipeline);
        if (!again) return tl::unexpected(again.error());
        pass = std::move(again);
      }
    }
  }
  const Resolved& r = *pass->resolved;
  const bool ok = installed_ok(*pass, options.dry_run);
  const InstallReport report{
      r.resolution,     r.recipe, r.environment,   r.sources,    pass->outcome,
      pass->named_file, ok,       options.dry_run, build_report, build_text};
  write_stdout(options.json ? install_json(report).dump(2) + "\n" : install_text(report));
  return ok ? 0 : 1;
}

}  // namespace

Runner define_install(CLI::App& app) {
  auto options = std::make_shared<InstallCliOptions>();
  app.add_option("spec", options->specs,
                 "A requirement (flash-attn, 'flash-attn>=2.6,<2.8') or a local .whl file; "
                 "with -r, any number")
      ->type_name("SPEC");
  app.add_option(
         "-r,--requirement", options->requirements,
         "Install from a requirements file (repeatable): flashfit's packages get the "
         "wheel that fits, the other lines go to pip / uv first (docs/install-requirements.md)")
      ->type_name("FILE")
      ->allow_extra_args(false);
  app.add_option("--lock", options->lock,
                 "Install exactly what a lock names: DIR (its flashfit-locks.json picks the file "
                 "for this environment) or one lock FILE (docs/install-lock.md)")
      ->type_name("DIR|FILE");
  add_environment_flags(app, options->environment);
  add_source_flags(app, options->sources);
  app.add_flag("--dry-run", options->dry_run, "Show what would be installed; change nothing");
  app.add_flag("--undo", options->undo,
               "Put back the version the last install replaced (its backup is kept until then)");
  app.add_flag("--no-build", options->no_build, "Never hand over to a source build");
  app.add_option("--toolkit", options->toolkit,
                 "For a hand-over to a source build: the CUDA toolkit (auto, pypi, machine or a "
                 "CUDA_HOME path; see flashfit build --help)")
      ->type_name("auto|pypi|machine|PATH");
  app.add_option("--max-attempts", options->max_attempts,
                 "Candidates to try before giving up (default 5)")
      ->type_name("N");
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  return [options]() { return run_install(*options); };
}

}  // namespace flashfit::cli
