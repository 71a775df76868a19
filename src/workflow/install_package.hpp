#pragma once
// `flashfit install SPEC|WHEEL` end to end: resolve + install (one pass,
// workflow/install_flow); when nothing installed and nothing forbids it, the
// hand-over to a source build (workflow/build_flow), then resolve + install
// again, the cache now holding the built wheel. The order is decided here,
// behind InstallPackageSteps, so that unit tests drive it with fakes.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "build/build.hpp"
#include "util/error.hpp"
#include "workflow/build_flow.hpp"
#include "workflow/install_flow.hpp"
#include "workflow/resolve_flow.hpp"

namespace flashfit::workflow {

// A source build that ran (ok or not), or could not start (the sdist cannot
// be had, ...): install reports either beside its attempts.
struct SourceBuild {
  std::optional<build::BuildOutcome> outcome;
  std::optional<util::Error> not_started;
};

// What install_package does at each step (production: RealInstallPackageSteps).
class InstallPackageSteps {
 public:
  virtual ~InstallPackageSteps() = default;
  // One resolve + install pass.
  virtual util::Result<InstallPass> pass() = 0;
  // The source build of what the first pass resolved. An error ends the
  // command (Ctrl-C, a bad --toolkit, no cache directory).
  virtual util::Result<SourceBuild> build(const Resolved& first) = 0;
};

// The source build's part of install's report.
struct HandOver {
  SourceBuild build;
  // The first pass's resolution when a second pass replaced it: it owns the
  // recipe book the build outcome's recipe points into.
  std::unique_ptr<Resolved> built_for;
};

struct InstallPackageReport {
  InstallPass pass;  // the last pass (the second after a successful build)
  bool ok = false;   // installed (a dry run: something would be tried)
  std::optional<HandOver> build;
};

struct InstallPackageOptions {
  bool dry_run = false;
  bool no_build = false;
  // Told when nothing installed and the build takes over, before it starts.
  std::function<void(const Resolved& first)> on_hand_over;
  // Run before a source build starts (install -r: its other lines, when no
  // attempt took them, since the build may need what they install); an
  // error ends the command.
  std::function<util::Result<void>()> before_build;
  // Told when the build succeeded, before the second pass.
  std::function<void(const build::BuildOutcome&)> on_built;
};

// Errors: those of a pass or of the build step; a build that fails (or cannot
// start) is in the report, and the first pass's outcome stands.
util::Result<InstallPackageReport> install_package(InstallPackageSteps& steps,
                                                   const InstallPackageOptions& options);

// The production steps: `resolve` is the caller's one resolve (the CLI's
// flags into workflow::resolve_flow), the build is build_flow's run.
struct HandOverBuild {
  std::string spec;
  const resolve::SourceFlags* sources = nullptr;
  std::optional<std::string> toolkit;  // --toolkit
  BuildSinks sinks;
};

class RealInstallPackageSteps : public InstallPackageSteps {
 public:
  RealInstallPackageSteps(std::function<util::Result<std::unique_ptr<Resolved>>()> resolve,
                          InstallPassOptions pass, HandOverBuild build)
      : resolve_(std::move(resolve)), pass_(std::move(pass)), build_(std::move(build)) {}
  util::Result<InstallPass> pass() override;
  util::Result<SourceBuild> build(const Resolved& first) override;

 private:
  std::function<util::Result<std::unique_ptr<Resolved>>()> resolve_;
  InstallPassOptions pass_;
  HandOverBuild build_;
};

}  // namespace flashfit::workflow
