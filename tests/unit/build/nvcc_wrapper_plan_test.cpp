// --archs for a package whose setup.py fixes its own -gencode list: the plan
// sets PYTORCH_NVCC to flashfit's nvcc wrapper when torch reads it (>= 2.1)
// and counts only the kept targets; otherwise it refuses, saying why.

#include "build/nvcc_wrapper_plan.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "build/plan.hpp"
#include "build_environment.hpp"

namespace flashfit::build {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Key;
using ::testing::Not;
using ::testing::Pair;
using namespace test_env;

constexpr const char* kSelf = "/opt/flashfit/bin/flashfit";

SetupGencode gencode(const std::string& n, const std::string& min_nvcc = "") {
  SetupGencode g;
  g.value = "arch=compute_" + n + ",code=sm_" + n;
  g.code = "sm_" + n;
  g.min_nvcc = min_nvcc;
  return g;
}

// causal-conv1d's shape: 3 .cu, setup.py's own list (sm_100 from nvcc 12.8) and --threads 4.
CompileUnits fixed_units() {
  CompileUnits units;
  units.basis = UnitsBasis::setup_py;
  units.cuda = {"csrc/a.cu", "csrc/b.cu", "csrc/c.cu"};
  units.cuda_count = 3;
  units.cxx = {"csrc/causal_conv1d.cpp"};
  units.cxx_count = 1;
  units.cxx_torch = 1;
  units.gencode = {gencode("75"), gencode("80"), gencode("90"), gencode("100", "12.8")};
  units.nvcc_threads = 4;
  return units;
}

SourceScan scan() {
  SourceScan s;
  s.has_setup_py = true;
  s.cuda_files = 3;
  s.cpp_files = 1;
  s.name = "causal-conv1d";
  return s;
}

PlanRequest with_archs(std::vector<std::string> archs, std::string self = kSelf) {
  PlanRequest request;
  request.archs = std::move(archs);
  request.flashfit_exe = std::move(self);
  return request;
}

util::Result<BuildPlan> plan(const env::Environment& env, const PlanRequest& request,
                             const CompileUnits& units = fixed_units()) {
  return plan_build(env, &built_in("causal-conv1d"), scan(), units, request);
}

env::Environment with_torch(const std::string& version) {
  env::Environment env = healthy();
  set_torch(env, version, "12.8");
  return env;
}

TEST(NvccWrapperPlan, TorchVersionsThatReadPytorchNvcc) {
  EXPECT_EQ(pytorch_nvcc_unsupported(with_torch("2.1.0").torch), "");
  EXPECT_EQ(pytorch_nvcc_unsupported(with_torch("2.14.1+cu130").torch), "");
  EXPECT_EQ(pytorch_nvcc_unsupported(with_torch("3.0").torch), "");
  EXPECT_THAT(pytorch_nvcc_unsupported(with_torch("2.0.1").torch),
              HasSubstr("torch 2.0.1's cpp_extension ignores PYTORCH_NVCC"));
  EXPECT_THAT(pytorch_nvcc_unsupported(with_torch("1.13.1").torch), HasSubstr("from torch 2.1"));
  env::Environment unknown = healthy();
  unknown.torch.version = env::Fact<pkg::Version>::unknown("no torch/version.py");
  EXPECT_THAT(pytorch_nvcc_unsupported(unknown.torch),
              HasSubstr("torch's version is unknown (no torch/version.py)"));
}

TEST(NvccWrapperPlan, ArchsGivenWithANewTorchGoThroughTheWrapper) {
  env::Environment env = with_torch("2.14.1+cu128");
  auto p = plan(env, with_archs({"80"}));
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_TRUE(p->archs);
  EXPECT_THAT(p->archs->sass, ElementsAre("sm_80"));  // the record's archs before the fatbin check
  EXPECT_THAT(p->archs->basis, HasSubstr("through flashfit's nvcc wrapper"));
  EXPECT_THAT(p->archs->basis, HasSubstr("1 of the 4 -gencode targets"));
  EXPECT_THAT(p->time_basis, HasSubstr("3 .cu x 1 arch"));
  EXPECT_EQ(p->threads, 1U);  // setup.py's --threads 4, but one target: one thread
  EXPECT_THAT(p->env, Contains(Pair("PYTORCH_NVCC",
                                    "/opt/flashfit/bin/flashfit nvcc-wrap --archs 80 "
                                    "--max-threads 1 --nvcc /usr/local/cuda/bin/nvcc --")));
  EXPECT_THAT(p->env, Contains(Pair("CUDA_HOME", "/usr/local/cuda")));
  EXPECT_TRUE(p->nvcc_wrapped);  // the preflight then needs ninja

  // Capabilities and several archs: numbers in order, threads up to setup.py's 4.
  p = plan(env, with_archs({"9.0,sm_80"}));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_THAT(p->archs->sass, ElementsAre("sm_80", "sm_90"));
  EXPECT_EQ(p->threads, 2U);
  EXPECT_THAT(p->env, Contains(Pair("PYTORCH_NVCC", HasSubstr("--archs 80,90 --max-threads 2"))));
}

TEST(NvccWrapperPlan, NoArchsMeansSetupPysListAndNoWrapper) {
  auto p = plan(with_torch("2.14.1"), PlanRequest{});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_THAT(p->archs->sass, ElementsAre("sm_75", "sm_80", "sm_90", "sm_100"));
  EXPECT_THAT(p->env, Not(Contains(Key("PYTORCH_NVCC"))));
  EXPECT_FALSE(p->nvcc_wrapped);
  EXPECT_EQ(p->threads, 4U);
}

TEST(NvccWrapperPlan, OldTorchKeepsTheRefusalWithTheReason) {
  auto p = plan(with_torch("1.13.1"), with_archs({"80"}));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, util::ErrorKind::usage);
  EXPECT_EQ(p.error().context, "--archs");
  EXPECT_THAT(p.error().message, HasSubstr("causal-conv1d has no arch variable"));
  EXPECT_THAT(p.error().message, HasSubstr("torch 1.13.1's cpp_extension ignores PYTORCH_NVCC"));
}

TEST(NvccWrapperPlan, RefusedWithoutALiteralListOrFlashfitsPath) {
  CompileUnits computed = fixed_units();
  computed.gencode.clear();
  auto p = plan(with_torch("2.14.1"), with_archs({"80"}), computed);
  ASSERT_FALSE(p);
  EXPECT_THAT(p.error().message, HasSubstr("no literal -gencode list"));

  p = plan(with_torch("2.14.1"), with_archs({"80"}, ""));
  ASSERT_FALSE(p);
  EXPECT_THAT(p.error().message, HasSubstr("flashfit's own path is unknown"));
}

// --archs 8.6 on a setup.py listing sm_80: an 8.6 GPU runs sm_80, so the
// wrapper keeps sm_80 (it used to refuse 8.6, and drop 8.9 beside 8.0).
TEST(NvccWrapperPlan, ArchsKeepTheTargetsThatRunOnThemAndRefuseWhatNothingRuns) {
  env::Environment env = with_torch("2.14.1");
  auto p = plan(env, with_archs({"86"}));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_THAT(p->archs->sass, ElementsAre("sm_80"));
  EXPECT_THAT(p->env, Contains(Pair("PYTORCH_NVCC", HasSubstr("--archs 80 "))));
  p = plan(env, with_archs({"8.0,8.9"}));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_THAT(p->archs->sass, ElementsAre("sm_80"));
  // sm_100 needs nvcc 12.8: with nvcc 12.4 setup.py does not pass it, and
  // no SASS of another major runs on a 10.0 GPU.
  set_nvcc(env, 12, 4);
  p = plan(env, with_archs({"100"}));
  ASSERT_FALSE(p);
  EXPECT_THAT(p.error().message, HasSubstr("with nvcc 12.4 (sm_75, sm_80, sm_90) runs on 10.0"));
  // Garbage entries are usage errors too.
  p = plan(env, with_archs({"eighty"}));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, util::ErrorKind::usage);
  EXPECT_THAT(p.error().message, HasSubstr("eighty is not a GPU arch"));
}

TEST(NvccWrapperPlan, ArchNumbers) {
  auto n = wrapper_arch_numbers({"80;90", "8.6", "sm_120", " 100 "});
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_THAT(*n, ElementsAre(80U, 86U, 90U, 100U, 120U));
  for (const char* bad : {"8", "800x", "8.10", "sm_", "0.8", "08", "1234", "8.a"})
    EXPECT_FALSE(wrapper_arch_numbers({bad})) << bad;
  EXPECT_FALSE(wrapper_arch_numbers({" , "}));
}

TEST(NvccWrapperPlan, CommandIsQuotedForTheShellAndRefusesWhatNinjaCannotCarry) {
  auto c = nvcc_wrapper_command("/home/a b/flashfit", {80}, 2, "/opt/cuda's/bin/nvcc");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(*c,
            "'/home/a b/flashfit' nvcc-wrap --archs 80 --max-threads 2 --nvcc "
            "'/opt/cuda'\\''s/bin/nvcc' --");
  EXPECT_FALSE(nvcc_wrapper_command("/home/$USER/flashfit", {80}, 1, "/usr/bin/nvcc"));
  EXPECT_FALSE(nvcc_wrapper_command("/usr/bin/flashfit", {80}, 1, "/usr/bin/nv\ncc"));
  EXPECT_FALSE(nvcc_wrapper_command("flashfit", {80}, 1, "/usr/bin/nvcc"));
}

TEST(NvccWrapperPlan, EachRequestedArchKeepsTheTargetThatRunsOnIt) {
  const std::vector<std::string> targets{"sm_75", "sm_80", "compute_90", "sm_90a", "odd"};
  ServedArchs exact = serve_archs(targets, {80, 90});
  EXPECT_THAT(exact.targets, ElementsAre("sm_80", "compute_90", "sm_90a"));
  EXPECT_TRUE(exact.unserved.empty());
  // 8.6 and 8.9 run sm_80 (a GPU loads the newest SASS of its major at or below it).
  ServedArchs ampere = serve_archs(targets, {86, 89});
  EXPECT_THAT(ampere.targets, ElementsAre("sm_80"));
  EXPECT_THAT(ampere.numbers, ElementsAre(80U));
  // 10.0 has no SASS here: the PTX of 9.0 (not sm_90a, which runs on 9.0 only).
  ServedArchs blackwell = serve_archs(targets, {100});
  EXPECT_THAT(blackwell.targets, ElementsAre("compute_90", "sm_90a"));
  // 7.0 is below everything: said, not silently dropped.
  ServedArchs volta = serve_archs(targets, {70, 80});
  EXPECT_THAT(volta.unserved, ElementsAre(70U));
  EXPECT_THAT(volta.targets, ElementsAre("sm_80"));
}

}  // namespace
}  // namespace flashfit::build
