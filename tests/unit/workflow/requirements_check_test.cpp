// After install -r: what the installer's run changed, and which of the
// compiled packages' own dependencies the environment does not satisfy.
#include "workflow/requirements_check.hpp"

#include <gtest/gtest.h>

namespace flashfit::workflow {
namespace {

pkg::MarkerEnvironment linux_311() {
  pkg::MarkerEnvironment m;
  *m.find("python_version") = "3.11";
  *m.find("python_full_version") = "3.11.2";
  *m.find("sys_platform") = "linux";
  *m.find("platform_system") = "Linux";
  *m.find("platform_machine") = "x86_64";
  *m.find("os_name") = "posix";
  *m.find("implementation_name") = "cpython";
  *m.find("platform_python_implementation") = "CPython";
  return m;
}

TEST(DiffInstalled, NewUpgradedAndRemovedAreListedUnchangedAreNot) {
  const InstalledVersions before{{"numpy", "1.24.2"}, {"six", "1.16.0"}, {"torch", "2.6.0"}};
  const InstalledVersions after{{"numpy", "1.26.4"}, {"einops", "0.8.0"}, {"torch", "2.6.0"}};
  const auto changes = diff_installed(before, after);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(describe(changes[0]), "einops 0.8.0 (new)");
  EXPECT_EQ(describe(changes[1]), "numpy 1.26.4 (was 1.24.2)");
  EXPECT_EQ(describe(changes[2]), "six (removed, was 1.16.0)");
  EXPECT_TRUE(diff_installed(before, before).empty());
}

TEST(UnmetDependencies, MissingAndTooOldAreUnmetMarkersAndExtrasApply) {
  const std::vector<std::string> requires_dist{
      "torch",
      "einops",
      "ninja>=1.11",
      "packaging",
      "triton>=3 ; sys_platform == \"win32\"",
      "pytest ; extra == \"test\"",
      "not a requirement (",
  };
  const InstalledVersions installed{{"torch", "2.6.0"}, {"ninja", "1.10.2"}, {"packaging", "24.1"}};
  const auto unmet = unmet_dependencies("flash-attn", requires_dist, linux_311(), installed);
  ASSERT_EQ(unmet.size(), 3u);
  EXPECT_EQ(unmet[0].name, "einops");
  EXPECT_FALSE(unmet[0].installed);
  EXPECT_EQ(unmet[1].name, "ninja");
  EXPECT_EQ(unmet[1].installed, "1.10.2");
  EXPECT_EQ(unmet[2].requirement, "not a requirement (");
  for (const auto& u : unmet) EXPECT_EQ(u.package, "flash-attn");
}

// mamba-ssm[causal-conv1d]: the extra's requirements count, and each is named
// without its marker, so that the command that installs it is not skipped.
TEST(UnmetDependencies, TheLinesExtrasCountAndTheFixHasNoMarker) {
  const std::vector<std::string> requires_dist{
      "torch",
      "causal-conv1d>=1.2.0 ; extra == \"causal-conv1d\"",
      "pytest ; extra == \"dev\"",
      "einops[x]>=0.8 ; python_version >= \"3\"",
  };
  const InstalledVersions installed{{"torch", "2.6.0"}};
  const auto plain = unmet_dependencies("mamba-ssm", requires_dist, linux_311(), installed);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].name, "einops");
  EXPECT_EQ(plain[0].wanted, "einops[x]>=0.8");
  const auto with_extra =
      unmet_dependencies("mamba-ssm", requires_dist, linux_311(), installed, {"causal-conv1d"});
  ASSERT_EQ(with_extra.size(), 2u);
  EXPECT_EQ(with_extra[0].name, "causal-conv1d");
  EXPECT_EQ(with_extra[0].wanted, "causal-conv1d>=1.2.0");
  EXPECT_EQ(with_extra[1].name, "einops");
}

TEST(UnmetDependencies, NamesAreComparedCanonically) {
  const InstalledVersions installed{{"typing-extensions", "4.12.0"}};
  EXPECT_TRUE(unmet_dependencies("x", {"Typing_Extensions>=4.0"}, linux_311(), installed).empty());
}

TEST(RequiresDist, ReadsTheHeaderNotTheBody) {
  const std::string metadata =
      "Metadata-Version: 2.1\r\n"
      "Name: flash_attn\r\n"
      "Requires-Dist: torch\r\n"
      "Requires-Dist:  einops  \r\n"
      "\r\n"
      "Requires-Dist: not-a-header (the description)\n";
  EXPECT_EQ(requires_dist(metadata), (std::vector<std::string>{"torch", "einops"}));
  EXPECT_TRUE(requires_dist("").empty());
}

}  // namespace
}  // namespace flashfit::workflow
