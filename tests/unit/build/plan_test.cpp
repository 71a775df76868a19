// The build planner against hand-built environments, the real built-in
// flash-attn recipe and a recipe-less C++ extension.
#include "build/plan.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "build_environment.hpp"

namespace flashfit::build {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using namespace test_env;

SourceScan fa_scan() {
  SourceScan scan;
  scan.has_setup_py = true;
  scan.cuda_files = 73;
  scan.cpp_files = 1;
  scan.name = "flash_attn";
  return scan;
}

// flash-attn's recipe without its measured unit kinds: the planner's per-thread
// figure (memory_per_thread_gib, 5 GiB) and default unit times, as for a
// recipe nobody has measured. plan_units_test.cpp covers the measured kinds.
const resolve::Recipe& fa_unmeasured() {
  static const resolve::Recipe recipe = [] {
    resolve::Recipe r = flash_attn();
    r.build.unit_kinds.clear();
    r.build.measured.reset();
    return r;
  }();
  return recipe;
}

SourceScan cxx_scan() {
  SourceScan scan;
  scan.has_setup_py = true;
  scan.cpp_files = 2;
  scan.name = "my-ext";
  return scan;
}

SourceScan cu_scan() {
  SourceScan scan = cxx_scan();
  scan.cuda_files = 3;
  return scan;
}

BuildPlan plan_ok(const env::Environment& env, const resolve::Recipe* recipe,
                  const SourceScan& scan, const PlanRequest& request = {}) {
  auto plan = plan_build(env, recipe, scan, request);
  EXPECT_TRUE(plan.has_value()) << (plan ? "" : plan.error().message);
  return plan ? *plan : BuildPlan{};
}

std::string plan_error(const env::Environment& env, const resolve::Recipe* recipe,
                       const SourceScan& scan, const PlanRequest& request) {
  auto plan = plan_build(env, recipe, scan, request);
  EXPECT_FALSE(plan.has_value());
  if (plan) return "";
  EXPECT_EQ(plan.error().kind, util::ErrorKind::usage);
  return plan.error().message;
}

std::string all_warnings(const BuildPlan& plan) {
  std::string out;
  for (const std::string& w : plan.warnings) out += w + "\n";
  return out;
}

TEST(Plan, AdaGpuBuildsTheEightyToken) {
  const env::Environment env = healthy();  // NVIDIA L4, 8.9
  const BuildPlan plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_TRUE(plan.cuda);
  ASSERT_TRUE(plan.archs);
  EXPECT_THAT(plan.archs->tokens, ElementsAre("80"));
  EXPECT_THAT(plan.archs->sass, ElementsAre("sm_80"));
  EXPECT_EQ(plan.archs->variable, "FLASH_ATTN_CUDA_ARCHS");
  EXPECT_EQ(plan.archs->basis, "detected GPUs (NVIDIA L4 8.9 -> 80)");
  EXPECT_TRUE(plan.warnings.empty()) << all_warnings(plan);
  // nvcc runs one thread per -gencode target: 4 threads over 1 arch is 1.
  EXPECT_EQ(plan.threads, 1U);
  // 64 GiB available - 12.8 GiB reserve (10% of 128) = 51.2 GiB; 5 GiB per job -> 10, under 16
  // CPUs.
  EXPECT_EQ(plan.reserve_bytes, 128 * kGiB / 100 * 10);
  EXPECT_EQ(plan.budget_bytes, 64 * kGiB - plan.reserve_bytes);
  EXPECT_THAT(plan.budget_basis,
              HasSubstr("available 64.0 GiB (/proc/meminfo) - reserve 12.8 GiB"));
  EXPECT_EQ(plan.per_job_bytes, 5 * kGiB);
  EXPECT_EQ(plan.per_worker_bytes, 5 * kGiB);
  EXPECT_EQ(plan.jobs, 10U);
  EXPECT_THAT(plan.jobs_basis, HasSubstr("51.2 GiB / 5.0 GiB per job"));
  EXPECT_THAT(plan.jobs_basis, HasSubstr("CPUs 16"));
  EXPECT_EQ(plan.expected_peak_bytes, 50 * kGiB);
  EXPECT_THAT(plan.env,
              ElementsAre(Pair("FLASH_ATTENTION_FORCE_BUILD", "TRUE"),
                          Pair("FLASH_ATTN_CUDA_ARCHS", "80"), Pair("MAX_JOBS", "10"),
                          Pair("NVCC_THREADS", "1"), Pair("CUDA_HOME", "/usr/local/cuda")));
}

TEST(Plan, HopperBuildsNinetyAndGpusMerge) {
  env::Environment env = healthy();
  set_gpus(env, {gpu("NVIDIA H100 80GB HBM3", 9, 0)});
  EXPECT_THAT(plan_ok(env, &fa_unmeasured(), fa_scan()).archs->tokens, ElementsAre("90"));

  set_gpus(env,
           {gpu("NVIDIA L4", 8, 9, 0), gpu("NVIDIA A100", 8, 0, 1), gpu("NVIDIA L4", 8, 9, 2)});
  BuildPlan plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_THAT(plan.archs->tokens, ElementsAre("80"));
  EXPECT_EQ(plan.archs->basis, "detected GPUs (NVIDIA L4 8.9 -> 80, NVIDIA A100 8.0 -> 80)");

  set_gpus(env, {gpu("NVIDIA H100", 9, 0, 0), gpu("NVIDIA L4", 8, 9, 1)});
  plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_THAT(plan.archs->tokens, ElementsAre("80", "90"));  // the recipe's order
  EXPECT_THAT(plan.archs->sass, ElementsAre("sm_80", "sm_90"));
  EXPECT_EQ(plan.threads, 2U);
  EXPECT_EQ(plan.per_job_bytes, 10 * kGiB);
  EXPECT_EQ(plan.per_worker_bytes, 5 * kGiB);
}

TEST(Plan, BlackwellWithOldNvccIsAWarning) {
  env::Environment env = healthy();
  set_gpus(env, {gpu("NVIDIA GeForce RTX 5090", 12, 0)});
  set_nvcc(env, 12, 4);
  const BuildPlan plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_THAT(plan.archs->tokens, ElementsAre("120"));
  EXPECT_THAT(plan.archs->sass, ElementsAre("sm_120"));
  EXPECT_THAT(all_warnings(plan),
              HasSubstr("arch 120 (for NVIDIA GeForce RTX 5090 12.0) needs nvcc >= 12.8; "
                        "nvcc here is 12.4"));
}

TEST(Plan, TuringGpuIsLeftOutWithAWarning) {
  env::Environment env = healthy();
  set_gpus(env, {gpu("Tesla T4", 7, 5)});
  const BuildPlan plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_THAT(plan.archs->tokens, ElementsAre("80", "90", "100", "120"));
  EXPECT_EQ(plan.archs->basis, "recipe default (no GPU here is served: Tesla T4 7.5)");
  EXPECT_THAT(all_warnings(plan),
              HasSubstr("Tesla T4 7.5 is left out: no FLASH_ATTN_CUDA_ARCHS token serves it"));
  EXPECT_THAT(all_warnings(plan), HasSubstr("flash-attn will not run on it"));

  // With a served GPU beside it, the T4 is still named.
  set_gpus(env, {gpu("Tesla T4", 7, 5, 0), gpu("NVIDIA A10", 8, 6, 1)});
  const BuildPlan mixed = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_THAT(mixed.archs->tokens, ElementsAre("80"));
  EXPECT_THAT(all_warnings(mixed), HasSubstr("Tesla T4 7.5 is left out"));
}

TEST(Plan, NoGpuTakesTheRecipeDefaultWithinWhatNvccCompiles) {
  env::Environment env = healthy();
  set_gpus(env, {});
  BuildPlan plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_THAT(plan.archs->tokens, ElementsAre("80", "90", "100", "120"));
  EXPECT_EQ(plan.archs->basis, "recipe default (no GPU detected)");
  EXPECT_THAT(plan.archs->sass, ElementsAre("sm_80", "sm_90", "sm_100", "sm_120"));
  EXPECT_EQ(plan.threads, 4U);
  EXPECT_EQ(plan.per_job_bytes, 20 * kGiB);
  EXPECT_EQ(plan.jobs, 2U);  // 51.2 / 20

  // setup.py drops 100 and 120 with nvcc < 12.8; the default follows it.
  set_nvcc(env, 12, 4);
  plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_THAT(plan.archs->tokens, ElementsAre("80", "90"));
  EXPECT_THAT(plan.archs->basis, HasSubstr("without 100, 120: nvcc 12.4 is too old"));
  EXPECT_TRUE(plan.warnings.empty()) << all_warnings(plan);

  env.gpu.gpus =
      env::Fact<std::vector<env::GpuDevice>>::unknown("NVML: driver/library version mismatch");
  plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_THAT(plan.archs->basis, HasSubstr("GPUs unknown: NVML: driver/library version mismatch"));
}

TEST(Plan, ArchsFlagTakesTokensAndCapabilities) {
  const env::Environment env = healthy();
  auto tokens = [&](std::vector<std::string> archs) {
    return plan_ok(env, &fa_unmeasured(), fa_scan(), PlanRequest{archs, {}, {}, {}, {}, {}, {}})
        .archs->tokens;
  };
  EXPECT_THAT(tokens({"8.9"}), ElementsAre("80"));
  EXPECT_THAT(tokens({"90", "8.0"}), ElementsAre("80", "90"));
  EXPECT_THAT(tokens({"120;80"}), ElementsAre("80", "120"));
  EXPECT_THAT(tokens({"sm_90"}), ElementsAre("90"));
  EXPECT_THAT(tokens({"8.6,8.9,80"}), ElementsAre("80"));
  const BuildPlan plan =
      plan_ok(env, &fa_unmeasured(), fa_scan(), PlanRequest{{{"10.3"}}, {}, {}, {}, {}, {}, {}});
  EXPECT_THAT(plan.archs->tokens, ElementsAre("100"));
  EXPECT_EQ(plan.archs->basis, "--archs");
}

TEST(Plan, ArchsFlagRefusesWhatTheVariableIgnores) {
  const env::Environment env = healthy();
  const std::string message =
      plan_error(env, &fa_unmeasured(), fa_scan(), PlanRequest{{{"86"}}, {}, {}, {}, {}, {}, {}});
  EXPECT_EQ(message,
            "86 is not accepted by FLASH_ATTN_CUDA_ARCHS (accepted: 80 (8.0-8.9), 90 (9.0), 100 "
            "(10.0-10.3), "
            "120 (12.0-12.1)); an 8.6 GPU runs 80");
  EXPECT_THAT(plan_error(env, &fa_unmeasured(), fa_scan(),
                         PlanRequest{{{"80", "121"}}, {}, {}, {}, {}, {}, {}}),
              HasSubstr("a 12.1 GPU runs 120"));
  EXPECT_THAT(
      plan_error(env, &fa_unmeasured(), fa_scan(), PlanRequest{{{"7.5"}}, {}, {}, {}, {}, {}, {}}),
      HasSubstr("no FLASH_ATTN_CUDA_ARCHS token serves compute capability 7.5"));
  EXPECT_THAT(plan_error(env, &fa_unmeasured(), fa_scan(),
                         PlanRequest{{{"hopper"}}, {}, {}, {}, {}, {}, {}}),
              HasSubstr("hopper is not accepted"));
  EXPECT_THAT(
      plan_error(env, &fa_unmeasured(), fa_scan(), PlanRequest{{{""}}, {}, {}, {}, {}, {}, {}}),
      HasSubstr("no archs given"));
  EXPECT_THAT(
      plan_error(env, &fa_unmeasured(), fa_scan(), PlanRequest{{{}}, {}, {}, {}, {}, {}, {}}),
      HasSubstr("no archs given"));
  // Hostile bytes come back escaped, never raw.
  const std::string hostile = plan_error(env, &fa_unmeasured(), fa_scan(),
                                         PlanRequest{{{"\x1b[31m"}}, {}, {}, {}, {}, {}, {}});
  EXPECT_EQ(hostile.find('\x1b'), std::string::npos);
  EXPECT_THAT(hostile, HasSubstr("\\x1b"));
}

TEST(Plan, ExplicitArchsNeedingNewerNvccWarn) {
  env::Environment env = healthy();
  set_nvcc(env, 12, 4);
  const BuildPlan plan =
      plan_ok(env, &fa_unmeasured(), fa_scan(), PlanRequest{{{"80,100"}}, {}, {}, {}, {}, {}, {}});
  EXPECT_THAT(plan.archs->tokens, ElementsAre("80", "100"));
  EXPECT_THAT(all_warnings(plan), HasSubstr("arch 100 needs nvcc >= 12.8; nvcc here is 12.4"));
}

TEST(Plan, CgroupLimitedMemoryMeansFewerJobs) {
  env::Environment env = healthy();
  env.machine.memory_total_bytes = env::Fact<std::uint64_t>::of(12 * kGiB, "cgroup v2 memory.max");
  env.machine.memory_available_bytes =
      env::Fact<std::uint64_t>::of(10 * kGiB, "cgroup v2 memory.max");
  const BuildPlan plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_EQ(plan.reserve_bytes, 12 * kGiB / 100 * 10);
  EXPECT_THAT(plan.budget_basis, HasSubstr("(cgroup v2 memory.max)"));
  EXPECT_EQ(plan.jobs, 1U);  // 8.8 GiB / 5 GiB
  EXPECT_THAT(plan.env, ::testing::Contains(Pair("MAX_JOBS", "1")));

  // A small machine: the reserve is at least 1 GiB.
  env.machine.memory_total_bytes = env::Fact<std::uint64_t>::of(4 * kGiB, "cgroup v2 memory.max");
  env.machine.memory_available_bytes =
      env::Fact<std::uint64_t>::of(3 * kGiB, "cgroup v2 memory.max");
  const BuildPlan small = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_EQ(small.reserve_bytes, kGiB);
  EXPECT_EQ(small.budget_bytes, 2 * kGiB);
  EXPECT_EQ(small.jobs, 1U);
  EXPECT_THAT(all_warnings(small),
              HasSubstr("one compile job needs about 5.0 GiB, more than the memory budget"));

  // Less available than the reserve: half of it, and a warning.
  env.machine.memory_available_bytes =
      env::Fact<std::uint64_t>::of(kGiB / 2, "cgroup v2 memory.max");
  const BuildPlan starved = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_EQ(starved.budget_bytes, kGiB / 4);
  EXPECT_THAT(all_warnings(starved), HasSubstr("only 0.5 GiB of memory is available"));
}

TEST(Plan, CpusCapTheJobs) {
  env::Environment env = healthy();
  env.machine.cpu_count = env::Fact<unsigned>::of(2, "cgroup v2 cpu.max");
  const BuildPlan plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_EQ(plan.jobs, 2U);
  EXPECT_THAT(plan.jobs_basis, HasSubstr("CPUs 2"));

  env.machine.cpu_count = env::Fact<unsigned>::unknown("no /proc");
  const BuildPlan unknown = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_EQ(unknown.jobs, 2U);
  EXPECT_THAT(unknown.jobs_basis, HasSubstr("CPUs unknown, 2 assumed"));
}

TEST(Plan, JobsOverTheBudgetWarnThatTheGovernorWillPause) {
  const env::Environment env = healthy();
  const BuildPlan plan =
      plan_ok(env, &fa_unmeasured(), fa_scan(), PlanRequest{{}, 16U, {}, 20 * kGiB, {}, {}, {}});
  EXPECT_EQ(plan.jobs, 16U);
  EXPECT_EQ(plan.jobs_basis, "--jobs");
  EXPECT_EQ(plan.budget_bytes, 20 * kGiB);
  EXPECT_EQ(plan.budget_basis, "--memory-budget");
  EXPECT_EQ(plan.expected_peak_bytes, 80 * kGiB);
  EXPECT_THAT(all_warnings(plan),
              HasSubstr("--jobs 16 x 5.0 GiB per job = 80.0 GiB is over the memory budget of "
                        "20.0 GiB: the governor will pause compilers"));
  // Within the budget: no warning.
  EXPECT_TRUE(
      plan_ok(env, &fa_unmeasured(), fa_scan(), PlanRequest{{}, 4U, {}, 20 * kGiB, {}, {}, {}})
          .warnings.empty());
}

TEST(Plan, ThreadsShrinkToFitTheBudgetUnlessGiven) {
  env::Environment env = healthy();
  set_gpus(env, {});  // four default archs: 4 threads x 5 GiB = 20 GiB per job
  BuildPlan plan =
      plan_ok(env, &fa_unmeasured(), fa_scan(), PlanRequest{{}, {}, {}, 12 * kGiB, {}, {}, {}});
  EXPECT_EQ(plan.threads, 2U);
  EXPECT_EQ(plan.per_job_bytes, 10 * kGiB);
  EXPECT_EQ(plan.jobs, 1U);
  EXPECT_THAT(plan.jobs_basis, HasSubstr("NVCC_THREADS 4 -> 2 to fit the budget"));
  EXPECT_THAT(plan.env, ::testing::Contains(Pair("NVCC_THREADS", "2")));

  plan = plan_ok(env, &fa_unmeasured(), fa_scan(), PlanRequest{{}, {}, 3U, 12 * kGiB, {}, {}, {}});
  EXPECT_EQ(plan.threads, 3U);
  EXPECT_EQ(plan.per_job_bytes, 15 * kGiB);
  EXPECT_THAT(all_warnings(plan), HasSubstr("more than the memory budget"));
}

TEST(Plan, ZeroAndMisplacedFlagsAreUsageErrors) {
  const env::Environment env = healthy();
  EXPECT_THAT(plan_error(env, &fa_unmeasured(), fa_scan(), PlanRequest{{}, 0U, {}, {}, {}, {}, {}}),
              HasSubstr("--jobs"));
  EXPECT_THAT(plan_error(env, &fa_unmeasured(), fa_scan(), PlanRequest{{}, {}, 0U, {}, {}, {}, {}}),
              HasSubstr("--threads"));
  EXPECT_THAT(plan_error(env, &fa_unmeasured(), fa_scan(), PlanRequest{{}, {}, {}, 0U, {}, {}, {}}),
              HasSubstr("--memory-budget"));
  EXPECT_THAT(plan_error(env, nullptr, cxx_scan(), PlanRequest{{}, {}, 2U, {}, {}, {}, {}}),
              HasSubstr("my-ext is not a CUDA build"));
  EXPECT_THAT(plan_error(env, &built_in("causal-conv1d"), cu_scan(),
                         PlanRequest{{}, {}, 2U, {}, {}, {}, {}}),
              HasSubstr("causal-conv1d has no nvcc threads variable"));
  EXPECT_THAT(plan_error(env, &built_in("flash-attn-3"), cu_scan(),
                         PlanRequest{{{"90"}}, {}, {}, {}, {}, {}, {}}),
              HasSubstr("flash-attn-3 has no arch variable"));
}

TEST(Plan, RecipeWithFixedArchsSetsNoArchVariable) {
  const env::Environment env = healthy();
  const BuildPlan plan = plan_ok(env, &built_in("flash-attn-3"), cu_scan());
  ASSERT_TRUE(plan.archs);
  EXPECT_TRUE(plan.archs->tokens.empty());
  EXPECT_THAT(plan.archs->basis, HasSubstr("fixed by flash-attn-3's setup.py"));
  EXPECT_EQ(plan.threads, 2U);              // FA3's default, not capped: its archs are unknown
  EXPECT_EQ(plan.per_job_bytes, 6 * kGiB);  // no measurement: 2 threads x the 3 GiB default
  EXPECT_THAT(plan.env, ElementsAre(Pair("FLASH_ATTENTION_FORCE_BUILD", "TRUE"),
                                    Pair("MAX_JOBS", ::testing::_), Pair("NVCC_THREADS", "2"),
                                    Pair("CUDA_HOME", "/usr/local/cuda")));
  EXPECT_THAT(plan.time_basis, HasSubstr("(unknown, counted as 1)"));
}

TEST(Plan, CxxExtensionWithoutRecipe) {
  env::Environment env = healthy();
  set_torch(env, "1.13.1", std::nullopt);
  const BuildPlan plan = plan_ok(env, nullptr, cxx_scan());
  EXPECT_FALSE(plan.cuda);
  EXPECT_FALSE(plan.archs);
  EXPECT_EQ(plan.threads, 1U);
  EXPECT_EQ(plan.per_job_bytes, 3 * kGiB / 2);
  EXPECT_EQ(plan.per_worker_bytes, plan.per_job_bytes);
  EXPECT_EQ(plan.jobs, 16U);  // memory allows 34; 16 CPUs
  EXPECT_THAT(plan.env, ElementsAre(Pair("MAX_JOBS", "16")));
  ASSERT_TRUE(plan.time_estimate);
  // 2 x 20 s over 16 lanes is 3 s of work each, but no unit splits: 20 s.
  EXPECT_EQ(plan.time_estimate->count(), 20);
  EXPECT_EQ(plan.time_basis, "2 C++ x ~20 s / 16 lanes; at least its longest unit, ~20 s");
  // --archs has nothing to act on.
  EXPECT_THAT(all_warnings(plan_ok(env, nullptr, cxx_scan(),
                                   PlanRequest{{{"8.0"}}, {}, {}, {}, {}, {}, {}})),
              HasSubstr("--archs ignored"));
}

TEST(Plan, CudaExtensionWithoutRecipeUsesTorchArchList) {
  env::Environment env = healthy();
  BuildPlan plan = plan_ok(env, nullptr, cu_scan());
  EXPECT_TRUE(plan.cuda);
  EXPECT_EQ(plan.archs->variable, "TORCH_CUDA_ARCH_LIST");
  EXPECT_THAT(plan.archs->tokens, ElementsAre("8.9"));
  EXPECT_THAT(plan.archs->sass, ElementsAre("sm_89"));
  EXPECT_EQ(plan.archs->basis, "detected GPUs (NVIDIA L4 8.9)");
  EXPECT_EQ(plan.per_job_bytes, 3 * kGiB);
  EXPECT_THAT(plan.env, ElementsAre(Pair("TORCH_CUDA_ARCH_LIST", "8.9"), Pair("MAX_JOBS", "16"),
                                    Pair("CUDA_HOME", "/usr/local/cuda")));

  plan = plan_ok(env, nullptr, cu_scan(),
                 PlanRequest{{{"9.0", "sm_80", "8.9+ptx", "8.0"}}, {}, {}, {}, {}, {}, {}});
  EXPECT_THAT(plan.archs->tokens, ElementsAre("8.0", "8.9+PTX", "9.0"));
  EXPECT_THAT(plan.env, ::testing::Contains(Pair("TORCH_CUDA_ARCH_LIST", "8.0;8.9+PTX;9.0")));
  EXPECT_THAT(
      plan_error(env, nullptr, cu_scan(), PlanRequest{{{"ampere"}}, {}, {}, {}, {}, {}, {}}),
      HasSubstr("ampere is not a compute capability for TORCH_CUDA_ARCH_LIST"));

  set_gpus(env, {});
  plan = plan_ok(env, nullptr, cu_scan());
  EXPECT_TRUE(plan.archs->tokens.empty());
  EXPECT_THAT(plan.archs->basis,
              HasSubstr("TORCH_CUDA_ARCH_LIST left unset: torch's default (no GPU detected"));
  EXPECT_THAT(all_warnings(plan), HasSubstr("TORCH_CUDA_ARCH_LIST left unset"));
  for (const auto& [name, value] : plan.env) EXPECT_NE(name, "TORCH_CUDA_ARCH_LIST");
}

TEST(Plan, UnknownMemoryIsAConservativeDefault) {
  env::Environment env = healthy();
  env.machine.memory_total_bytes = env::Fact<std::uint64_t>::unknown("no /proc/meminfo");
  env.machine.memory_available_bytes = env::Fact<std::uint64_t>::unknown("no /proc/meminfo");
  const BuildPlan plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_EQ(plan.budget_bytes, 4 * kGiB);
  EXPECT_EQ(plan.jobs, 1U);
  EXPECT_THAT(all_warnings(plan), HasSubstr("available memory unknown (no /proc/meminfo)"));
  EXPECT_THAT(all_warnings(plan), HasSubstr("--memory-budget"));
}

TEST(Plan, TimeAndDiskEstimatesFollowTheUnits) {
  env::Environment env = healthy();
  BuildPlan plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  ASSERT_TRUE(plan.time_estimate);
  // 73 x 1 arch x 60 s over 10 lanes + 1 x 20 s over 10 jobs.
  EXPECT_EQ(plan.time_estimate->count(), 440);
  EXPECT_THAT(plan.time_basis,
              HasSubstr("73 .cu x 1 arch (73 CUDA ~60 s) / 10 lanes + 1 C++ x ~20 s / 10 lanes"));
  EXPECT_EQ(plan.units_basis, UnitsBasis::tree);
  EXPECT_THAT(plan.cost_basis, HasSubstr("estimated: ~60 s per .cu and arch"));
  const std::uint64_t one_arch_disk = plan.disk_estimate_bytes;
  EXPECT_GT(one_arch_disk, kGiB);

  set_gpus(env, {});
  plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_GT(plan.disk_estimate_bytes, one_arch_disk);  // four archs
  EXPECT_THAT(plan.time_basis, HasSubstr("73 .cu x 4 archs"));

  // No ninja: one compile at a time.
  env = healthy();
  env.toolkit.ninja = env::Fact<std::filesystem::path>::unknown("not on PATH");
  plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  EXPECT_EQ(plan.time_estimate->count(), 73 * 60 + 20);
  EXPECT_THAT(plan.time_basis, HasSubstr("serial: no ninja"));

  SourceScan empty;
  plan = plan_ok(env, nullptr, empty);
  EXPECT_FALSE(plan.time_estimate);
  EXPECT_EQ(plan.time_basis, "no compile units found in the source");
}

TEST(Plan, NoNvccMeansNoCudaHome) {
  env::Environment env = healthy();
  env.toolkit.nvcc = env::Fact<std::filesystem::path>::unknown("not found");
  env.toolkit.cuda_version = env::Fact<env::NvccVersion>::unknown("nvcc not found");
  const BuildPlan plan = plan_ok(env, &fa_unmeasured(), fa_scan());
  for (const auto& [name, value] : plan.env) EXPECT_NE(name, "CUDA_HOME");
}

// nvcc found through a wrapper script in /usr/local/bin: the build gets the
// probed root with the runtime headers, not nvcc's grandparent.
TEST(Plan, CudaHomeIsTheProbedRootNotNvccsGrandparent) {
  env::Environment env = healthy();
  env.toolkit.nvcc = env::Fact<std::filesystem::path>::of("/usr/local/bin/nvcc", "PATH");
  env.toolkit.cuda_home = env::Fact<std::filesystem::path>::of("/usr/local/cuda-13.0",
                                                               "/usr/local/bin/nvcc -dryrun (TOP)");
  BuildPlan plan = plan_ok(env, &flash_attn(), fa_scan());
  EXPECT_THAT(plan.env, ::testing::Contains(Pair("CUDA_HOME", "/usr/local/cuda-13.0")));
  env.toolkit.cuda_home =
      env::Fact<std::filesystem::path>::unknown("no cuda_runtime_api.h in /usr/local/include");
  plan = plan_ok(env, &flash_attn(), fa_scan());
  EXPECT_THAT(plan.env, ::testing::Contains(Pair(
                            "CUDA_HOME", "/usr/local")));  // torch's guess; the preflight fails it
}

TEST(ParseMemorySize, AcceptsBinaryUnits) {
  const std::pair<const char*, std::uint64_t> good[] = {
      {"16G", 16 * kGiB},
      {"16GiB", 16 * kGiB},
      {"16gb", 16 * kGiB},
      {"1.5g", 3 * kGiB / 2},
      {"800M", std::uint64_t{800} << 20},
      {"800MiB", std::uint64_t{800} << 20},
      {"2048K", std::uint64_t{2} << 20},
      {"123456", 123456},
      {" 4 G ", 4 * kGiB},
      {".5G", kGiB / 2},
      {"1T", std::uint64_t{1} << 40},
      {"16777215T", std::uint64_t{16777215} << 40},
  };
  for (const auto& [text, bytes] : good) {
    auto parsed = parse_memory_size(text);
    ASSERT_TRUE(parsed) << text << ": " << parsed.error().message;
    EXPECT_EQ(*parsed, bytes) << text;
  }
}

TEST(ParseMemorySize, RefusesZeroGarbageAndOverflow) {
  const char* bad[] = {"",
                       "0",
                       "0G",
                       "0.0001K",
                       "-1G",
                       "abc",
                       "G",
                       "1..5G",
                       "1.G",
                       "1.5",
                       "16X",
                       "1e9",
                       "16 GB extra",
                       "1,5G",
                       "+4G",
                       "99999999999999999999",
                       "17179869184G",
                       "16777216T",
                       "\x01\xff",
                       "4G\n5G"};
  for (const char* text : bad) {
    auto parsed = parse_memory_size(text);
    EXPECT_FALSE(parsed) << text << " -> " << (parsed ? *parsed : 0);
    if (!parsed) {
      EXPECT_EQ(parsed.error().kind, util::ErrorKind::usage);
      EXPECT_EQ(parsed.error().message.find('\xff'), std::string::npos);
    }
  }
  EXPECT_THAT(parse_memory_size("0").error().message, HasSubstr("more than zero"));
  EXPECT_THAT(parse_memory_size("99999999999999999999").error().message, HasSubstr("too large"));
  EXPECT_THAT(parse_memory_size("16X").error().message, HasSubstr("unknown unit"));
}

}  // namespace
}  // namespace flashfit::build
