#include "workflow/install_package.hpp"

#include <utility>

#include "env/toolkit.hpp"
#include "util/paths.hpp"

namespace flashfit::workflow {

util::Result<InstallPackageReport> install_package(InstallPackageSteps& steps,
                                                   const InstallPackageOptions& options) {
  auto pass = steps.pass();
  if (!pass) return tl::unexpected(pass.error());
  InstallPackageReport report;
  if (!hand_over_to_build(*pass, options.no_build, options.dry_run)) {
    report.pass = std::move(*pass);
    report.ok = installed_ok(report.pass, options.dry_run);
    return report;
  }
  if (options.on_hand_over) options.on_hand_over(*pass->resolved);
  if (options.before_build) {
    if (auto ready = options.before_build(); !ready) return tl::unexpected(ready.error());
  }
  auto built = steps.build(*pass->resolved);
  if (!built) return tl::unexpected(built.error());
  HandOver hand_over{std::move(*built), nullptr};
  if (hand_over.build.outcome && hand_over.build.outcome->ok) {
    if (options.on_built) options.on_built(*hand_over.build.outcome);
    auto again = steps.pass();
    if (!again) return tl::unexpected(again.error());
    hand_over.built_for = std::move(pass->resolved);
    report.pass = std::move(*again);
  } else {
    report.pass = std::move(*pass);
  }
  report.build = std::move(hand_over);
  report.ok = installed_ok(report.pass, options.dry_run);
  return report;
}

util::Result<InstallPass> RealInstallPackageSteps::pass() {
  auto resolved = resolve_();
  if (!resolved) return tl::unexpected(resolved.error());
  return install_resolved(std::move(*resolved), pass_);
}

util::Result<SourceBuild> RealInstallPackageSteps::build(const Resolved& first) {
  build::BuildRequest request;
  request.spec = build_.spec;
  request.package = first.resolution.request.name;
  SdistSources sdists = sdist_sources(first.config, *build_.sources);
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
  if (build_.toolkit) {
    auto chosen = choose_toolkit(*build_.toolkit, first.probe, environment, build_.sinks.toolkit);
    if (!chosen) return tl::unexpected(chosen.error());
    request.toolkit_origin = *chosen;
  }
  auto built = run_build_with(environment, first.book, std::move(request), build_.sinks);
  SourceBuild out;
  if (built) {
    out.outcome = std::move(*built);
  } else if (built.error().kind == util::ErrorKind::interrupted) {
    return tl::unexpected(built.error());
  } else {
    out.not_started = built.error();
  }
  return out;
}

}  // namespace flashfit::workflow
