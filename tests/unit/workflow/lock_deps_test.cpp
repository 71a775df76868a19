// The dependencies of a compiled package that a lock must hold: its
// Requires-Dist as it applies here, less torch and the packages flashfit picks;
// and those two checked against what the lock holds.
#include "workflow/lock_deps.hpp"

#include <gtest/gtest.h>

namespace flashfit::workflow {
namespace {

pkg::MarkerEnvironment linux_311() {
  pkg::MarkerEnvironment m;
  *m.find("python_version") = "3.11";
  *m.find("sys_platform") = "linux";
  return m;
}

std::vector<std::string> texts(const PickDependencies& deps) {
  std::vector<std::string> out;
  for (const auto& line : deps.lines) out.push_back(line.text);
  return out;
}

TEST(PickDependencies, AppliesMarkersAndExtrasAndDropsTorchAndPickedPackages) {
  const auto book = resolve::RecipeBook::built_in();
  TakenPackage taken;
  taken.recipe = "mamba-ssm";
  taken.extras = {"causal-conv1d"};
  const auto deps =
      pick_dependencies(taken,
                        {"Torch>=2.0", "einops", "ninja; sys_platform == 'win32'",
                         "transformers>=4.0; python_version >= '3.8'",
                         "Causal_Conv1d>=1.2.0; extra == 'causal-conv1d'", "pytest; extra == 'dev'",
                         "flash-attn (>=2.0)", "not a requirement !"},
                        linux_311(), book, {"mamba-ssm", "causal-conv1d"});
  // Markers dropped (they held here); the version kept; a file name pip shows.
  EXPECT_EQ(texts(deps), (std::vector<std::string>{"einops", "transformers>=4.0"}));
  EXPECT_EQ(deps.lines[1].file, "mamba-ssm's Requires-Dist");
  EXPECT_EQ(deps.lines[1].line, 2u);
  ASSERT_TRUE(deps.lines[1].requirement);
  EXPECT_EQ(deps.lines[1].requirement->name, "transformers");
  ASSERT_EQ(deps.not_locked.size(), 2u);
  EXPECT_EQ(deps.not_locked[0],
            "mamba-ssm requires flash-attn (>=2.0), which flashfit picks for each environment: not "
            "locked; add a line `flash-attn>=2.0` to the requirements and lock again");
  EXPECT_EQ(deps.not_locked[1],
            "mamba-ssm's Requires-Dist 'not a requirement !' cannot be read: not locked");
}

TEST(PickDependencies, NothingRequiredIsNothingToLock) {
  const auto book = resolve::RecipeBook::built_in();
  TakenPackage taken;
  taken.recipe = "flash-attn";
  const auto deps = pick_dependencies(taken, {}, linux_311(), book, {"flash-attn"});
  EXPECT_TRUE(deps.lines.empty());
  EXPECT_TRUE(deps.not_locked.empty());
}

PickRequirements pick(std::string recipe, std::string version,
                      std::optional<std::vector<std::string>> requires_dist,
                      std::vector<std::string> extras = {}) {
  PickRequirements out;
  out.taken.recipe = recipe;
  out.taken.where = recipe + "'s line";
  out.taken.extras = std::move(extras);
  out.name = std::move(recipe);
  out.version = std::move(version);
  out.requires_dist = std::move(requires_dist);
  return out;
}

TEST(CheckPicksAgree, MetRequirementsOnTorchAndOtherPicksPass) {
  const std::vector<PickRequirements> picks = {
      pick("mamba-ssm", "2.2.4",
           {{"torch<=2.6.0", "Causal_Conv1d>=1.4; extra == 'causal-conv1d'", "einops>=99",
             "flash-attn<2; sys_platform == 'win32'", "flash-attn<2; extra == 'dev'"}},
           {"causal-conv1d"}),
      pick("causal-conv1d", "1.5.0.post8+cu12torch2.6cxx11abiTRUE", {{"torch", "packaging"}}),
      pick("flash-attn", "2.8.3", std::nullopt)};
  // A local label is no part of <= 2.6.0 (PEP 440); einops is no pick (the
  // installer's); a marker that does not hold here, or an extra the line
  // does not ask for, leaves a line on a pick out.
  auto unchecked = check_picks_agree(picks, std::string("2.6.0+cu124"), linux_311());
  ASSERT_TRUE(unchecked) << unchecked.error().message;
  EXPECT_TRUE(unchecked->empty());
}

TEST(CheckPicksAgree, AnUnmetOneFailsTheLockNamingEachAndTheFirstsLine) {
  // causal-conv1d's own dependencies were not read: its version counts all the same.
  const std::vector<PickRequirements> picks = {
      pick("mamba-ssm", "2.2.4", {{"causal-conv1d>=1.6; extra == 'causal-conv1d'", "torch>=2.7"}},
           {"causal-conv1d"}),
      pick("causal-conv1d", "1.5.0", std::nullopt)};
  auto result = check_picks_agree(picks, std::string("2.6.0+cu124"), linux_311());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, util::ErrorKind::input);
  EXPECT_EQ(result.error().message,
            "the picks' own requirements are not met: mamba-ssm 2.2.4's wheel requires "
            "causal-conv1d>=1.6, and the lock picks causal-conv1d 1.5.0; mamba-ssm 2.2.4's wheel "
            "requires torch>=2.7, and this environment has torch 2.6.0+cu124");
  EXPECT_EQ(result.error().context, "mamba-ssm's line");
  EXPECT_EQ(result.error().hint,
            "pin causal-conv1d to a version mamba-ssm accepts (a line `causal-conv1d>=1.6`), or "
            "mamba-ssm to a version whose wheel accepts causal-conv1d 1.5.0");
  // Torch alone: its own hint. A label is part of an == that names one.
  result = check_picks_agree({pick("flash-attn", "2.8.3", {{"torch==2.6.0+cu126"}})},
                             std::string("2.6.0+cu124"), linux_311());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message,
            "the picks' own requirements are not met: flash-attn 2.8.3's wheel requires "
            "torch==2.6.0+cu126, and this environment has torch 2.6.0+cu124");
  EXPECT_EQ(result.error().hint,
            "pin flash-attn to a version whose wheel accepts torch 2.6.0+cu124 (a lock is for the "
            "torch installed here), or install a torch it accepts first");
}

TEST(CheckPicksAgree, ADependencyNamedByTheWheelsOrTheRecipesSpellingIsChecked) {
  // A user recipe "fa3" whose wheels are named flash_attn_3.
  PickRequirements fa3 = pick("fa3", "3.0.0", std::nullopt);
  fa3.name = "flash-attn-3";
  auto result = check_picks_agree({pick("mamba-ssm", "2.2.4", {{"flash_attn_3>=3.1"}}), fa3},
                                  std::nullopt, linux_311());
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("the lock picks flash-attn-3 3.0.0"), std::string::npos)
      << result.error().message;
  result = check_picks_agree({pick("mamba-ssm", "2.2.4", {{"fa3>=3.1"}}), fa3}, std::nullopt,
                             linux_311());
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("the lock picks fa3 3.0.0"), std::string::npos);
}

TEST(CheckPicksAgree, TorchsUnknownVersionIsSaidNotChecked) {
  auto unchecked = check_picks_agree({pick("flash-attn", "2.8.3", {{"torch>=2.7", "einops"}})},
                                     std::nullopt, linux_311());
  ASSERT_TRUE(unchecked);
  EXPECT_EQ(*unchecked, (std::vector<std::string>{
                            "flash-attn requires torch>=2.7, and torch's version here is not "
                            "known: not checked"}));
  EXPECT_TRUE(check_picks_agree({}, std::nullopt, linux_311())->empty());
}

}  // namespace
}  // namespace flashfit::workflow
