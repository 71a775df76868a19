// The dependencies of a compiled package that a lock must hold: its
// Requires-Dist as it applies here, less torch and the packages flashfit picks.
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

}  // namespace
}  // namespace flashfit::workflow
