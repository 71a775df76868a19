// flashfit build SPEC|SDIST|DIR: build a wheel from source for exactly this
// environment (the GPUs here, the memory there is), check it and cache it so
// installs take it. Exit 0 built (or planned with --dry-run), 1 preflight,
// build or check failed, 2 bad usage, 130 interrupted (nothing left running).
#include "build/build.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/build_command.hpp"
#include "cli/build_report.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/source_flags.hpp"
#include "cli/what_if_flags.hpp"
#include "net/progress.hpp"
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
  bool keep_temp = false;
  bool dry_run = false;
  bool no_governor = false;
  bool calibrate = false;
  bool no_calibrate = false;
  bool json = false;
};

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
    if (!options.json)
      std::fprintf(
          stderr,
          "flashfit: what-if flags describe another environment: planning only (--dry-run)\n");
  }
  const env::Environment environment = env::probe_environment(*probe);
  SdistSources sdists = sdist_sources(*config, options.sources);
  request.index_urls = sdists.index_urls;
  request.find_links = sdists.find_links;
  auto cache_root = util::cache_root();
  if (!cache_root)
    return util::fail(util::ErrorKind::failed, "no cache directory", {},
                      "set FLASHFIT_CACHE_DIR or HOME");
  request.cache_root = *cache_root;

  auto outcome = run_build_shown(environment, *book, std::move(request), options.json);
  if (!outcome) return tl::unexpected(outcome.error());
  if (options.json) {
    write_stdout(build_json(options.spec, *outcome).dump(2) + "\n");
  } else {
    write_stdout(build_outcome_text(*outcome));
  }
  return outcome->ok ? 0 : 1;
}

}  // namespace

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
  request.say = [](std::string_view line) {
    std::fprintf(stderr, "flashfit: %.*s\n", static_cast<int>(line.size()), line.data());
  };
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
      ->required();
  add_environment_flags(app, options->environment);
  add_source_flags(app, options->sources);
  app.add_option("--archs", options->archs,
                 "GPU archs to compile, as the recipe's tokens (80;90) or capabilities (8.9,9.0); "
                 "default: the GPUs here");
  app.add_option("--jobs", options->jobs,
                 "Parallel compile jobs (MAX_JOBS); default: what the memory budget allows");
  app.add_option("--threads", options->threads,
                 "nvcc threads per job (NVCC_THREADS); default: the recipe's, capped by the archs");
  app.add_option("--memory-budget", options->memory_budget,
                 "Memory the build may use (16G, 800M); default: available memory (cgroup-aware) "
                 "minus a reserve");
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
