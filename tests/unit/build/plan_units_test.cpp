// The planner's cost model with flash-attn's measured unit kinds
// (docs/background.md §11.1): this machine's size, an H100 and a 5090 with
// nvcc 13, per-kind memory admission, and calibration.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "build/plan.hpp"
#include "build_environment.hpp"

namespace flashfit::build {
namespace {

using ::testing::HasSubstr;
using ::testing::Pair;
using namespace test_env;

// flash-attn v2.8.3's 72 units + flash_api.cpp, as setup.py lists them.
CompileUnits fa2_units() {
  CompileUnits units;
  units.basis = UnitsBasis::setup_py;
  units.detail = "CUDAExtension flash_attn_2_cuda, setup.py line 227";
  for (const char* kind : {"fwd", "fwd_split", "bwd"})
    for (int hdim : {32, 64, 96, 128, 192, 256})
      for (const char* dtype : {"fp16", "bf16"})
        for (const char* causal : {"", "_causal"})
          units.cuda.push_back(fmt::format("csrc/flash_attn/src/flash_{}_hdim{}_{}{}_sm80.cu", kind,
                                           hdim, dtype, causal));
  units.cxx = {"csrc/flash_attn/flash_api.cpp"};
  units.cuda_count = units.cuda.size();
  units.cxx_count = 1;
  return units;
}

SourceScan fa2_scan() {
  SourceScan scan;
  scan.has_setup_py = true;
  scan.cuda_files = 1118;
  scan.cpp_files = 2519;
  scan.name = "flash_attn";
  return scan;
}

// This machine's size: 2 CPUs, 23 GiB, nvcc 13.0.
env::Environment small_machine(std::uint64_t available) {
  env::Environment env = healthy();
  env.machine.cpu_count = env::Fact<unsigned>::of(2, "sched_getaffinity");
  env.machine.memory_total_bytes = env::Fact<std::uint64_t>::of(23 * kGiB, "/proc/meminfo");
  env.machine.memory_available_bytes = env::Fact<std::uint64_t>::of(available, "/proc/meminfo");
  set_nvcc(env, 13, 0);
  return env;
}

BuildPlan plan_ok(const env::Environment& env, const CompileUnits& units,
                  const PlanRequest& request = {}) {
  auto plan = plan_build(env, &flash_attn(), fa2_scan(), units, request);
  EXPECT_TRUE(plan) << (plan ? "" : plan.error().message);
  return plan ? *plan : BuildPlan{};
}

const UnitCost* cost(const BuildPlan& plan, const std::string& kind) {
  for (const UnitCost& c : plan.unit_costs)
    if (c.kind == kind) return &c;
  return nullptr;
}

constexpr std::uint64_t kBackward256 = 6871947674;  // 6.4 GiB, rounded as the planner does
constexpr std::uint64_t kForward = 4402341478;      // 4.1 GiB

TEST(PlanUnits, L4OnThisMachineRunsTwoJobsUnderTheBudget) {
  const BuildPlan plan = plan_ok(small_machine(21 * kGiB), fa2_units());  // NVIDIA L4, 8.9
  EXPECT_EQ(plan.units_basis, UnitsBasis::setup_py);
  EXPECT_EQ(plan.cuda_units, 72U);
  EXPECT_EQ(plan.cxx_units, 1U);
  EXPECT_THAT(plan.archs->tokens, ::testing::ElementsAre("80"));
  // Kinds in the recipe's order, first match wins: split before forward.
  ASSERT_NE(cost(plan, "split-forward"), nullptr);
  EXPECT_EQ(cost(plan, "split-forward")->units, 24U);
  EXPECT_EQ(cost(plan, "forward")->units, 24U);
  EXPECT_EQ(cost(plan, "backward-hdim256")->units, 4U);
  EXPECT_EQ(cost(plan, "backward")->units, 20U);
  EXPECT_EQ(cost(plan, "C++")->units, 1U);
  // Memory: the heaviest kind sets the per-thread figure; 23 GiB - 2.3 GiB reserve.
  EXPECT_EQ(plan.heaviest_kind, "backward-hdim256");
  EXPECT_EQ(plan.per_worker_bytes, kBackward256);
  EXPECT_EQ(plan.per_job_bytes, kBackward256);
  EXPECT_EQ(plan.budget_bytes, 21 * kGiB - 23 * kGiB / 100 * 10);
  EXPECT_EQ(plan.jobs, 2U);  // 18.7 GiB / 6.4 GiB = 2 by memory, 2 CPUs
  EXPECT_EQ(plan.expected_peak_bytes, 2 * kBackward256);
  EXPECT_LT(plan.expected_peak_bytes, plan.budget_bytes);  // two backward units side by side fit
  EXPECT_THAT(plan.jobs_basis, HasSubstr("backward-hdim256, the heaviest kind"));
  EXPECT_THAT(plan.env, ::testing::Contains(Pair("MAX_JOBS", "2")));
  // Time: (24 x 176 + 24 x 176 + 4 x 158 + 20 x 196) / 2 lanes + 20 s / 2 = 6510 s, ~1 h 49 min
  // (§8.1).
  ASSERT_TRUE(plan.time_estimate);
  EXPECT_EQ(plan.time_estimate->count(), 6510);
  EXPECT_THAT(plan.time_basis,
              HasSubstr("72 .cu x 1 arch (24 split-forward ~176 s, 24 forward ~176 s, "
                        "4 backward-hdim256 ~158 s, 20 backward ~196 s) / 2 lanes"));
  EXPECT_THAT(plan.cost_basis, HasSubstr("measured on 2 cores (AMD EPYC)"));
  EXPECT_THAT(plan.cost_basis, HasSubstr("not calibrated to this machine (no calibration run)"));
  EXPECT_DOUBLE_EQ(plan.time_scale, 1.0);
}

TEST(PlanUnits, ABudgetForOneBackwardUnitRunsOneJob) {
  // 13 GiB available - 2.3 GiB reserve: a backward unit (6.4) beside a forward
  // one (4.1) would fit, two backward units would not: MAX_JOBS follows the
  // heaviest kind, and the governor's per-kind estimates pause the rest.
  const BuildPlan plan = plan_ok(small_machine(13 * kGiB), fa2_units());
  EXPECT_EQ(plan.jobs, 1U);
  EXPECT_LE(plan.expected_peak_bytes, plan.budget_bytes);
  EXPECT_LT(kBackward256 + kForward, plan.budget_bytes);
  EXPECT_GT(2 * kBackward256, plan.budget_bytes);
  EXPECT_EQ(cost(plan, "forward")->peak_bytes, kForward);
  EXPECT_TRUE(cost(plan, "forward")->measured);
  EXPECT_THAT(cost(plan, "forward")->match, ::testing::ElementsAre("flash_fwd_*.cu"));
}

TEST(PlanUnits, ForwardOnlyBuildsTakeTheForwardPeak) {
  CompileUnits units = fa2_units();
  units.cuda.resize(48);  // fwd and fwd_split only
  units.cuda_count = 48;
  const BuildPlan plan = plan_ok(small_machine(11 * kGiB), units);
  EXPECT_EQ(plan.heaviest_kind, "split-forward");
  EXPECT_EQ(plan.per_worker_bytes, kForward);
  EXPECT_EQ(plan.jobs, 2U);  // 8.7 GiB / 4.1 GiB
}

TEST(PlanUnits, H100AndRtx5090WithNvcc13) {
  env::Environment env = small_machine(21 * kGiB);
  set_gpus(env, {gpu("NVIDIA H100 80GB HBM3", 9, 0)});
  BuildPlan plan = plan_ok(env, fa2_units());
  EXPECT_THAT(plan.archs->tokens, ::testing::ElementsAre("90"));
  EXPECT_EQ(plan.time_estimate->count(), 6510);  // one arch either way
  EXPECT_TRUE(plan.warnings.empty());

  set_gpus(env, {gpu("NVIDIA GeForce RTX 5090", 12, 0)});
  plan = plan_ok(env, fa2_units());
  EXPECT_THAT(plan.archs->tokens, ::testing::ElementsAre("120"));
  EXPECT_THAT(plan.archs->sass, ::testing::ElementsAre("sm_120"));
  EXPECT_TRUE(plan.warnings.empty());

  // Both GPUs: two archs, so NVCC_THREADS 2 runs two -gencode targets at once.
  set_gpus(env, {gpu("NVIDIA H100", 9, 0, 0), gpu("NVIDIA GeForce RTX 5090", 12, 0, 1)});
  plan = plan_ok(env, fa2_units());
  EXPECT_THAT(plan.archs->tokens, ::testing::ElementsAre("90", "120"));
  EXPECT_EQ(plan.threads, 2U);
  EXPECT_EQ(plan.per_job_bytes, 2 * kBackward256);
  EXPECT_EQ(plan.jobs, 1U);                                    // 18.7 GiB / 12.8 GiB
  EXPECT_EQ(plan.time_estimate->count(), 2 * 13000 / 2 + 20);  // 2 archs over 1 job x 2 threads
}

TEST(PlanUnits, CalibrationScalesMeasuredTimesOnly) {
  PlanRequest request;
  request.calibration = Calibration{3.0, "13.0.88", "Some CPU x 2", true};  // recipe: 2.5 s
  BuildPlan plan = plan_ok(small_machine(21 * kGiB), fa2_units(), request);
  EXPECT_DOUBLE_EQ(plan.time_scale, 1.2);
  EXPECT_DOUBLE_EQ(cost(plan, "backward")->seconds, 196 * 1.2);
  EXPECT_DOUBLE_EQ(cost(plan, "C++")->seconds, 20);  // an estimate, not the recipe's measurement
  EXPECT_THAT(
      plan.cost_basis,
      HasSubstr("x1.20 for this machine (calibration 3.0 s vs 2.5 s, Some CPU x 2, cached)"));
  EXPECT_EQ(plan.per_worker_bytes, kBackward256);  // memory does not scale with speed

  request.calibration->cpu_seconds = 40;  // 16x: a swapping machine, not a CPU
  plan = plan_ok(small_machine(21 * kGiB), fa2_units(), request);
  EXPECT_DOUBLE_EQ(plan.time_scale, 1.0);
  EXPECT_THAT(plan.cost_basis, HasSubstr("calibration out of range, not applied"));
  EXPECT_THAT(plan.warnings, ::testing::Contains(HasSubstr("is not a CPU's speed")));

  PlanRequest none;
  none.calibration_note = "--no-calibrate";
  env::Environment env = small_machine(21 * kGiB);
  set_nvcc(env, 12, 8);
  plan = plan_ok(env, fa2_units(), none);
  EXPECT_THAT(plan.cost_basis, HasSubstr("this nvcc is 12.8: its compile times may differ"));
  EXPECT_THAT(plan.cost_basis, HasSubstr("not calibrated to this machine (--no-calibrate)"));
}

TEST(PlanUnits, TreeEstimatesAssumeTheHeaviestKind) {
  // 1,118 .cu of unknown kind: the old 8x over-count, said as an estimate,
  // with the heaviest measured peak (a tree-scanned flash-attn is still flash-attn).
  const BuildPlan plan = plan_ok(small_machine(21 * kGiB), units_from_scan(fa2_scan()));
  EXPECT_EQ(plan.units_basis, UnitsBasis::tree);
  EXPECT_EQ(plan.cuda_units, 1118U);
  EXPECT_EQ(plan.per_worker_bytes, kBackward256);
  EXPECT_FALSE(cost(plan, "CUDA")->measured);
  EXPECT_THAT(plan.cost_basis, HasSubstr("1118 unit(s) of no known kind estimated at ~60 s"));
}

}  // namespace
}  // namespace flashfit::build
