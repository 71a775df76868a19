// install's order of steps with fakes: one pass when it installs (or must not
// build), the hand-over to a source build when nothing installed, a second
// pass only after a successful build, and what each failure leaves.
#include "workflow/install_package.hpp"

#include <gtest/gtest.h>

#include <deque>

namespace flashfit::workflow {
namespace {

InstallPass nothing_installed(std::string name = "flash-attn") {
  InstallPass pass;
  pass.resolved = std::make_unique<Resolved>();
  pass.resolved->resolution.request.name = std::move(name);
  return pass;
}

InstallPass installed(std::string filename) {
  InstallPass pass = nothing_installed();
  install::Attempt attempt;
  attempt.filename = std::move(filename);
  attempt.ok = true;
  pass.outcome.attempts.push_back(attempt);
  pass.outcome.installed = 0;
  return pass;
}

build::BuildOutcome built(bool ok) {
  build::BuildOutcome outcome;
  outcome.ok = ok;
  outcome.stage = ok ? build::BuildStage::done : build::BuildStage::build;
  if (!ok) outcome.failure = "nvcc ran out of memory";
  return outcome;
}

class FakeSteps : public InstallPackageSteps {
 public:
  std::deque<util::Result<InstallPass>> passes;
  util::Result<SourceBuild> build_result = SourceBuild{built(true), std::nullopt};
  int pass_calls = 0;
  int build_calls = 0;
  std::string built_package;  // what the build was asked for

  util::Result<InstallPass> pass() override {
    ++pass_calls;
    if (passes.empty()) return util::fail(util::ErrorKind::internal, "no pass scripted");
    auto next = std::move(passes.front());
    passes.pop_front();
    return next;
  }
  util::Result<SourceBuild> build(const Resolved& first) override {
    ++build_calls;
    built_package = first.resolution.request.name;
    return build_result;
  }
};

TEST(InstallPackage, AnInstalledWheelIsOnePassAndNoBuild) {
  FakeSteps steps;
  steps.passes.push_back(installed("flash_attn-2.8.3.whl"));
  bool handed_over = false;
  InstallPackageOptions options;
  options.on_hand_over = [&](const Resolved&) { handed_over = true; };
  auto report = install_package(steps, options);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->ok);
  EXPECT_FALSE(report->build);
  EXPECT_FALSE(handed_over);
  EXPECT_EQ(steps.pass_calls, 1);
  EXPECT_EQ(steps.build_calls, 0);
}

TEST(InstallPackage, NothingInstalledBuildsThenInstallsTheBuiltWheel) {
  FakeSteps steps;
  steps.passes.push_back(nothing_installed());
  steps.passes.push_back(installed("flash_attn-2.8.3+built.whl"));
  std::vector<std::string> events;
  InstallPackageOptions options;
  options.on_hand_over = [&](const Resolved& first) {
    events.push_back("hand over " + first.resolution.request.name);
  };
  options.on_built = [&](const build::BuildOutcome& outcome) {
    events.push_back(outcome.ok ? "built" : "failed");
  };
  auto report = install_package(steps, options);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->ok);
  EXPECT_EQ(steps.pass_calls, 2);
  EXPECT_EQ(steps.built_package, "flash-attn");
  EXPECT_EQ(events, (std::vector<std::string>{"hand over flash-attn", "built"}));
  ASSERT_TRUE(report->build);
  ASSERT_TRUE(report->build->build.outcome);
  EXPECT_TRUE(report->build->build.outcome->ok);
  // The first pass's resolution outlives the second pass: the outcome's recipe points into it.
  ASSERT_NE(report->build->built_for, nullptr);
  EXPECT_EQ(report->pass.outcome.attempts.at(0).filename, "flash_attn-2.8.3+built.whl");
}

TEST(InstallPackage, AFailedBuildKeepsTheFirstPassAndNoSecondOne) {
  FakeSteps steps;
  steps.passes.push_back(nothing_installed());
  steps.build_result = SourceBuild{built(false), std::nullopt};
  bool told_built = false;
  InstallPackageOptions options;
  options.on_built = [&](const build::BuildOutcome&) { told_built = true; };
  auto report = install_package(steps, options);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_FALSE(report->ok);
  EXPECT_EQ(steps.pass_calls, 1);
  EXPECT_FALSE(told_built);
  ASSERT_TRUE(report->build && report->build->build.outcome);
  EXPECT_EQ(report->build->build.outcome->failure, "nvcc ran out of memory");
  EXPECT_EQ(report->build->built_for, nullptr);  // the report's pass is the first one
  ASSERT_NE(report->pass.resolved, nullptr);
}

TEST(InstallPackage, ABuildThatCannotStartIsReportedNotAnError) {
  FakeSteps steps;
  steps.passes.push_back(nothing_installed());
  util::Error no_sdist{util::ErrorKind::failed, "no sdist of flash-attn on the indexes", {}, {}};
  steps.build_result = SourceBuild{std::nullopt, no_sdist};
  auto report = install_package(steps, {});
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_FALSE(report->ok);
  EXPECT_EQ(steps.pass_calls, 1);
  ASSERT_TRUE(report->build && report->build->build.not_started);
  EXPECT_EQ(report->build->build.not_started->message, "no sdist of flash-attn on the indexes");
}

TEST(InstallPackage, ABuildStepErrorEndsTheCommand) {
  FakeSteps steps;
  steps.passes.push_back(nothing_installed());
  steps.build_result = util::fail(util::ErrorKind::interrupted, "interrupted");
  auto report = install_package(steps, {});
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().kind, util::ErrorKind::interrupted);
  EXPECT_EQ(steps.pass_calls, 1);
}

// install -r's other lines, when no attempt took them, go in before the
// build (it may need what they install); their failure builds nothing.
TEST(InstallPackage, WhatMustPrecedeTheBuildRunsBeforeIt) {
  FakeSteps steps;
  steps.passes.push_back(nothing_installed());
  steps.passes.push_back(installed("flash_attn-2.8.3+built.whl"));
  std::vector<std::string> events;
  InstallPackageOptions options;
  options.on_hand_over = [&](const Resolved&) { events.push_back("hand over"); };
  options.before_build = [&]() -> util::Result<void> {
    events.push_back("lines (builds so far: " + std::to_string(steps.build_calls) + ")");
    return {};
  };
  options.on_built = [&](const build::BuildOutcome&) { events.push_back("built"); };
  auto report = install_package(steps, options);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(events, (std::vector<std::string>{"hand over", "lines (builds so far: 0)", "built"}));

  FakeSteps failing;
  failing.passes.push_back(nothing_installed());
  options.before_build = [] {
    return util::Result<void>(util::fail(util::ErrorKind::failed, "the lines failed"));
  };
  auto stopped = install_package(failing, options);
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().message, "the lines failed");
  EXPECT_EQ(failing.build_calls, 0);
  EXPECT_EQ(failing.pass_calls, 1);
}

TEST(InstallPackage, ASecondPassErrorIsTheCommandsError) {
  FakeSteps steps;
  steps.passes.push_back(nothing_installed());
  steps.passes.push_back(util::fail(util::ErrorKind::input, "the cache cannot be read"));
  auto report = install_package(steps, {});
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().message, "the cache cannot be read");
}

TEST(InstallPackage, AFirstPassErrorBuildsNothing) {
  FakeSteps steps;
  steps.passes.push_back(util::fail(util::ErrorKind::usage, "unknown package"));
  auto report = install_package(steps, {});
  ASSERT_FALSE(report);
  EXPECT_EQ(steps.build_calls, 0);
}

TEST(InstallPackage, NoBuildDryRunAndAFallbackAnswerNeverHandOver) {
  for (int variant = 0; variant < 3; ++variant) {
    FakeSteps steps;
    InstallPass pass = nothing_installed();
    InstallPackageOptions options;
    if (variant == 0) options.no_build = true;
    if (variant == 1) options.dry_run = true;
    if (variant == 2)
      pass.resolved->resolution.suggestions.push_back(
          {resolve::SuggestionKind::fallback, "no GPU here runs it", {}});
    steps.passes.push_back(std::move(pass));
    auto report = install_package(steps, options);
    ASSERT_TRUE(report) << report.error().message;
    EXPECT_FALSE(report->ok) << variant;
    EXPECT_FALSE(report->build) << variant;
    EXPECT_EQ(steps.build_calls, 0) << variant;
  }
}

}  // namespace
}  // namespace flashfit::workflow
