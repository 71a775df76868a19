// The real PyPI sdists of flash-attn 2.8.3, causal-conv1d 1.7.0 and mamba-ssm
// 2.3.2.post1 (scripts/pydeps/sdists.sh, sha256-pinned) through the planner's
// source side: unit counts from their own setup.py, the build dependencies
// preflight checks, and the FORCE_BUILD switches the recipes set. Skipped,
// saying so, when the sdists have not been fetched.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "../temp_dir.hpp"
#include "build/compile_units.hpp"
#include "build/plan.hpp"
#include "build/preflight.hpp"
#include "build_environment.hpp"
#include "util/atomic_file.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;
using namespace test_env;

const fs::path kSdists = fs::path(FLASHFIT_PYDEPS_DIR) / "sdists";

// Each sdist unpacked once per test program (the flash-attn one holds ~3,600 files).
const SourceTree* unpacked(const std::string& file) {
  static test::TempDir dir("sdists");
  static std::map<std::string, std::optional<SourceTree>> trees;
  auto [it, inserted] = trees.try_emplace(file);
  if (inserted) {
    std::error_code ec;
    if (!fs::is_regular_file(kSdists / file, ec)) return nullptr;
    const fs::path work = dir.path() / file;
    fs::create_directories(work);
    auto tree = prepare_source(SourceRequest{(kSdists / file).string(), work, {}, {}, true});
    EXPECT_TRUE(tree) << (tree ? "" : tree.error().message);
    if (tree) it->second = std::move(*tree);
  }
  return it->second ? &*it->second : nullptr;
}

#define REQUIRE_SDIST(tree, file)          \
  const SourceTree* tree = unpacked(file); \
  if (!tree)                               \
  GTEST_SKIP() << file << " not in " << kSdists.string() << ": run scripts/pydeps/sdists.sh"

std::string setup_py_text(const SourceTree& tree) {
  return util::read_small_file(tree.root / "setup.py").value_or("");
}

TEST(RealSdists, FlashAttn283CompilesSeventyTwoUnitsPlusTheApi) {
  REQUIRE_SDIST(tree, "flash_attn-2.8.3.tar.gz");
  EXPECT_EQ(tree->scan.name, "flash_attn");
  EXPECT_EQ(tree->scan.version, "2.8.3");
  EXPECT_GT(tree->scan.cuda_files, 1000U);  // cutlass, layer_norm, ...: never compiled by default
  const CompileUnits units = find_compile_units(tree->root, &flash_attn(), tree->scan);
  EXPECT_EQ(units.basis, UnitsBasis::setup_py);
  EXPECT_EQ(units.cuda_count, 72U);
  EXPECT_THAT(units.cxx, ElementsAre("csrc/flash_attn/flash_api.cpp"));
  EXPECT_EQ(units.cxx_torch, 1U);  // flash_api.cpp includes torch's headers
  EXPECT_TRUE(units.notes.empty()) << units.notes.front();
  // Every unit has a measured kind, 24 / 24 / 4 / 20.
  std::map<std::string, int> kinds;
  for (const std::string& unit : units.cuda) {
    const auto* kind = flash_attn().build.kind_of(unit);
    ASSERT_NE(kind, nullptr) << unit;
    ++kinds[kind->name];
  }
  EXPECT_THAT(kinds, ElementsAre(Pair("backward", 20), Pair("backward-hdim256", 4),
                                 Pair("forward", 24), Pair("split-forward", 24)));
  // The recipe's fallback globs find the same units.
  resolve::Recipe globs_only = flash_attn();
  globs_only.build.extension = "not_in_setup_py";
  const CompileUnits by_glob = find_compile_units(tree->root, &globs_only, tree->scan);
  EXPECT_EQ(by_glob.basis, UnitsBasis::recipe);
  std::vector<std::string> listed = units.cuda;
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(by_glob.cuda, listed);  // the glob walk returns sorted paths
}

TEST(RealSdists, FlashAttnSetupRequiresReachPreflight) {
  REQUIRE_SDIST(tree, "flash_attn-2.8.3.tar.gz");
  const CompileUnits units = find_compile_units(tree->root, &flash_attn(), tree->scan);
  ASSERT_TRUE(units.setup_requires);
  EXPECT_THAT(*units.setup_requires, ElementsAre("packaging", "psutil", "ninja"));
  // The recipe's build_requires already hold setup.py's setup_requires: nothing is added.
  EXPECT_EQ(required_build_modules(&flash_attn(), *units.setup_requires),
            required_build_modules(&flash_attn()));

  env::Environment env = healthy();
  auto plan = plan_build(env, &flash_attn(), tree->scan, units, {});
  ASSERT_TRUE(plan);
  EXPECT_THAT(plan->setup_requires, ElementsAre("packaging", "psutil", "ninja"));
  PreflightFacts facts;
  for (const std::string& m : required_build_modules(&flash_attn(), plan->setup_requires))
    facts.importable[m] = true;
  facts.importable["psutil"] = false;
  facts.free_disk_bytes = 1000 * kGiB;
  const PreflightReport report = preflight(env, &flash_attn(), *plan, facts);
  const PreflightCheck* deps = nullptr;
  for (const auto& c : report.checks)
    if (c.id == "build-deps") deps = &c;
  ASSERT_NE(deps, nullptr);
  EXPECT_EQ(deps->status, CheckStatus::failed);
  EXPECT_THAT(deps->message, HasSubstr("psutil"));
  EXPECT_THAT(deps->fix, HasSubstr("-m pip install psutil"));
}

// The recipe's FORCE_BUILD switch is the variable the real setup.py reads,
// compared with the exact string TRUE.
void expect_force_build(const SourceTree& tree, const resolve::Recipe& recipe,
                        const std::string& variable) {
  EXPECT_THAT(recipe.build.env, Contains(Pair(variable, "TRUE")));
  EXPECT_THAT(setup_py_text(tree),
              HasSubstr("os.getenv(\"" + variable + "\", \"FALSE\") == \"TRUE\""));
  auto plan = plan_build(healthy(), &recipe, tree.scan,
                         find_compile_units(tree.root, &recipe, tree.scan), {});
  ASSERT_TRUE(plan);
  EXPECT_THAT(plan->env, Contains(Pair(variable, "TRUE")));
}

TEST(RealSdists, ForceBuildVariablesMatchTheRealSetupPy) {
  REQUIRE_SDIST(fa, "flash_attn-2.8.3.tar.gz");
  expect_force_build(*fa, flash_attn(), "FLASH_ATTENTION_FORCE_BUILD");
  REQUIRE_SDIST(cc, "causal_conv1d-1.7.0.tar.gz");
  expect_force_build(*cc, built_in("causal-conv1d"), "CAUSAL_CONV1D_FORCE_BUILD");
  REQUIRE_SDIST(mamba, "mamba_ssm-2.3.2.post1.tar.gz");
  expect_force_build(*mamba, built_in("mamba-ssm"), "MAMBA_FORCE_BUILD");
}

TEST(RealSdists, CausalConv1dAndMambaUnitsFromTheirSetupPy) {
  REQUIRE_SDIST(cc, "causal_conv1d-1.7.0.tar.gz");
  CompileUnits units = find_compile_units(cc->root, &built_in("causal-conv1d"), cc->scan);
  EXPECT_EQ(units.basis, UnitsBasis::setup_py);
  EXPECT_EQ(units.cuda_count, 3U);
  EXPECT_THAT(units.cxx, ElementsAre("csrc/causal_conv1d.cpp"));
  EXPECT_FALSE(units.setup_requires);  // install_requires only

  REQUIRE_SDIST(mamba, "mamba_ssm-2.3.2.post1.tar.gz");
  units = find_compile_units(mamba->root, &built_in("mamba-ssm"), mamba->scan);
  EXPECT_EQ(units.basis, UnitsBasis::setup_py);
  EXPECT_EQ(units.detail.rfind("CUDAExtension selective_scan_cuda", 0), 0U) << units.detail;
  EXPECT_EQ(units.cuda_count, 9U);
  EXPECT_THAT(units.cxx, ElementsAre("csrc/selective_scan/selective_scan.cpp"));
}

// The -gencode lists causal-conv1d and mamba-ssm fix in setup.py (9 targets
// with nvcc 13), read from the real files.
TEST(RealSdists, FixedGencodeListsFromTheRealSetupPy) {
  REQUIRE_SDIST(cc, "causal_conv1d-1.7.0.tar.gz");
  auto facts = read_setup_py(setup_py_text(*cc));
  ASSERT_TRUE(facts) << facts.error().message;
  EXPECT_EQ(facts->nvcc_threads, 4U);
  EXPECT_THAT(gencode_for_nvcc(facts->gencode, 13, 0),
              ElementsAre("sm_75", "sm_80", "sm_87", "sm_90", "sm_100", "sm_120", "sm_103",
                          "sm_110", "sm_121"));
  EXPECT_THAT(gencode_for_nvcc(facts->gencode, 12, 4),
              ElementsAre("sm_75", "sm_80", "sm_87", "sm_90"));

  REQUIRE_SDIST(mamba, "mamba_ssm-2.3.2.post1.tar.gz");
  facts = read_setup_py(setup_py_text(*mamba));
  ASSERT_TRUE(facts) << facts.error().message;
  EXPECT_EQ(gencode_for_nvcc(facts->gencode, 13, 0).size(), 9U);
}

// The plan counts causal-conv1d's 3 .cu units x the 9 targets its setup.py
// gives nvcc 13, and 4 with nvcc 12.4, where it said "unknown, counted as 1".
TEST(RealSdists, PlanCountsTheFixedGencodeTargets) {
  REQUIRE_SDIST(cc, "causal_conv1d-1.7.0.tar.gz");
  const CompileUnits units = find_compile_units(cc->root, &built_in("causal-conv1d"), cc->scan);
  env::Environment env = healthy();
  set_nvcc(env, 13, 0);
  auto plan = plan_build(env, &built_in("causal-conv1d"), cc->scan, units, {});
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_TRUE(plan->archs);
  EXPECT_THAT(plan->archs->basis, HasSubstr("9 -gencode targets with nvcc 13.0"));
  EXPECT_EQ(plan->archs->sass.size(), 9U);
  EXPECT_THAT(plan->time_basis, HasSubstr("3 .cu x 9 archs"));
  EXPECT_THAT(plan->time_basis, Not(HasSubstr("unknown")));
  EXPECT_EQ(plan->threads, 4U);  // setup.py's literal "--threads", "4"
  set_nvcc(env, 12, 4);
  plan = plan_build(env, &built_in("causal-conv1d"), cc->scan, units, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_THAT(plan->archs->sass, ElementsAre("sm_75", "sm_80", "sm_87", "sm_90"));
}

}  // namespace
}  // namespace flashfit::build
