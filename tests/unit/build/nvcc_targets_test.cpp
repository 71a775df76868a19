// nvcc targets: which nvcc compiles each one (the list nvcc 13.0 prints
// here with --list-gpu-arch, and 11.8's) and which GPUs run its code.
#include "build/nvcc_targets.hpp"

#include <gtest/gtest.h>

namespace flashfit::build {
namespace {

NvccTarget target(std::string_view text) {
  auto t = parse_nvcc_target(text);
  EXPECT_TRUE(t) << text;
  return t.value_or(NvccTarget{});
}

NvccSupport support(int major, int minor, std::string_view text) {
  return nvcc_supports(env::MajorMinor{major, minor}, target(text)).support;
}

TEST(NvccTargets, ParsesSassPtxAndSuffixes) {
  EXPECT_EQ(target("sm_80").number, 80U);
  EXPECT_FALSE(target("sm_80").ptx);
  EXPECT_TRUE(target("compute_90").ptx);
  EXPECT_EQ(target("sm_90a").suffix, 'a');
  EXPECT_EQ(target("compute_100f").number, 100U);
  EXPECT_EQ(target("compute_100f").suffix, 'f');
  for (std::string_view bad : {"", "sm_", "sm_8", "80", "8.0", "sm_80x", "sm_1000", "lto_80",
                               "compute_", "sm_-80", "sm_90aa"})
    EXPECT_FALSE(parse_nvcc_target(bad)) << bad;
}

// nvcc 13.0 --list-gpu-arch here: compute_75 80 86 87 88 89 90 100 110 103 120 121.
TEST(NvccTargets, Cuda13CompilesExactlyWhatItsNvccLists) {
  for (std::string_view listed :
       {"sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_100", "sm_110", "sm_103",
        "sm_120", "sm_121", "sm_90a", "sm_100f", "compute_120"})
    EXPECT_EQ(support(13, 0, listed), NvccSupport::supported) << listed;
  for (std::string_view gone :
       {"sm_53", "sm_60", "sm_70", "sm_72", "compute_70", "sm_101", "sm_35"})
    EXPECT_EQ(support(13, 0, gone), NvccSupport::dropped) << gone;
  const auto verdict = nvcc_supports({13, 0}, target("sm_53"));
  EXPECT_EQ(verdict.bound, "12.9");  // the last nvcc that compiles it
}

// nvcc 11.8 --list-gpu-code: sm_35 37 50 52 53 60 61 62 70 72 75 80 86 87 89 90 (no 90a).
TEST(NvccTargets, Cuda11And12Boundaries) {
  for (std::string_view listed :
       {"sm_35", "sm_37", "sm_53", "sm_70", "sm_72", "sm_75", "sm_87", "sm_89", "sm_90"})
    EXPECT_EQ(support(11, 8, listed), NvccSupport::supported) << listed;
  EXPECT_EQ(support(11, 8, "sm_90a"), NvccSupport::too_new);
  EXPECT_EQ(support(12, 0, "sm_35"), NvccSupport::dropped);
  EXPECT_EQ(support(12, 9, "sm_53"), NvccSupport::supported);
  EXPECT_EQ(support(12, 4, "sm_100"), NvccSupport::too_new);
  EXPECT_EQ(nvcc_supports({12, 4}, target("sm_100")).bound, "12.8");
  EXPECT_EQ(support(12, 8, "sm_103"), NvccSupport::too_new);
  EXPECT_EQ(support(12, 8, "sm_100f"), NvccSupport::too_new);  // the f forms from 12.9
  EXPECT_EQ(support(11, 0, "sm_86"), NvccSupport::too_new);
  EXPECT_EQ(support(12, 9, "sm_101"), NvccSupport::supported);
}

// nvcc 13.0 here: "nvcc fatal : Unsupported gpu architecture 'compute_80a'".
TEST(NvccTargets, SuffixFormsExistOnlyFromTheirFirstArch) {
  for (std::string_view none :
       {"sm_80a", "sm_86a", "sm_89a", "sm_88a", "compute_80a", "sm_80f", "sm_90f"})
    EXPECT_EQ(support(13, 0, none), NvccSupport::no_such_target) << none;
  EXPECT_EQ(support(13, 0, "sm_90a"), NvccSupport::supported);
  EXPECT_EQ(support(13, 0, "sm_100f"), NvccSupport::supported);
  EXPECT_EQ(support(13, 0, "sm_121f"), NvccSupport::supported);
}

TEST(NvccTargets, WhatTheTableDoesNotKnowIsUnknown) {
  EXPECT_EQ(support(10, 2, "sm_70"), NvccSupport::unknown);  // older than the table
  EXPECT_EQ(support(14, 0, "sm_80"), NvccSupport::unknown);  // a major not yet seen
  EXPECT_EQ(support(12, 6, "sm_88"), NvccSupport::unknown);  // listed by 13.0; 12.x unchecked
  EXPECT_EQ(support(13, 0, "sm_99"), NvccSupport::unknown);  // no such arch in the table
}

TEST(NvccTargets, OldestTargetPerCudaMajor) {
  EXPECT_EQ(oldest_target(11), 35U);
  EXPECT_EQ(oldest_target(12), 50U);
  EXPECT_EQ(oldest_target(13), 75U);
  EXPECT_FALSE(oldest_target(10));  // older than the table
  EXPECT_FALSE(oldest_target(14));  // not seen yet
}

TEST(NvccTargets, WhichGpusRunATargetsCode) {
  EXPECT_TRUE(target_runs_on(target("sm_80"), {8, 6}));
  EXPECT_TRUE(target_runs_on(target("sm_80"), {8, 9}));
  EXPECT_FALSE(target_runs_on(target("sm_86"), {8, 0}));
  EXPECT_FALSE(target_runs_on(target("sm_80"), {9, 0}));  // SASS stays in its major
  EXPECT_FALSE(target_runs_on(target("sm_80"), {7, 5}));
  EXPECT_TRUE(target_runs_on(target("compute_80"), {9, 0}));  // PTX: JIT for newer
  EXPECT_FALSE(target_runs_on(target("compute_80"), {7, 5}));
  EXPECT_TRUE(target_runs_on(target("sm_90a"), {9, 0}));
  EXPECT_FALSE(target_runs_on(target("sm_90a"), {10, 0}));
  EXPECT_FALSE(target_runs_on(target("compute_90a"), {10, 0}));
  EXPECT_TRUE(target_runs_on(target("sm_100f"), {10, 3}));
  EXPECT_FALSE(target_runs_on(target("compute_100f"), {12, 0}));
}

}  // namespace
}  // namespace flashfit::build
