// flashfit build SPEC|SDIST|DIR: build a wheel from source for exactly this
// environment (the GPUs here, the memory there is), check it and cache it so
// installs take it. Exit 0 built (or planned with --dry-run), 1 preflight,
// build or check failed, 2 bad usage, 130 interrupted (nothing left running).
#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "build/plan.hpp"
#include "cli/build_report.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/publish_built.hpp"
#include "cli/source_flags.hpp"
#include "cli/what_if_flags.hpp"
#include "util/strings.hpp"
#include "workflow/build_flow.hpp"
#include "workflow/publish_target.hpp"

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

  auto setup = load_user_setup();
  if (!setup) return tl::unexpected(setup.error());
  auto probe = probe_options_from(options.environment);
  if (!probe) return tl::unexpected(probe.error());
  workflow::BuildFlowInput input;
  input.request = std::move(request);
  input.config = &setup->config;
  input.book = &setup->book;
  input.sources = &options.sources;
  input.probe = std::move(*probe);
  input.toolkit = options.toolkit;
  input.require_interpreter = [&options](const env::Environment& environment) {
    return require_interpreter(environment, options.environment, WithoutInterpreter::refuse);
  };
  input.sinks = build_sinks(options.json);
  input.on_plan_only = [](const std::vector<std::string>& what_if) {
    // (stderr: said with --json too, where the report's "dry_run" shows it as well.)
    std::fprintf(stderr,
                 "flashfit: %s describe%s another environment than this interpreter's: "
                 "planning only (--dry-run)\n",
                 util::join(what_if, " ").c_str(), what_if.size() == 1 ? "s" : "");
  };
  // A target that cannot be published to is said before hours of compiling.
  if (options.publish) {
    if (auto target = workflow::open_target(*options.publish); !target)
      return tl::unexpected(std::move(target.error()).with_context("--publish"));
  }
  auto report = workflow::build_flow(std::move(input));
  if (!report) return tl::unexpected(report.error());
  const build::BuildOutcome& outcome = report->outcome;
  if (options.publish && report->dry_run && !options.json)
    note("--publish " + *options.publish + ": nothing is published in a dry run");
  if (options.json) {
    nlohmann::json out = build_json(options.spec, outcome);
    if (!options.publish || !outcome.ok || !outcome.wheel) {
      out["publish"] = nullptr;
      write_stdout(out.dump(2) + "\n");
      return outcome.ok ? 0 : 1;
    }
    // The publish's outcome is part of the one document: its status and exit code.
    auto published = publish_built_wheel(outcome.wheel->entry, *options.publish, true);
    out["publish"] = {{"target", *options.publish},
                      {"ok", published && *published == 0},
                      {"refused", published && *published != 0},
                      {"error", published ? nlohmann::json(nullptr)
                                          : nlohmann::json(util::render(published.error()))}};
    write_stdout(out.dump(2) + "\n");
    if (!published) return util::exit_code(published.error().kind);
    return *published;
  } else {
    // The interpreter and GPUs it was built for, so that the next command
    // installs there (a bare `flashfit install` asks python3 on PATH).
    std::string install_flags;
    if (options.environment.python)
      install_flags += " --python " + util::shell_quote(*options.environment.python);
    for (const std::string& gpu : options.environment.gpus)
      install_flags += " --gpu " + util::shell_quote(gpu);
    write_stdout(build_outcome_text(outcome, install_flags));
  }
  if (options.publish && outcome.ok && outcome.wheel)
    return publish_built_wheel(outcome.wheel->entry, *options.publish, false);
  return outcome.ok ? 0 : 1;
}

}  // namespace

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
