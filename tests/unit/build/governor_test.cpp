// The memory governor: its policy driven with made-up samples (admission,
// pressure, recovery order, the last worker, the root, learning, processes
// that vanish, garbage figures), then under real load: memhog "compilers"
// started by ninja, more of them than the budget holds.
#include "build/governor.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "../temp_dir.hpp"
#include "build/supervisor.hpp"
#include "util/interrupt.hpp"

namespace flashfit::build {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr int kRoot = 100;

ProcessSample proc(int pid, int ppid, std::uint64_t start, std::uint64_t rss_mib, char state = 'R',
                   std::string comm = "cicc") {
  ProcessSample p;
  p.pid = pid;
  p.ppid = ppid;
  p.start_ticks = start;
  p.rss_bytes = rss_mib * kMiB;
  p.state = state;
  p.comm = std::move(comm);
  return p;
}

ProcessSample root(std::uint64_t rss_mib = 5) {
  return proc(kRoot, 1, 1, rss_mib, 'S', "ninja");
}

// A worker: a child of the root, its start order given by its pid.
ProcessSample worker(int pid, std::uint64_t rss_mib, char state = 'R', std::string comm = "cicc") {
  return proc(pid, kRoot, static_cast<std::uint64_t>(pid), rss_mib, state, std::move(comm));
}

GovernorConfig config(std::uint64_t budget_mib, std::optional<std::uint64_t> estimate_mib) {
  GovernorConfig c;
  c.budget_bytes = budget_mib * kMiB;
  if (estimate_mib) c.worker_estimate_bytes = *estimate_mib * kMiB;
  c.low_water_fraction = 0.05;
  return c;
}

// "pause 104, pause 103": the actions as text, for readable expectations.
std::vector<std::string> summary(const std::vector<GovernorAction>& actions) {
  std::vector<std::string> out;
  for (const auto& a : actions) {
    out.push_back((a.kind == GovernorAction::Kind::pause ? "pause " : "resume ") +
                  std::to_string(a.pid));
    EXPECT_FALSE(a.why.empty());
  }
  return out;
}

using Actions = std::vector<std::string>;

TEST(GovernorPolicy, AdmissionPausesTheYoungestWorkersWhoseGrowthDoesNotFit) {
  MemoryGovernor g(config(1000, 400));
  // 45 MiB used: headroom 955 MiB holds two workers' growth (2 x 390), not three.
  const auto actions =
      g.decide({root(), worker(101, 10), worker(102, 10), worker(103, 10), worker(104, 10)}, kRoot,
               std::nullopt);
  EXPECT_EQ(summary(actions), (Actions{"pause 104", "pause 103"}));
  EXPECT_EQ(actions[0].comm, "cicc");
  auto paused = g.paused();
  std::sort(paused.begin(), paused.end());
  EXPECT_EQ(paused, (std::vector<int>{103, 104}));
  EXPECT_EQ(g.stats().pauses, 2u);
  EXPECT_EQ(g.stats().max_paused, 2u);
  EXPECT_EQ(g.stats().peak_group_bytes, 45 * kMiB);

  // The same picture again (the paused two now stopped): nothing changes.
  const auto again = g.decide(
      {root(), worker(101, 10), worker(102, 10), worker(103, 10, 'T'), worker(104, 10, 'T')}, kRoot,
      std::nullopt);
  EXPECT_TRUE(again.empty());
  // The admitted two grow as expected: still nothing to do.
  const auto grown = g.decide(
      {root(), worker(101, 380), worker(102, 390), worker(103, 10, 'T'), worker(104, 10, 'T')},
      kRoot, std::nullopt);
  EXPECT_TRUE(grown.empty()) << summary(grown)[0];
}

TEST(GovernorPolicy, ResumesOldestFirstWhenHeadroomReturnsAndLearnsFromFinishedWorkers) {
  MemoryGovernor g(config(650, 400));
  g.decide({root(), worker(101, 10), worker(102, 10), worker(103, 10)}, kRoot, std::nullopt);
  ASSERT_EQ(g.paused().size(), 2u);  // 102 and 103
  g.decide({root(), worker(101, 300), worker(102, 10, 'T'), worker(103, 10, 'T')}, kRoot,
           std::nullopt);
  EXPECT_FALSE(g.stats().learned_estimate_bytes);
  // 101 finished at a peak of 300 MiB: the estimate becomes 330 MiB. Headroom
  // 625 MiB, with 6.5 MiB to spare, holds one worker's growth (320), not two.
  const auto actions =
      g.decide({root(), worker(102, 10, 'T'), worker(103, 10, 'T')}, kRoot, std::nullopt);
  EXPECT_EQ(summary(actions), (Actions{"resume 102"}));
  ASSERT_TRUE(g.stats().learned_estimate_bytes);
  EXPECT_EQ(*g.stats().learned_estimate_bytes, 330 * kMiB);
  EXPECT_EQ(g.paused(), (std::vector<int>{103}));
  EXPECT_EQ(g.stats().resumes, 1u);
}

TEST(GovernorPolicy, AYoungerWorkerThatFitsMayPassAnOlderOneThatDoesNot) {
  MemoryGovernor g(config(600, 400));
  g.decide({root(), proc(101, kRoot, 101, 50, 'R', "cc1plus")}, kRoot, std::nullopt);
  // The preprocessor finished at 50 MiB: cc1plus is expected at 55, cicc at 400.
  // Headroom 565: 102 runs, 103 (cicc) and 104 (cc1plus) wait.
  const auto first = g.decide(
      {root(), worker(102, 10), worker(103, 10), proc(104, kRoot, 104, 10, 'R', "cc1plus")}, kRoot,
      std::nullopt);
  EXPECT_EQ(summary(first), (Actions{"pause 104", "pause 103"}));
  // 102 at 300 MiB: 245 MiB of room holds 104's growth (45), not 103's (390).
  const auto actions = g.decide(
      {root(), worker(102, 300), worker(103, 10, 'T'), proc(104, kRoot, 104, 10, 'T', "cc1plus")},
      kRoot, std::nullopt);
  EXPECT_EQ(summary(actions), (Actions{"resume 104"}));
}

TEST(GovernorPolicy, NeverPausesTheLastRunningWorkerOrTheRoot) {
  MemoryGovernor g(config(100, 400));  // one worker alone is over the budget
  EXPECT_TRUE(g.decide({root(), worker(101, 10)}, kRoot, std::nullopt).empty());
  EXPECT_TRUE(g.decide({root(), worker(101, 90)}, kRoot, std::nullopt).empty());
  // A second worker is paused, the first keeps running even far over budget.
  EXPECT_EQ(summary(g.decide({root(), worker(101, 150), worker(102, 1)}, kRoot, std::nullopt)),
            (Actions{"pause 102"}));

  // The root is never a worker, even as a leaf holding everything.
  MemoryGovernor alone(config(100, 400));
  EXPECT_TRUE(alone.decide({proc(kRoot, 1, 1, 5000, 'R', "pip")}, kRoot, std::nullopt).empty());
  EXPECT_TRUE(alone.paused().empty());
}

TEST(GovernorPolicy, PressurePausesWorkersGrowingPastTheirEstimate) {
  MemoryGovernor g(config(1000, 100));
  // First sight: three workers at 50 MiB; admission holds all three (3 x 50 < 845).
  EXPECT_TRUE(
      g.decide({root(), worker(101, 50), worker(102, 50), worker(103, 50)}, kRoot, std::nullopt)
          .empty());
  // They go past the 100 MiB estimate, about 200 MiB a sample each: 770 MiB
  // used, headroom 230 < 50 low-water + 615 unexpected: pause the youngest two.
  const auto actions =
      g.decide({root(), worker(101, 250), worker(102, 255), worker(103, 260)}, kRoot, std::nullopt);
  EXPECT_EQ(summary(actions), (Actions{"pause 103", "pause 102"}));
  EXPECT_NE(actions[0].why.find("low-water"), std::string::npos) << actions[0].why;
}

TEST(GovernorPolicy, GrowthWithinTheEstimatesNeedsNoBandGrowthPastThemDoes) {
  MemoryGovernor g(config(820, 400));
  g.decide({root(), worker(101, 300), worker(102, 300)}, kRoot, std::nullopt);
  // 35 MiB of headroom, under the 41 MiB low-water mark, but both workers are
  // within their estimate and their remaining growth (20) fits: no pause.
  EXPECT_TRUE(g.decide({root(), worker(101, 390), worker(102, 390)}, kRoot, std::nullopt).empty());
  // 101 goes past its estimate (+30 MiB in a sample): pressure pauses 102.
  const auto actions = g.decide({root(), worker(101, 420), worker(102, 392)}, kRoot, std::nullopt);
  EXPECT_EQ(summary(actions), (Actions{"pause 102"}));
}

TEST(GovernorPolicy, PressureFromTheMachineEvenWithoutABudget) {
  GovernorConfig c;
  c.reserve_bytes = 500 * kMiB;
  c.worker_estimate_bytes = 100 * kMiB;
  MemoryGovernor g(c);
  // The machine has 520 MiB available, 500 reserved: 20 MiB headroom, too
  // little for both workers' growth: the younger waits.
  const auto actions = g.decide({root(), worker(101, 10), worker(102, 10)}, kRoot, 520 * kMiB);
  EXPECT_EQ(summary(actions), (Actions{"pause 102"}));
  // Plenty available again: it is resumed.
  const auto later = g.decide({root(), worker(101, 90), worker(102, 10, 'T')}, kRoot, 20000 * kMiB);
  EXPECT_EQ(summary(later), (Actions{"resume 102"}));
}

TEST(GovernorPolicy, WhenNoWorkerRunsTheOldestPausedOneIsResumedRegardless) {
  MemoryGovernor g(config(100, 400));
  g.decide({root(), worker(101, 10), worker(102, 10), worker(103, 10)}, kRoot, std::nullopt);
  ASSERT_EQ(g.paused().size(), 2u);
  g.decide({root(), worker(101, 95), worker(102, 10, 'T'), worker(103, 10, 'T')}, kRoot,
           std::nullopt);
  // 101 is gone; nothing fits the budget, but the build must progress.
  const auto actions =
      g.decide({root(), worker(102, 10, 'T'), worker(103, 10, 'T')}, kRoot, std::nullopt);
  EXPECT_EQ(summary(actions), (Actions{"resume 102"}));
  EXPECT_NE(actions[0].why.find("no worker is running"), std::string::npos);
}

TEST(GovernorPolicy, AWorkerAtItsPeakIsLeftToFinish) {
  MemoryGovernor g(config(1000, 400));
  g.decide({root(), worker(101, 390), worker(102, 400)}, kRoot, std::nullopt);
  // Both at their peak, the machine short: pausing 102 would free nothing.
  const auto actions = g.decide({root(), worker(101, 400), worker(102, 400)}, kRoot, 30 * kMiB);
  EXPECT_TRUE(actions.empty()) << summary(actions)[0];
}

TEST(GovernorPolicy, VanishedAndReusedPidsAreForgotten) {
  MemoryGovernor g(config(500, 400));
  g.decide({root(), worker(101, 10), worker(102, 10)}, kRoot, std::nullopt);
  ASSERT_EQ(g.paused(), (std::vector<int>{102}));
  // 102 vanished (killed by someone): no longer paused, nothing sent for it.
  g.decide({root(), worker(101, 100)}, kRoot, std::nullopt);
  EXPECT_TRUE(g.paused().empty());
  // Its pid comes back for another process (another start time): a new
  // worker, paused on its own merits, never "resumed" as the old one.
  const auto actions = g.decide({root(), worker(101, 100), proc(102, kRoot, 999, 1, 'R', "cicc")},
                                kRoot, std::nullopt);
  EXPECT_EQ(summary(actions), (Actions{"pause 102"}));
  // Same pid, different start: the paused one finished; the newcomer runs.
  const auto reuse = g.decide({root(), worker(101, 100), proc(102, kRoot, 1500, 1, 'R', "cicc")},
                              kRoot, std::nullopt);
  for (const auto& a : reuse) EXPECT_NE(a.kind, GovernorAction::Kind::resume);
}

TEST(GovernorPolicy, DriversAreNotWorkersButPausedOnesAreStillResumed) {
  MemoryGovernor g(config(1000, 400));
  // nvcc (101) is a leaf between its phases, then starts cicc (103).
  g.decide({root(), worker(101, 20, 'S', "nvcc"), worker(102, 10)}, kRoot, std::nullopt);
  const auto actions = g.decide(
      {root(), worker(101, 20, 'S', "nvcc"), worker(102, 10), proc(103, 101, 200, 10, 'R', "cicc")},
      kRoot, std::nullopt);
  // Workers now: 102 and 103 (2 x 390 fits 955); nvcc is not one any more.
  EXPECT_TRUE(actions.empty()) << summary(actions)[0];

  // A worker paused just as it forked stays the governor's to resume.
  GovernorConfig c;  // the machine's figure alone, so the test can change it
  c.worker_estimate_bytes = 400 * kMiB;
  MemoryGovernor h(c);
  h.decide({root(), worker(101, 10), worker(102, 10)}, kRoot, 500 * kMiB);
  ASSERT_EQ(h.paused(), (std::vector<int>{102}));
  const auto later =
      h.decide({root(), worker(101, 10), worker(102, 10, 'T'), proc(103, 102, 300, 1, 'R', "cc1")},
               kRoot, 100000 * kMiB);
  EXPECT_EQ(summary(later), (Actions{"resume 102"}));
}

TEST(GovernorPolicy, AChildBetweenForkAndExecIsNotPaused) {
  MemoryGovernor g(config(100, 400));
  // 102 still bears ninja's name: a posix_spawn (vfork) child that has not
  // exec'd; stopping it would stop ninja too.
  const auto before = g.decide({root(), worker(101, 10), proc(102, kRoot, 102, 3, 'R', "ninja")},
                               kRoot, std::nullopt);
  EXPECT_TRUE(before.empty()) << summary(before)[0];
  // Once it has exec'd, it is a worker like any other.
  const auto after = g.decide({root(), worker(101, 10), worker(102, 3)}, kRoot, std::nullopt);
  EXPECT_EQ(summary(after), (Actions{"pause 102"}));
}

TEST(GovernorPolicy, ProcessesStoppedBySomeoneElseAreNeitherRunningNorResumed) {
  MemoryGovernor g(config(500, 400));
  // 101 was stopped by the user (state T): 102 is the only running worker.
  EXPECT_TRUE(
      g.decide({root(), worker(101, 10, 'T'), worker(102, 10)}, kRoot, std::nullopt).empty());
  // Plenty of room: 101 is still not the governor's to resume.
  EXPECT_TRUE(
      g.decide({root(), worker(101, 10, 'T'), worker(102, 10)}, kRoot, 100000 * kMiB).empty());
}

TEST(GovernorPolicy, LearnsPerKindSoSmallHelpersDoNotLowerTheCompilersEstimate) {
  MemoryGovernor g(config(1000, 400));
  g.decide({root(), proc(101, kRoot, 101, 50, 'R', "cc1plus")}, kRoot, std::nullopt);
  // The preprocessor finished at 50 MiB; three compilers start.
  const auto actions =
      g.decide({root(), worker(102, 10), worker(103, 10), worker(104, 10)}, kRoot, std::nullopt);
  // cicc still expects 400 MiB: 965 headroom holds two of 390, not three.
  EXPECT_EQ(summary(actions), (Actions{"pause 104"}));
  EXPECT_EQ(*g.stats().learned_estimate_bytes, 55 * kMiB);
  // A cc1plus is expected at 55 MiB and fits beside them.
  const auto more = g.decide({root(), worker(102, 10), worker(103, 10), worker(104, 10, 'T'),
                              proc(105, kRoot, 105, 5, 'R', "cc1plus")},
                             kRoot, std::nullopt);
  EXPECT_TRUE(more.empty()) << summary(more)[0];
  g.decide({root(), worker(102, 300), worker(103, 300), worker(104, 10, 'T'),
            proc(105, kRoot, 105, 5, 'R', "cc1plus")},
           kRoot, std::nullopt);
  // The compilers finished at 300 MiB: their estimate drops to 330 and 104 runs.
  const auto after = g.decide({root(), worker(104, 10, 'T')}, kRoot, std::nullopt);
  EXPECT_EQ(summary(after), (Actions{"resume 104"}));
  EXPECT_EQ(*g.stats().learned_estimate_bytes, 330 * kMiB);
}

TEST(GovernorPolicy, AWorkerKilledWhilePausedTeachesNothing) {
  MemoryGovernor g(config(500, 400));
  g.decide({root(), worker(101, 10), worker(102, 10)}, kRoot, std::nullopt);
  ASSERT_EQ(g.paused(), (std::vector<int>{102}));
  g.decide({root(), worker(101, 10)}, kRoot, std::nullopt);  // 102 killed by someone
  EXPECT_FALSE(g.stats().learned_estimate_bytes);
  // cicc is still expected at 400 MiB: a newcomer waits.
  EXPECT_EQ(summary(g.decide({root(), worker(101, 10), worker(103, 1)}, kRoot, std::nullopt)),
            (Actions{"pause 103"}));
}

TEST(GovernorPolicy, WithoutAnyEstimateOneWorkerRunsUntilOneFinishes) {
  MemoryGovernor g(config(1000, std::nullopt));
  const auto first =
      g.decide({root(), worker(101, 10), worker(102, 10), worker(103, 10)}, kRoot, std::nullopt);
  EXPECT_EQ(summary(first), (Actions{"pause 103", "pause 102"}));
  EXPECT_NE(first[0].why.find("no memory estimate for cicc"), std::string::npos) << first[0].why;
  EXPECT_TRUE(g.decide({root(), worker(101, 300), worker(102, 10, 'T'), worker(103, 10, 'T')},
                       kRoot, std::nullopt)
                  .empty());
  // 101 finished at 300 MiB: 330 expected; 965 of headroom holds both others.
  const auto after =
      g.decide({root(), worker(102, 10, 'T'), worker(103, 10, 'T')}, kRoot, std::nullopt);
  EXPECT_EQ(summary(after), (Actions{"resume 102", "resume 103"}));
}

TEST(GovernorPolicy, AFinishedHelperDoesNotMakeOtherKindsKnown) {
  MemoryGovernor g(config(1000, std::nullopt));
  g.decide({root(), proc(101, kRoot, 101, 1, 'S', "sh")}, kRoot, std::nullopt);
  // The shell finished at 1 MiB; that says nothing about the compilers, which
  // still run one at a time.
  const auto actions =
      g.decide({root(), worker(102, 10), worker(103, 10), worker(104, 10)}, kRoot, std::nullopt);
  EXPECT_EQ(summary(actions), (Actions{"pause 104", "pause 103"}));
  // Another shell (known now, 1.1 MiB expected) runs beside them.
  EXPECT_TRUE(g.decide({root(), worker(102, 20), worker(103, 10, 'T'), worker(104, 10, 'T'),
                        proc(105, kRoot, 105, 1, 'S', "sh")},
                       kRoot, std::nullopt)
                  .empty());
}

TEST(GovernorPolicy, ALiveWorkerPastTheEstimateRaisesItForItsKind) {
  MemoryGovernor g(config(1000, 100));
  EXPECT_TRUE(
      g.decide({root(), worker(101, 10), worker(102, 10), worker(103, 10)}, kRoot, std::nullopt)
          .empty());
  // 101 reached 400 MiB: the others are expected to as well (2 x 380 of
  // growth in 555 of headroom): the youngest waits.
  const auto actions =
      g.decide({root(), worker(101, 400), worker(102, 20), worker(103, 20)}, kRoot, std::nullopt);
  EXPECT_EQ(summary(actions).front(), "pause 103");
}

TEST(GovernorPolicy, GarbageFiguresNeverStrandAWorker) {
  // No budget and no available-memory figure: nothing is measured, nothing held.
  MemoryGovernor blind(config(0, 400));
  EXPECT_TRUE(
      blind.decide({root(), worker(101, 10), worker(102, 10)}, kRoot, std::nullopt).empty());

  // Absurd sizes do not overflow: everything saturates, one worker runs.
  const std::uint64_t huge = std::numeric_limits<std::uint64_t>::max();
  MemoryGovernor big(config(500, 400));
  std::vector<ProcessSample> group = {root(), worker(101, 10), worker(102, 10), worker(103, 10)};
  group[1].rss_bytes = huge;
  group[2].rss_bytes = huge / 2;
  const auto actions = big.decide(group, kRoot, huge);
  EXPECT_EQ(big.stats().peak_group_bytes, huge);
  EXPECT_LE(big.paused().size(), 2u);
  // Empty samples, bogus pids, a low-water fraction out of range: no actions.
  GovernorConfig odd = config(500, 400);
  odd.low_water_fraction = -3;
  MemoryGovernor weird(odd);
  EXPECT_TRUE(weird.decide({}, kRoot, std::nullopt).empty());
  EXPECT_TRUE(weird.decide({proc(0, 0, 0, 10), proc(-5, kRoot, 3, 10)}, kRoot, 0).empty());
}

TEST(GovernorPolicy, WhenFiguresDisappearPausedWorkersAreReleased) {
  GovernorConfig c;  // no budget: the machine's figure is all there is
  c.worker_estimate_bytes = 400 * kMiB;
  MemoryGovernor g(c);
  g.decide({root(), worker(101, 10), worker(102, 10)}, kRoot, 500 * kMiB);
  ASSERT_EQ(g.paused(), (std::vector<int>{102}));
  const auto actions =
      g.decide({root(), worker(101, 10), worker(102, 10, 'T')}, kRoot, std::nullopt);
  EXPECT_EQ(summary(actions), (Actions{"resume 102"}));
}

// --- under real load ---------------------------------------------------------

// A ninja file running `jobs` memhogs; each prints "memhog <pid> done" at its
// end and leaves its pid in out<N>.pid.
std::filesystem::path write_ninja(const std::filesystem::path& dir, int jobs, int mib, int ramp_ms,
                                  int hold_ms) {
  std::ofstream out(dir / "build.ninja");
  out << "rule hog\n  command = " << FLASHFIT_FIXTURE_MEMHOG << " " << mib << " " << ramp_ms << " "
      << hold_ms << " $out.pid && touch $out\n";
  for (int i = 0; i < jobs; ++i) out << "build out" << i << ": hog\n";
  return dir / "build.ninja";
}

SupervisorOptions ninja_run(const test::TempDir& dir, int jobs) {
  SupervisorOptions o;
  o.argv = {"ninja", "-j", std::to_string(jobs)};
  o.cwd = dir.path();
  o.log_path = dir.path() / "build.log";
  return o;
}

bool have_ninja() {
  return std::filesystem::exists("/usr/bin/ninja") ||
         std::filesystem::exists("/usr/local/bin/ninja");
}

TEST(GovernorLoad, SixHogsOverBudgetStayUnderItWithTheGovernorAndAllFinish) {
  if (!have_ninja()) GTEST_SKIP() << "ninja is not installed";
  test::TempDir dir("governor");
  write_ninja(dir.path(), 6, 150, 400, 700);
  const std::uint64_t budget = 400 * kMiB;  // two hogs fit, six do not

  SupervisorOptions o = ninja_run(dir, 6);
  GovernorConfig c;
  c.budget_bytes = budget;
  c.worker_estimate_bytes = 160 * kMiB;
  c.interval = std::chrono::milliseconds(50);
  o.governor = c;
  std::size_t done = 0, pause_actions = 0;
  o.on_line = [&](std::string_view line) {
    if (line.find(" done ") != std::string_view::npos) ++done;
  };
  o.on_governor_action = [&](const GovernorAction& a) {
    if (a.kind == GovernorAction::Kind::pause) ++pause_actions;
  };
  const auto run = supervise(o);
  ASSERT_TRUE(run) << run.error().message;
  RecordProperty("peak_mib", static_cast<int>(run->peak_group_bytes / kMiB));
  RecordProperty("pauses", static_cast<int>(run->governor.pauses));
  RecordProperty("max_paused", static_cast<int>(run->governor.max_paused));
  EXPECT_TRUE(run->succeeded()) << run->describe();
  EXPECT_EQ(done, 6u);  // every job ran to its end: none was killed
  EXPECT_LT(run->peak_group_bytes, budget) << run->peak_group_bytes / kMiB << " MiB";
  EXPECT_GT(run->peak_group_bytes, 150 * kMiB);
  EXPECT_GT(run->governor.pauses, 0u);
  EXPECT_EQ(run->governor.pauses, pause_actions);
  EXPECT_GE(run->governor.resumes, run->governor.pauses);  // none left stopped
  ASSERT_TRUE(run->governor.learned_estimate_bytes);
  EXPECT_GE(*run->governor.learned_estimate_bytes, 150 * kMiB);
}

TEST(GovernorLoad, TheSameJobsWithoutTheGovernorGoOverTheBudget) {
  // The control for the test above: the workload does exceed the budget.
  if (!have_ninja()) GTEST_SKIP() << "ninja is not installed";
  test::TempDir dir("governor");
  write_ninja(dir.path(), 6, 150, 400, 700);
  SupervisorOptions o = ninja_run(dir, 6);
  const auto run = supervise(o);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_TRUE(run->succeeded()) << run->describe();
  EXPECT_GT(run->peak_group_bytes, 400 * kMiB);
  EXPECT_EQ(run->governor.samples, 0u);
}

TEST(GovernorLoad, InterruptingAGovernedBuildLeavesNoProcessPausedOrNot) {
  if (!have_ninja()) GTEST_SKIP() << "ninja is not installed";
  test::TempDir dir("governor");
  write_ninja(dir.path(), 6, 100, 200, 60000);  // they would hold for a minute
  SupervisorOptions o = ninja_run(dir, 6);
  GovernorConfig c;
  c.budget_bytes = 300 * kMiB;
  c.worker_estimate_bytes = 110 * kMiB;
  c.interval = std::chrono::milliseconds(50);
  o.governor = c;
  o.grace = std::chrono::milliseconds(1000);
  std::atomic<bool> paused{false};
  o.on_governor_action = [&](const GovernorAction& a) {
    if (a.kind == GovernorAction::Kind::pause) paused = true;
  };
  std::thread ctrl_c([&] {
    while (!paused) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    util::set_interrupted(true);
  });
  const auto run = supervise(o);
  ctrl_c.join();
  util::set_interrupted(false);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().kind, util::ErrorKind::interrupted);
  std::size_t hogs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (entry.path().extension() != ".pid") continue;
    std::ifstream in(entry.path());
    int pid = 0;
    if (!(in >> pid) || pid <= 0) continue;
    ++hogs;
    EXPECT_TRUE(::kill(pid, 0) != 0 && errno == ESRCH) << "memhog " << pid << " survived";
  }
  EXPECT_GE(hogs, 2u);  // some ran, some were paused at the time
}

}  // namespace
}  // namespace flashfit::build

namespace flashfit::build {
namespace {

const std::vector<UnitClass> kFa2Classes = {
    {"forward", {"flash_fwd_*.cu"}, 400 * kMiB},
    {"backward", {"flash_bwd_*.cu"}, 600 * kMiB},
};

TEST(GovernorUnits, NvccTempFileNamesTellTheUnit) {
  EXPECT_EQ(unit_class_of(kFa2Classes,
                          {"cicc", "--orig_src_file_name",
                           "csrc/flash_attn/src/flash_bwd_hdim128_fp16_sm80.cu", "-o",
                           "/tmp/tmpxft_00003f2a_00000000-6_flash_bwd_hdim128_fp16_sm80.ptx"})
                ->kind,
            "backward");
  EXPECT_EQ(
      unit_class_of(kFa2Classes,
                    {"ptxas", "/tmp/x/tmpxft_0000beef_00000000-7_flash_fwd_hdim64_bf16_sm80.ptx"})
          ->kind,
      "forward");
  EXPECT_EQ(unit_class_of(kFa2Classes, {"cc1plus", "flash_api.cpp"}), nullptr);
  EXPECT_EQ(unit_class_of(kFa2Classes, {}), nullptr);
  EXPECT_EQ(unit_class_of(kFa2Classes, {"tmpxft_", "tmpxft_x-", "/", ""}),
            nullptr);  // garbage: no class, no crash
}

TEST(GovernorUnits, BackwardUnitsAreAdmittedByTheirOwnPeak) {
  // Budget 1100 MiB: a backward (600) beside a forward (400) fits; two backward do not.
  std::map<int, std::vector<std::string>> args = {
      {101, {"cicc", "/tmp/tmpxft_1_2-6_flash_bwd_hdim128_fp16_sm80.cpp1.ii"}},
      {102, {"cicc", "/tmp/tmpxft_1_2-6_flash_bwd_hdim64_fp16_sm80.cpp1.ii"}},
      {103, {"cicc", "/tmp/tmpxft_1_2-6_flash_fwd_hdim64_fp16_sm80.cpp1.ii"}},
  };
  GovernorConfig c = config(1100, 400);  // the plain estimate alone would admit all three
  c.unit_classes = kFa2Classes;
  c.worker_args = [&](int pid) { return args[pid]; };
  MemoryGovernor g(c);
  EXPECT_EQ(summary(g.decide({root(), worker(101, 10), worker(102, 10)}, kRoot, std::nullopt)),
            (Actions{"pause 102"}));

  MemoryGovernor mixed(c);
  EXPECT_TRUE(
      mixed.decide({root(), worker(101, 10), worker(103, 10)}, kRoot, std::nullopt).empty());

  // Without classes the same two backward workers both run: 2 x 400 fits.
  MemoryGovernor plain(config(1100, 400));
  EXPECT_TRUE(
      plain.decide({root(), worker(101, 10), worker(102, 10)}, kRoot, std::nullopt).empty());
}

}  // namespace
}  // namespace flashfit::build
