// The arch facts a plan is checked against before hours of compiling: the
// targets this nvcc compiles (causal-conv1d 1.5.2's fixed sm_53..sm_72 under
// CUDA 13), the GPUs here (flash-attn on a T4), a recipe variable the
// source's setup.py never reads (flash-attn 2.6.3), and the nvcc-major fix.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "build/plan.hpp"
#include "build/preflight.hpp"
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

// causal-conv1d 1.5.2's setup.py -gencode lines, as its sdist has them
// (no guard on the old archs; 1.5.3 put them under `<= Version("12.9")`).
constexpr const char* kCausalConv152 = R"py(
cc_flag.append("-gencode")
cc_flag.append("arch=compute_53,code=sm_53")
cc_flag.append("-gencode")
cc_flag.append("arch=compute_62,code=sm_62")
cc_flag.append("-gencode")
cc_flag.append("arch=compute_70,code=sm_70")
cc_flag.append("-gencode")
cc_flag.append("arch=compute_72,code=sm_72")
cc_flag.append("-gencode")
cc_flag.append("arch=compute_80,code=sm_80")
cc_flag.append("-gencode")
cc_flag.append("arch=compute_87,code=sm_87")
if bare_metal_version >= Version("11.8"):
    cc_flag.append("-gencode")
    cc_flag.append("arch=compute_90,code=sm_90")
if bare_metal_version >= Version("12.8"):
    cc_flag.append("-gencode")
    cc_flag.append("arch=compute_100,code=sm_100")
)py";

// flash-attn 2.6.3's: a fixed list, and FLASH_ATTN_CUDA_ARCHS nowhere.
constexpr const char* kFlashAttn263 = R"py(
FORCE_BUILD = os.getenv("FLASH_ATTENTION_FORCE_BUILD", "FALSE") == "TRUE"
cc_flag.append("-gencode")
cc_flag.append("arch=compute_80,code=sm_80")
if CUDA_HOME is not None:
    if bare_metal_version >= Version("11.8"):
        cc_flag.append("-gencode")
        cc_flag.append("arch=compute_90,code=sm_90")
)py";

CompileUnits units_of(const char* setup_py) {
  auto facts = read_setup_py(setup_py);
  EXPECT_TRUE(facts) << (facts ? "" : facts.error().message);
  CompileUnits units;
  units.basis = UnitsBasis::setup_py;
  units.cuda = {"csrc/a.cu", "csrc/b.cu"};
  units.cuda_count = 2;
  units.cxx = {"csrc/api.cpp"};
  units.cxx_count = 1;
  units.cxx_torch = 1;
  if (facts) {
    units.gencode = facts->gencode;
    units.setup_variables = facts->variable_names;
  }
  return units;
}

SourceScan scan_of(const char* name) {
  SourceScan s;
  s.has_setup_py = true;
  s.cuda_files = 2;
  s.cpp_files = 1;
  s.name = name;
  return s;
}

struct Checked {
  BuildPlan plan;
  PreflightCheck archs;
};

Checked check_archs(const env::Environment& env, const resolve::Recipe& recipe,
                    const CompileUnits& units, PlanRequest request = {}) {
  request.flashfit_exe = kSelf;
  auto plan = plan_build(env, &recipe, scan_of(recipe.name.c_str()), units, request);
  EXPECT_TRUE(plan) << (plan ? "" : plan.error().message);
  Checked out{plan ? *plan : BuildPlan{}, {}};
  PreflightFacts facts;
  facts.free_disk_bytes = 200 * kGiB;
  for (const PreflightCheck& c : preflight(env, &recipe, out.plan, facts).checks)
    if (c.id == "archs") out.archs = c;
  return out;
}

env::Environment cuda13() {
  env::Environment env = healthy();
  set_torch(env, "2.9.1+cu130", std::string("13.0"));
  set_nvcc(env, 13, 0);
  set_host_gcc(env, "/usr/bin/g++", 12, 2);
  return env;
}

TEST(PreflightArchs, TargetsCuda13DroppedFailBeforeTheBuild) {
  const Checked c = check_archs(cuda13(), built_in("causal-conv1d"), units_of(kCausalConv152));
  EXPECT_THAT(c.plan.archs->sass,
              ElementsAre("sm_53", "sm_62", "sm_70", "sm_72", "sm_80", "sm_87", "sm_90", "sm_100"));
  EXPECT_EQ(c.archs.status, CheckStatus::failed);
  EXPECT_THAT(c.archs.message, HasSubstr("sm_53, sm_62, sm_70, sm_72 are no longer compiled by "
                                         "nvcc 13.0 (the last is nvcc 12.9)"));
  EXPECT_THAT(c.archs.message, HasSubstr("Unsupported gpu architecture"));
  // The wrapper can leave them out (torch 2.9 reads PYTORCH_NVCC), or an older toolkit.
  EXPECT_THAT(c.archs.fix, HasSubstr("--archs 8.0,8.7,9.0,10.0"));
  EXPECT_THAT(c.archs.fix, HasSubstr("nvcc 12.9 or older"));
  EXPECT_THAT(c.archs.fix, HasSubstr("a causal-conv1d release whose setup.py leaves them out"));

  // That --archs really plans: only targets nvcc 13 compiles, and the check passes.
  PlanRequest request;
  request.archs = std::vector<std::string>{"8.0,9.0"};
  const Checked wrapped =
      check_archs(cuda13(), built_in("causal-conv1d"), units_of(kCausalConv152), request);
  EXPECT_THAT(wrapped.plan.archs->sass, ElementsAre("sm_80", "sm_90"));
  EXPECT_EQ(wrapped.archs.status, CheckStatus::ok) << wrapped.archs.message;

  // nvcc 12.8 compiles all of them.
  env::Environment cuda12 = healthy();
  const Checked old = check_archs(cuda12, built_in("causal-conv1d"), units_of(kCausalConv152));
  EXPECT_EQ(old.archs.status, CheckStatus::ok) << old.archs.message;
}

TEST(PreflightArchs, TargetsTheTableCannotAnswerForAreSaid) {
  env::Environment env = healthy();
  set_nvcc(env, 14, 0);
  set_torch(env, "2.99.0+cu140", std::string("14.0"));
  const Checked c = check_archs(env, built_in("causal-conv1d"), units_of(kCausalConv152));
  EXPECT_EQ(c.archs.status, CheckStatus::ok);
  EXPECT_THAT(c.archs.message, HasSubstr("whether nvcc 14.0 compiles sm_53"));
}

TEST(PreflightArchs, NoGpuHereServedFailsInsteadOfBuildingAWheelThrownAway) {
  env::Environment env = healthy();
  set_gpus(env, {gpu("Tesla T4", 7, 5)});
  const Checked c = check_archs(env, flash_attn(), CompileUnits{});
  EXPECT_THAT(c.plan.archs->unserved_gpus, ElementsAre("Tesla T4 7.5"));
  EXPECT_EQ(c.archs.status, CheckStatus::failed);
  EXPECT_THAT(c.archs.message, HasSubstr("no GPU here runs any of them (Tesla T4 7.5)"));
  EXPECT_THAT(c.archs.fix, HasSubstr("flash-attn cannot be built for Tesla T4 7.5"));
  EXPECT_THAT(c.archs.fix, HasSubstr("--gpu"));

  // A T4 beside an A100: the A100 runs the wheel, so it is kept.
  set_gpus(env, {gpu("Tesla T4", 7, 5, 0), gpu("NVIDIA A100", 8, 0, 1)});
  EXPECT_EQ(check_archs(env, flash_attn(), CompileUnits{}).archs.status, CheckStatus::ok);
  // --archs for another machine's GPU on a T4: no token serves 7.5, so no
  // --archs is offered for it (the plan would refuse 7.5).
  set_gpus(env, {gpu("Tesla T4", 7, 5)});
  PlanRequest request;
  request.archs = std::vector<std::string>{"90"};
  const Checked other = check_archs(env, flash_attn(), CompileUnits{}, request);
  EXPECT_EQ(other.archs.status, CheckStatus::failed);
  EXPECT_THAT(other.archs.fix, HasSubstr("flash-attn cannot be built for Tesla T4 7.5"));
  EXPECT_THAT(other.archs.fix, Not(HasSubstr("--archs set to")));
  // An A100 here and --archs 9.0 for another machine: 8.0 is served, so --archs is the fix.
  set_gpus(env, {gpu("NVIDIA A100", 8, 0)});
  const Checked served = check_archs(env, flash_attn(), CompileUnits{}, request);
  EXPECT_EQ(served.archs.status, CheckStatus::failed);
  EXPECT_THAT(served.archs.fix, HasSubstr("--archs set to its compute capability"));
}

// A fixed -gencode list no target of which runs on the GPU here (6.1 under
// nvcc 13): --archs cannot help, and the fix does not offer it.
TEST(PreflightArchs, AFixedListThatServesNoGpuHereOffersNoArchs) {
  env::Environment env = cuda13();
  set_gpus(env, {gpu("NVIDIA GeForce GTX 1080", 6, 1)});
  PlanRequest request;
  request.archs = std::vector<std::string>{"8.0"};
  const Checked c = check_archs(env, built_in("causal-conv1d"), units_of(kCausalConv152), request);
  EXPECT_EQ(c.archs.status, CheckStatus::failed);
  EXPECT_THAT(c.archs.fix,
              HasSubstr("causal-conv1d cannot be built for NVIDIA GeForce GTX 1080 6.1"));
}

// "8.0+PTX" plans compute_80 too, and a 9.0 GPU runs it: not "runs nowhere".
TEST(PreflightArchs, PtxTargetsCountForNewerGpus) {
  env::Environment env = healthy();
  set_gpus(env, {gpu("NVIDIA H100", 9, 0)});
  PlanRequest request;
  request.archs = std::vector<std::string>{"8.0+PTX"};
  SourceScan scan = scan_of("toyext");
  auto plan = plan_build(env, nullptr, scan, units_of(""), request);
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_TRUE(plan->archs);
  EXPECT_THAT(plan->archs->sass, ElementsAre("sm_80", "compute_80"));
  PreflightFacts facts;
  for (const PreflightCheck& c : preflight(env, nullptr, *plan, facts).checks)
    if (c.id == "archs") {
      EXPECT_EQ(c.status, CheckStatus::ok) << c.message;
    }
}

// torch's own TORCH_CUDA_ARCH_LIST is read by cpp_extension, never by
// setup.py: a recipe naming it keeps it.
TEST(PreflightArchs, TorchsArchVariableIsNotSetupPys) {
  resolve::Recipe toy = built_in("causal-conv1d");
  toy.name = "toyext";
  toy.build.arch_variable = "TORCH_CUDA_ARCH_LIST";
  PlanRequest request;
  request.archs = std::vector<std::string>{"8.0"};
  request.flashfit_exe = kSelf;
  auto plan = plan_build(healthy(), &toy, scan_of("toyext"), units_of(kCausalConv152), request);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->archs->variable, "TORCH_CUDA_ARCH_LIST");
  EXPECT_THAT(plan->warnings, Not(Contains(HasSubstr("never names"))));
}

TEST(PreflightArchs, ARecipeVariableTheSetupPyNeverNamesIsNotSet) {
  const Checked c = check_archs(healthy(), flash_attn(), units_of(kFlashAttn263));
  ASSERT_TRUE(c.plan.archs);
  EXPECT_EQ(c.plan.archs->variable, "");
  EXPECT_THAT(c.plan.archs->sass, ElementsAre("sm_80", "sm_90"));
  EXPECT_THAT(c.plan.env, Not(Contains(Key("FLASH_ATTN_CUDA_ARCHS"))));
  EXPECT_THAT(c.plan.warnings, Contains(HasSubstr("setup.py never names FLASH_ATTN_CUDA_ARCHS")));
  // --archs 8.9 then goes through the nvcc wrapper, keeping sm_80 (what an 8.9 GPU runs).
  PlanRequest request;
  request.archs = std::vector<std::string>{"8.9"};
  const Checked wrapped = check_archs(healthy(), flash_attn(), units_of(kFlashAttn263), request);
  EXPECT_TRUE(wrapped.plan.nvcc_wrapped);
  EXPECT_THAT(wrapped.plan.archs->sass, ElementsAre("sm_80"));

  // A 2.8.3-shaped setup.py that reads it: the variable is set as before.
  const Checked reads = check_archs(
      healthy(), flash_attn(),
      units_of("archs = os.getenv(\"FLASH_ATTN_CUDA_ARCHS\", \"80;90;100;120\").split(\";\")\n"));
  EXPECT_EQ(reads.plan.archs->variable, "FLASH_ATTN_CUDA_ARCHS");
  EXPECT_THAT(reads.plan.env, Contains(Pair("FLASH_ATTN_CUDA_ARCHS", "80")));
}

TEST(PreflightArchs, NvccMajorFixNamesNoPlaceholderAndNoToolkitNvidiaDoesNotShip) {
  env::Environment env = healthy();
  set_torch(env, "2.9.1+cu130", std::string("13.0"));
  set_nvcc(env, 12, 8);
  auto plan = plan_build(env, &flash_attn(), scan_of("flash-attn"), CompileUnits{}, {});
  ASSERT_TRUE(plan);
  PreflightFacts facts;
  auto major = [&](const env::Environment& e) {
    for (const PreflightCheck& c : preflight(e, &flash_attn(), *plan, facts).checks)
      if (c.id == "nvcc-cuda-major") return c;
    return PreflightCheck{};
  };
  const PreflightCheck cuda13 = major(env);
  EXPECT_EQ(cuda13.status, CheckStatus::failed);
  EXPECT_THAT(cuda13.fix, HasSubstr("rerun this build with --toolkit auto"));
  EXPECT_THAT(cuda13.fix, Not(HasSubstr("...")));
  // CUDA 11: NVIDIA's toolkit wheels flashfit assembles are for 12 and 13 only.
  set_torch(env, "2.0.1+cu118", std::string("11.8"));
  const PreflightCheck cuda11 = major(env);
  EXPECT_EQ(cuda11.status, CheckStatus::failed);
  EXPECT_THAT(cuda11.fix, Not(HasSubstr("--toolkit auto")));
}

}  // namespace
}  // namespace flashfit::build
