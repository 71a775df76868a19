// install's hand-over to a source build, decided from the pass alone: only
// when nothing installed, nothing forbids it, and no fallback is the answer.
#include "workflow/install_flow.hpp"

#include <gtest/gtest.h>

namespace flashfit::workflow {
namespace {

InstallPass nothing_installed(std::vector<resolve::SuggestionKind> kinds) {
  InstallPass pass;
  pass.resolved = std::make_unique<Resolved>();
  for (auto kind : kinds) pass.resolved->resolution.suggestions.push_back({kind, "m", {}});
  return pass;
}

TEST(InstallFlowHandOver, NothingInstalledBuildsFromSource) {
  EXPECT_TRUE(hand_over_to_build(nothing_installed({}), false, false));
  EXPECT_TRUE(hand_over_to_build(
      nothing_installed({resolve::SuggestionKind::torch, resolve::SuggestionKind::build}), false,
      false));
}

TEST(InstallFlowHandOver, AFallbackSuggestionMeansNoGpuHereCanRunIt) {
  EXPECT_FALSE(hand_over_to_build(
      nothing_installed({resolve::SuggestionKind::version, resolve::SuggestionKind::fallback}),
      false, false));
}

TEST(InstallFlowHandOver, NoBuildDryRunOrANamedFileNeverBuild) {
  EXPECT_FALSE(hand_over_to_build(nothing_installed({}), /*no_build=*/true, false));
  EXPECT_FALSE(hand_over_to_build(nothing_installed({}), false, /*dry_run=*/true));
  InstallPass file = nothing_installed({});
  file.named_file = true;
  EXPECT_FALSE(hand_over_to_build(file, false, false));
}

TEST(InstallFlowHandOver, AnInstalledWheelNeedsNoBuild) {
  InstallPass pass = nothing_installed({});
  pass.outcome.attempts.push_back({});
  pass.outcome.installed = 0;
  EXPECT_TRUE(installed_ok(pass, false));
  EXPECT_FALSE(hand_over_to_build(pass, false, false));
}

TEST(InstallFlowHandOver, ADryRunIsOkWhenSomethingWouldBeTried) {
  InstallPass pass = nothing_installed({});
  EXPECT_FALSE(installed_ok(pass, true));
  pass.outcome.attempts.push_back({});
  EXPECT_TRUE(installed_ok(pass, true));
  EXPECT_FALSE(installed_ok(pass, false));  // tried, not installed
}

}  // namespace
}  // namespace flashfit::workflow
