#include "workflow/build_flow.hpp"

#include <fmt/core.h>

#include <utility>

#include "build/toolkit_provision.hpp"
#include "env/toolkit.hpp"
#include "util/interrupt.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"

namespace flashfit::workflow {

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
  if (flags.offline) {
    // --offline: only local find-links directories (and the cache) are read.
    const auto remote = [](const std::string& location) {
      return location.rfind("http://", 0) == 0 || location.rfind("https://", 0) == 0;
    };
    for (const std::string& url : out.index_urls) out.offline_skipped.push_back(url);
    out.index_urls.clear();
    for (const std::string& link : out.find_links) {
      if (remote(link)) out.offline_skipped.push_back(link);
    }
    std::erase_if(out.find_links, remote);
    return out;
  }
  if (out.index_urls.empty() && out.find_links.empty()) {
    out.index_urls.push_back("https://pypi.org/simple");
    out.defaulted = true;
  }
  return out;
}

bool build_plans_only(const env::WhatIf& what_if) {
  env::WhatIf gpu_only;
  gpu_only.gpus = what_if.gpus;
  return what_if.any() && !(gpu_only.any() && what_if.describe() == gpu_only.describe());
}

util::Result<std::string> choose_toolkit(const std::string& flag, const env::ProbeOptions& probe,
                                         env::Environment& environment, const Say& say,
                                         bool plan_only) {
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
    if (say) say("toolkit: " + decision->reason);
    if (!decision->assemble) return std::string("the machine's (" + decision->reason + ")");
    auto packages = build::toolkit_packages(*decision->assemble);
    if (!packages) return tl::unexpected(packages.error());
    if (!environment.python.interpreter.known()) {
      return util::fail(util::ErrorKind::usage, "no interpreter to assemble the toolkit with",
                        environment.python.interpreter.unknown_reason, "pass --python PATH");
    }
    auto cache_root = util::require_cache_root();
    if (!cache_root) return tl::unexpected(cache_root.error());
    util::Result<build::ProvisionedToolkit> toolkit;
    if (plan_only) {
      // Another machine is described: only a toolkit assembled earlier is used.
      auto cached = build::cached_toolkit(*cache_root, *packages);
      if (!cached) {
        const std::string named = fmt::format(
            "CUDA {} from PyPI ({}), not assembled: the what-if flags describe another machine, "
            "for which nothing is downloaded here; the plan's nvcc checks read this machine's "
            "nvcc",
            packages->cuda.str(), util::join(packages->requirements, ", "));
        if (say) say("toolkit: " + named);
        return named;
      }
      toolkit = std::move(*cached);
    } else {
      build::ProvisionOptions provision;
      provision.say = say;
      toolkit = build::provision_toolkit(environment.python.interpreter->executable, *cache_root,
                                         *packages, provision);
    }
    if (!toolkit) return tl::unexpected(toolkit.error());
    if (say)
      say(std::string(toolkit->reused ? "toolkit: reusing " : "toolkit: ") + toolkit->describe());
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

util::Result<build::BuildOutcome> run_build_with(const env::Environment& environment,
                                                 const resolve::RecipeBook& recipes,
                                                 build::BuildRequest request,
                                                 const BuildSinks& sinks) {
  request.progress_bar = sinks.progress_bar;
  request.say = sinks.say;
  request.on_planned = sinks.on_planned;
  return build::run_build(environment, recipes, request);
}

util::Result<BuildReport> build_flow(BuildFlowInput input) {
  build::BuildRequest& request = input.request;
  if (build_plans_only(input.probe.what_if) && !request.dry_run) {
    request.dry_run = true;
    if (input.on_plan_only) input.on_plan_only(input.probe.what_if.describe());
  }
  env::Environment environment = env::probe_environment(input.probe);
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  if (input.require_interpreter) {
    if (auto usable = input.require_interpreter(environment); !usable)
      return tl::unexpected(usable.error());
  }
  if (input.toolkit) {
    auto chosen = choose_toolkit(*input.toolkit, input.probe, environment, input.sinks.toolkit,
                                 build_plans_only(input.probe.what_if));
    if (!chosen) return tl::unexpected(chosen.error());
    request.toolkit_origin = *chosen;
  }
  SdistSources sdists = sdist_sources(*input.config, *input.sources);
  if (input.sources->offline && input.sinks.say) {
    input.sinks.say(sdists.offline_skipped.empty()
                        ? std::string("--offline: a source is looked for only in local directories")
                        : "--offline: a source is looked for only in local directories, not in " +
                              util::join(sdists.offline_skipped, ", "));
  }
  request.index_urls = sdists.index_urls;
  request.find_links = sdists.find_links;
  auto cache_root = util::require_cache_root();
  if (!cache_root) return tl::unexpected(cache_root.error());
  request.cache_root = *cache_root;
  BuildReport report;
  report.spec = request.spec;
  report.dry_run = request.dry_run;
  auto outcome = run_build_with(environment, *input.book, std::move(request), input.sinks);
  if (!outcome) return tl::unexpected(outcome.error());
  report.outcome = std::move(*outcome);
  return report;
}

}  // namespace flashfit::workflow
