#pragma once
// `flashfit build SPEC|SDIST|DIR` and the source build install hands over to:
// where sdists are looked for, the --toolkit choice, the environment probed
// once, the build run. Typed values only: its plan, step lines and the
// toolkit's choice go to the caller's sinks; cli/build renders the report.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "build/build.hpp"
#include "env/environment.hpp"
#include "resolve/config.hpp"
#include "resolve/gather.hpp"
#include "resolve/recipe.hpp"
#include "util/error.hpp"

namespace flashfit::workflow {

using Say = std::function<void(std::string_view)>;

struct SdistSources {
  std::vector<std::string> index_urls;  // simple-index roots
  std::vector<std::string> find_links;
  bool defaulted = false;  // none configured: PyPI's simple index, as pip does
  // --offline: the network indexes and find-links URLs left out (PyPI's
  // default is not added): only local directories are read.
  std::vector<std::string> offline_skipped;
};

// --index-url replaces the configured simple indexes, --extra-index-url adds;
// find-links come from the config and --find-links; disabled ones are left out;
// under --offline only local find-links directories remain.
SdistSources sdist_sources(const resolve::Config& config, const resolve::SourceFlags& flags);

// What-if facts other than the GPUs (which only pick archs) describe a torch
// or Python that is not here: such a build can only be planned. Pure.
bool build_plans_only(const env::WhatIf& what_if);

// Where a build's lines go; each may be empty (nothing shown, as with --json).
struct BuildSinks {
  Say say;      // step lines ("fetching the sdist", ...)
  Say toolkit;  // --toolkit's choice and its assembly
  // The plan and preflight, once known, before anything compiles.
  std::function<void(const build::SourceTree&, const build::BuildPlan&,
                     const build::PreflightReport&)>
      on_planned;
  bool progress_bar = false;  // a bar on the terminal, else plain lines
};

// --toolkit FLAG (auto, pypi, machine or a CUDA_HOME path): replaces the
// environment's toolkit facts with the chosen toolkit's, assembling one from
// PyPI into the cache when asked (build/toolkit_provision). Returns the build
// record's note on how the toolkit was chosen. `plan_only` (what-if flags
// describe another machine than this one): nothing is downloaded for it; a
// toolkit the cache does not hold yet is named, and the machine's stays in the
// environment (the plan's nvcc checks then read it). A dry run of this machine
// does assemble, so that its plan is checked against the toolkit it would use.
util::Result<std::string> choose_toolkit(const std::string& flag, const env::ProbeOptions& probe,
                                         env::Environment& environment, const Say& say,
                                         bool plan_only = false);

// One build run with the request's sinks set from `sinks`.
util::Result<build::BuildOutcome> run_build_with(const env::Environment& environment,
                                                 const resolve::RecipeBook& recipes,
                                                 build::BuildRequest request,
                                                 const BuildSinks& sinks);

struct BuildFlowInput {
  // The spec and the plan's settings from the flags; sources, toolkit origin
  // and cache root are filled in here.
  build::BuildRequest request;
  const resolve::Config* config = nullptr;
  const resolve::RecipeBook* book = nullptr;  // the outcome's recipe points into it
  const resolve::SourceFlags* sources = nullptr;
  env::ProbeOptions probe;
  std::optional<std::string> toolkit;  // --toolkit
  // Whether the probed environment can be built in (the CLI's policy).
  std::function<util::Result<void>(const env::Environment&)> require_interpreter;
  BuildSinks sinks;
  // Told (once, before probing) when what-if flags turn the build into a plan.
  std::function<void(const std::vector<std::string>& what_if)> on_plan_only;
};

struct BuildReport {
  std::string spec;
  build::BuildOutcome outcome;
  bool dry_run = false;  // asked for, or forced by what-if flags
};

// Probe (toolkit included), choose the toolkit, build. Errors: bad flags, no
// interpreter, Ctrl-C, a source that cannot be had; a failed preflight, build
// or check is a report whose outcome is not ok.
util::Result<BuildReport> build_flow(BuildFlowInput input);

}  // namespace flashfit::workflow
