// flashfit build SPEC|SDIST|DIR: build a wheel from source for exactly this
// environment (the GPUs here, the memory there is), check it and cache it so
// installs take it. Exit 0 built (or planned with --dry-run), 1 preflight,
// build or check failed, 2 bad usage, 130 interrupted (nothing left running).
#include "build/build.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "build/toolkit_provision.hpp"
#include "cli/build_command.hpp"
#include "cli/build_report.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/publish_built.hpp"
#include "cli/source_flags.hpp"
#include "cli/what_if_flags.hpp"
#include "net/progress.hpp"
#include "util/interrupt.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

struct BuildCliOptions {
  std::string spec;
  EnvironmentFlags environment;
  resolve::SourceFlags sources;
  std::optional<std::string> archs;
  std::optional<unsigned> jobs;
  std::optional<unsigned> threads;
  std::optional<std::string> memory_budget;
  std::optional<std::string> toolkit;
  std::optional<std::string> publish;  // --publish TARGET
  bool keep_temp = false;
  bool dry_run = false;
  bool no_governor = false;
  bool calibrate = false;
  bool no_calibrate = false;
  bool json = false;
};

void say_line(std::string_view line) {
  std::fprintf(stderr, "flashfit: %.*s\n", static_cast<int>(line.size()), line.data());
}

util::Result<int> run_build_cli(const BuildCliOptions& options) {
  build::BuildRequest request;
  request.spec = options.spec;
  if (options.archs) {
    std::vector<std::string> archs;
    for (std::string_view a :
         util::split(*options.archs, options.archs->find(';') != std::string::npos ? ';' : ',')) {
      if (!util::trim(a).empty()) archs.emplace_back(util::trim(a));
    }
    if (archs.empty())
      return util::fail(util::ErrorKind::usage, "--archs is empty", {},
                        "e.g. --archs 80 or --archs 8.9,9.0");
    request.plan.archs = std::move(archs);
  }
  if ((options.jobs && *options.jobs == 0) || (options.threads && *options.threads == 0)) {
    return util::fail(util::ErrorKind::usage, "--jobs and --threads must be at least 1");
  }
  request.plan.jobs = options.jobs;
  request.plan.threads = options.threads;
  if (options.memory_budget) {
    auto bytes = build::parse_memory_size(*options.memory_budget);
    if (!bytes) return tl::unexpected(std::move(bytes.error()).with_context("--memory-budget"));
    request.plan.memory_budget = *bytes;
  }
  request.keep_temp = options.keep_temp;
  request.dry_run = options.dry_run;
  request.governor = !options.no_governor;
  request.calibration = options.no_calibrate ? build::CalibrationPolicy::never
                        : options.calibrate  ? build::CalibrationPolicy::always
                                             : build::CalibrationPolicy::when_building;

  auto config = load_user_config();
  if (!config) return tl::unexpected(config.error());
  auto book = load_recipes(*config);
  if (!book) return tl::unexpected(book.error());
  auto probe = probe_options_from(options.environment);
  if (!probe) return tl::unexpected(probe.error());
  // A build for another torch or Python than the one here cannot run: what-if
  // facts other than the GPUs (which only pick archs) make it a plan.
  env::WhatIf gpu_only;
  gpu_only.gpus = probe->what_if.gpus;
  if (probe->what_if.any() &&
      !(gpu_only.any() && probe->what_if.describe() == gpu_only.describe()) && !request.dry_run) {
    request.dry_run = true;
    // (stderr: said with --json too, where the report's "dry_run" shows it as well.)
    std::fprintf(stderr,
                 "flashfit: %s describe%s another environment than this interpreter's: "
                 "planning only (--dry-run)\n",
                 util::join(probe->what_if.describe(), " ").c_str(),
                 probe->what_if.describe().size() == 1 ? "s" : "");
  }
  env::Environment environment = env::probe_environment(*probe);
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  if (auto usable =
          require_interpreter(environment, options.environment, WithoutInterpreter::refuse);
      !usable) {
    return tl::unexpected(usable.error());
  }
  if (options.toolkit) {
    auto chosen = choose_toolkit(*options.toolkit, *probe, environment, options.json);
    if (!chosen) return tl::unexpected(chosen.error());
    request.toolkit_origin = *chosen;
  }
  SdistSources sdists = sdist_sources(*config, options.sources);
  request.index_urls = sdists.index_urls;
  request.find_links = sdists.find_links;
  auto cache_root = util::require_cache_root();
  if (!cache_root) return tl::unexpected(cache_root.error());
  request.cache_root = *cache_root;

  auto outcome = run_build_shown(environment, *book, std::move(request), options.json);
  if (!outcome) return tl::unexpected(outcome.error());
  if (options.json) {
    write_stdout(build_json(options.spec, *outcome).dump(2) + "\n");
  } else {
    write_stdout(build_outcome_text(*outcome));
  }
  if (options.publish && outcome->ok && outcome->wheel)
    return publish_built_wheel(outcome->wheel->entry, *options.publish, options.json);
  return outcome->ok ? 0 : 1;
}

}  // namespace

// --toolkit: keeps the probed toolkit, or probes the one at PATH, or assembles
// torch's CUDA from PyPI into the cache; the environment's toolkit facts are
// then those of the chosen one (so the plan's CUDA_HOME and the preflight see
// it). Returns what the build record says about the toolkit.
util::Result<std::string> choose_toolkit(const std::string& flag, const env::ProbeOptions& probe,
                                         env::Environment& environment, bool json) {
  auto request = build::parse_toolkit_flag(flag);
  if (!request) return tl::unexpected(request.error());
  env::ToolkitProbeOptions again = probe.toolkit;
  std::string origin;
  if (request->mode == build::ToolkitMode::path) {
    again.cuda_home = request->path.string();
    again.cuda_path.reset();
    origin = "--toolkit " + request->path.string();
  } else {
    auto decision = build::decide_toolkit(environment, request->mode);
    if (!decision) return tl::unexpected(decision.error());
    if (!json) say_line("toolkit: " + decision->reason);
    if (!decision->assemble) return std::string("the machine's (" + decision->reason + ")");
    auto packages = build::toolkit_packages(*decision->assemble);
    if (!packages) return tl::unexpected(packages.error());
    if (!environment.python.interpreter.known()) {
      return util::fail(util::ErrorKind::usage, "no interpreter to assemble the toolkit with",
                        environment.python.interpreter.unknown_reason, "pass --python PATH");
    }
    auto cache_root = util::require_cache_root();
    if (!cache_root) return tl::unexpected(cache_root.error());
    build::ProvisionOptions provision;
    if (!json) provision.say = say_line;
    auto toolkit = build::provision_toolkit(environment.python.interpreter->executable, *cache_root,
                                            *packages, provision);
    if (!toolkit) return tl::unexpected(toolkit.error());
    if (!json)
      say_line(std::string(toolkit->reused ? "toolkit: reusing " : "toolkit: ") +
               toolkit->describe());
    again.cuda_home = toolkit->cuda_home.string();
    again.cuda_path.reset();
    origin = toolkit->describe();
  }
  environment.toolkit = env::probe_toolkit(again);
  if (!environment.toolkit.nvcc.known() ||
      environment.toolkit.nvcc_origin != env::NvccOrigin::cuda_home) {
    return util::fail(util::ErrorKind::usage, "--toolkit " + flag + ": no bin/nvcc there",
                      environment.toolkit.nvcc.unknown_reason,
                      "give the root of a CUDA toolkit (the directory holding bin/nvcc)");
  }
  return origin;
}

SdistSources sdist_sources(const resolve::Config& config, const resolve::SourceFlags& flags) {
  SdistSources out;
  if (flags.index_url) {
    out.index_urls.push_back(*flags.index_url);
  } else {
    for (const resolve::IndexConfig& index : config.indexes) {
      if (index.enabled && index.kind == resolve::IndexKind::simple)
        out.index_urls.push_back(index.location);
    }
  }
  for (const std::string& url : flags.extra_index_urls) out.index_urls.push_back(url);
  for (const resolve::IndexConfig& index : config.indexes) {
    if (index.enabled && index.kind != resolve::IndexKind::simple)
      out.find_links.push_back(index.location);
  }
  for (const std::string& link : flags.find_links) out.find_links.push_back(link);
  if (out.index_urls.empty() && out.find_links.empty()) {
    out.index_urls.push_back("https://pypi.org/simple");
    out.defaulted = true;
  }
  return out;
}

util::Result<build::BuildOutcome> run_build_shown(const env::Environment& environment,
                                                  const resolve::RecipeBook& recipes,
                                                  build::BuildRequest request, bool json) {
  request.progress_bar = net::stderr_wants_bar();
  request.say = [](std::string_view line) { note(line); };
  if (!json) {
    request.on_planned = [](const build::SourceTree& source, const build::BuildPlan& plan,
                            const build::PreflightReport& preflight) {
      // Shown before anything compiles; the name comes from the source when known.
      std::string package = source.scan.name.value_or("");  // setup.py alone does not say it
      write_stdout(plan_text(source, package, plan, preflight));
    };
  }
  return build::run_build(environment, recipes, request);
}

Runner define_build(CLI::App& app) {
  auto options = std::make_shared<BuildCliOptions>();
  app.add_option(
         "spec", options->spec,
         "What to build: a source directory, an sdist (.tar.gz, .zip), its URL, or a requirement "
         "(flash-attn==2.8.3) whose sdist is fetched from the indexes")
      ->type_name("SPEC")
      ->required();
  add_environment_flags(app, options->environment);
  add_source_flags(app, options->sources);
  app.add_option("--archs", options->archs,
                 "GPU archs to compile, as the recipe's tokens (80;90) or capabilities (8.9,9.0); "
                 "default: the GPUs here")
      ->type_name("LIST");
  app.add_option("--jobs", options->jobs,
                 "Parallel compile jobs (MAX_JOBS); default: what the memory budget allows")
      ->type_name("N");
  app.add_option("--threads", options->threads,
                 "nvcc threads per job (NVCC_THREADS); default: the recipe's, capped by the archs")
      ->type_name("N");
  app.add_option("--memory-budget", options->memory_budget,
                 "Memory the build may use (16G, 800M); default: available memory (cgroup-aware) "
                 "minus a reserve")
      ->type_name("SIZE");
  app.add_option(
         "--toolkit", options->toolkit,
         "The CUDA toolkit to build with: auto (the machine's nvcc when its major is torch's "
         "CUDA major, else torch's CUDA assembled from PyPI's nvidia-cuda-nvcc wheels into the "
         "cache), pypi (always assembled), machine, or a CUDA_HOME path; default: the machine's")
      ->type_name("auto|pypi|machine|PATH");
  app.add_option("--publish", options->publish,
                 "Publish the built wheel to TARGET (a directory, file:///DIR or "
                 "s3://BUCKET/PREFIX; docs/publish.md)")
      ->type_name("TARGET");
  app.add_flag("--keep-temp", options->keep_temp,
               "Keep the temp dir (source, build tree, wheel) for a look");
  app.add_flag("--dry-run", options->dry_run, "Show the plan and preflight; build nothing");
  app.add_flag("--no-governor", options->no_governor,
               "Do not pause compilers when memory runs short");
  auto* calibrate = app.add_flag(
      "--calibrate", options->calibrate,
      "Time a small CUDA file with this nvcc now (cached), even with --dry-run, to scale "
      "the recipe's measured unit costs to this machine");
  app.add_flag("--no-calibrate", options->no_calibrate,
               "Use the recipe's unit costs as measured, unscaled")
      ->excludes(calibrate);
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  return [options]() { return run_build_cli(*options); };
}

}  // namespace flashfit::cli
