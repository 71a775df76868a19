// The memory governor against static job counts, on a synthetic build: ninja
// runs memhog "compilers" (tests/fixtures/memhog.c: each grows to JOB MiB over
// RAMP ms, holds it HOLD ms, exits) under a memory budget that holds
// floor(budget / job) of them. Each configuration runs once through
// build::supervise (the makespan is its wall time, the peak its sampled sum of
// RSS over the build):
//   static -j1                 the safe, slow setting
//   static -jK, K = budget/job the best static setting that stays under budget
//   static -jN, all at once    what MAX_JOBS=nproc-style guessing does: over
//                              budget (no governor; only run when this machine
//                              has the memory to spare, else capped and said so)
//   governor, -jN              all jobs launched at once, the governor with
//                              the estimate a plan would give it / learning it
// plus the cost of one governor tick (a /proc scan and a decision).
// The goal: the governor's makespan within 1.15x of static -jK, under budget,
// nothing killed.
//
// Workload knobs (environment): FLASHFIT_GOV_BENCH_JOBS (12), _MIB (400),
// _RAMP_MS (1000), _HOLD_MS (2000), _BUDGET_MIB (1331), _INTERVAL_MS (the
// governor's default), _LOW_WATER (the governor's default); FLASHFIT_MEMHOG
// names the memhog binary (default: the test fixture next to this build,
// else compiled from the source tree with cc).

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "build/governor.hpp"
#include "build/process_tree.hpp"
#include "build/supervisor.hpp"
#include "util/files.hpp"
#include "util/process.hpp"

namespace {

namespace fs = std::filesystem;
using flashfit::build::GovernorConfig;
using flashfit::build::MemoryGovernor;
using flashfit::build::SupervisedRun;
using flashfit::build::SupervisorOptions;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

long knob(const char* name, long fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return end && *end == '\0' && value > 0 ? value : fallback;
}

struct Workload {
  int jobs = static_cast<int>(knob("FLASHFIT_GOV_BENCH_JOBS", 12));
  long mib = knob("FLASHFIT_GOV_BENCH_MIB", 400);
  long ramp_ms = knob("FLASHFIT_GOV_BENCH_RAMP_MS", 1000);
  long hold_ms = knob("FLASHFIT_GOV_BENCH_HOLD_MS", 2000);
  std::uint64_t budget =
      static_cast<std::uint64_t>(knob("FLASHFIT_GOV_BENCH_BUDGET_MIB", 1331)) * kMiB;
  int fitting_jobs() const {
    return std::max(1, static_cast<int>(budget / (static_cast<std::uint64_t>(mib) * kMiB)));
  }
};

const Workload& workload() {
  static const Workload w;
  return w;
}

// A private directory for the whole run, removed at exit.
const fs::path& work_dir() {
  static const fs::path dir = [] {
    std::string pattern = (fs::temp_directory_path() / "flashfit-govbench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(work_dir(), ec);
    });
    return fs::path(pattern);
  }();
  return dir;
}

std::optional<fs::path> memhog() {
  static const std::optional<fs::path> path = []() -> std::optional<fs::path> {
    if (const char* given = std::getenv("FLASHFIT_MEMHOG"); given && *given) return fs::path(given);
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    const fs::path built = self.parent_path().parent_path() / "tests" / "fixtures" / "memhog";
    if (!ec && flashfit::util::is_executable_file(built)) return built;
    const fs::path source = fs::path(FLASHFIT_DATA_DIR).parent_path() / "tests/fixtures/memhog.c";
    const fs::path out = work_dir() / "memhog";
    flashfit::util::ProcessSpec spec;
    spec.argv = {"cc", "-O2", "-o", out.string(), source.string()};
    const auto r = flashfit::util::run_process(spec);
    if (!r || !r->succeeded()) return std::nullopt;
    return out;
  }();
  return path;
}

bool have_ninja() {
  const char* path = std::getenv("PATH");
  return flashfit::util::find_on_path("ninja", path ? path : "").has_value();
}

std::optional<std::uint64_t> mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t value = 0;
  std::string unit;
  while (in >> key >> value >> unit) {
    if (key == "MemAvailable:") return value * 1024;
  }
  return std::nullopt;
}

struct Row {
  std::string name;
  int jobs = 0;
  double makespan_s = 0;
  double peak_mib = 0;
  bool under_budget = false;
  bool ok = false;
  std::size_t pauses = 0;
  std::size_t max_paused = 0;
  std::string note;
};

std::vector<Row>& rows() {
  static std::vector<Row> r;
  return r;
}

// One build: ninja -j `jobs` over the workload, with or without a governor.
std::optional<SupervisedRun> run_build(int jobs, const std::optional<GovernorConfig>& governor,
                                       std::string& error) {
  const Workload& w = workload();
  const fs::path dir = work_dir() / ("run-" + std::to_string(rows().size()));
  fs::create_directories(dir);
  {
    std::ofstream ninja(dir / "build.ninja");
    ninja << "rule hog\n  command = " << memhog()->string() << " " << w.mib << " " << w.ramp_ms
          << " " << w.hold_ms << " > $out\n";
    for (int i = 0; i < w.jobs; ++i) ninja << "build out" << i << ": hog\n";
  }
  SupervisorOptions o;
  o.argv = {"ninja", "-j", std::to_string(jobs)};
  o.cwd = dir;
  o.log_path = dir / "build.log";
  o.governor = governor;
  // FLASHFIT_GOV_BENCH_TRACE=1: every governor action on stderr, timed.
  const auto started = std::chrono::steady_clock::now();
  if (std::getenv("FLASHFIT_GOV_BENCH_TRACE")) {
    o.on_governor_action = [started](const flashfit::build::GovernorAction& a) {
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count();
      std::fprintf(stderr, "%7.2f s  %-6s %d %s: %s\n", static_cast<double>(ms) / 1000.0,
                   a.kind == flashfit::build::GovernorAction::Kind::pause ? "pause" : "resume",
                   a.pid, a.comm.c_str(), a.why.c_str());
    };
  }
  const auto run = flashfit::build::supervise(o);
  if (!run) {
    error = run.error().message;
    return std::nullopt;
  }
  return *run;
}

void record(benchmark::State& state, const std::string& name, int jobs,
            const std::optional<SupervisedRun>& run, const std::string& note = {}) {
  const Workload& w = workload();
  Row row;
  row.name = name;
  row.jobs = jobs;
  row.makespan_s = static_cast<double>(run->elapsed.count()) / 1000.0;
  row.peak_mib = static_cast<double>(run->peak_group_bytes) / static_cast<double>(kMiB);
  row.under_budget = run->peak_group_bytes <= w.budget;
  row.ok = run->succeeded();
  row.pauses = run->governor.pauses;
  row.max_paused = run->governor.max_paused;
  row.note = note;
  rows().push_back(row);
  state.SetIterationTime(row.makespan_s);
  state.counters["peak_MiB"] = row.peak_mib;
  state.counters["budget_MiB"] = static_cast<double>(w.budget / kMiB);
  state.counters["succeeded"] = row.ok ? 1 : 0;
  state.counters["pauses"] = static_cast<double>(row.pauses);
  if (!note.empty()) state.SetLabel(note);
}

bool ready(benchmark::State& state) {
  if (!have_ninja()) {
    state.SkipWithError("ninja is not on PATH");
    return false;
  }
  if (!memhog()) {
    state.SkipWithError("no memhog: set FLASHFIT_MEMHOG or build the fixture_memhog target");
    return false;
  }
  return true;
}

void run_static(benchmark::State& state, const std::string& name, int jobs,
                const std::string& note = {}) {
  for (auto _ : state) {
    if (!ready(state)) return;
    std::string error;
    const auto run = run_build(jobs, std::nullopt, error);
    if (!run) {
      state.SkipWithError(error.c_str());
      return;
    }
    record(state, name, jobs, run, note);
  }
}

GovernorConfig governor_config(bool with_estimate) {
  GovernorConfig c;
  c.budget_bytes = workload().budget;
  c.reserve_bytes = std::uint64_t{2} << 30;  // the machine keeps 2 GiB, as a plan's default would
  // A plan's estimate: the job's size and a small margin (2.5%; memhog's own
  // code and libc add about 1.5 MiB to what it allocates).
  if (with_estimate) {
    c.worker_estimate_bytes = static_cast<std::uint64_t>(workload().mib) * kMiB * 1025 / 1000;
  }
  c.interval =
      std::chrono::milliseconds(knob("FLASHFIT_GOV_BENCH_INTERVAL_MS", c.interval.count()));
  if (const char* lw = std::getenv("FLASHFIT_GOV_BENCH_LOW_WATER"); lw && *lw) {
    c.low_water_fraction = std::atof(lw);
  }
  return c;
}

void run_governed(benchmark::State& state, const std::string& name, bool with_estimate) {
  const int jobs = workload().jobs;
  for (auto _ : state) {
    if (!ready(state)) return;
    std::string error;
    const auto run = run_build(jobs, governor_config(with_estimate), error);
    if (!run) {
      state.SkipWithError(error.c_str());
      return;
    }
    record(state, name, jobs, run);
  }
}

void BM_StaticJ1(benchmark::State& state) {
  run_static(state, "static -j1", 1);
}

void BM_StaticBestFit(benchmark::State& state) {
  run_static(state, "static -jK (K = budget/job)", workload().fitting_jobs());
}

void BM_StaticAllAtOnce(benchmark::State& state) {
  // Over budget on purpose; never more than this machine can spare with 4 GiB
  // kept free.
  const Workload& w = workload();
  int jobs = w.jobs;
  std::string note;
  const auto available = mem_available();
  const std::uint64_t keep = std::uint64_t{4} << 30;
  const std::uint64_t per_job = static_cast<std::uint64_t>(w.mib) * kMiB;
  const std::uint64_t spare = available && *available > keep ? *available - keep : 0;
  if (static_cast<std::uint64_t>(jobs) * per_job > spare) {
    jobs = static_cast<int>(spare / per_job);
    note = "capped by this machine's available memory";
  }
  if (jobs <= w.fitting_jobs()) {
    state.SkipWithError("not enough free memory to run over budget safely");
    return;
  }
  run_static(state, "static -jN (all at once, no governor)", jobs, note);
}

void BM_GovernorEstimate(benchmark::State& state) {
  run_governed(state, "governor -jN, estimate given", true);
}

void BM_GovernorLearning(benchmark::State& state) {
  run_governed(state, "governor -jN, learning", false);
}

// After the last configuration: the comparison the goal is about.
void BM_Summary(benchmark::State& state) {
  for (auto _ : state) {
  }
  const Workload& w = workload();
  double best = 0;
  for (const auto& r : rows()) {
    if (r.name.rfind("static", 0) == 0 && r.under_budget && r.ok &&
        (best == 0 || r.makespan_s < best))
      best = r.makespan_s;
  }
  std::fprintf(stderr,
               "\nworkload: %d jobs x %ld MiB (ramp %ld ms, hold %ld ms), budget %llu MiB\n"
               "%-40s %4s %10s %9s %7s %6s %7s %9s\n",
               w.jobs, w.mib, w.ramp_ms, w.hold_ms,
               static_cast<unsigned long long>(w.budget / kMiB), "configuration", "-j", "makespan",
               "peak MiB", "budget", "ok", "pauses", "vs best");
  for (const auto& r : rows()) {
    std::fprintf(stderr, "%-40s %4d %9.1fs %9.0f %7s %6s %7zu %8.2fx %s\n", r.name.c_str(), r.jobs,
                 r.makespan_s, r.peak_mib, r.under_budget ? "under" : "OVER", r.ok ? "yes" : "NO",
                 r.pauses, best > 0 ? r.makespan_s / best : 0.0, r.note.c_str());
  }
}

// One governor tick's reading: the /proc scan over every process of the
// machine, the available-memory read, and a decision.
void BM_GovernorTick(benchmark::State& state) {
  GovernorConfig config;
  config.budget_bytes = std::uint64_t{8} << 30;
  config.worker_estimate_bytes = std::uint64_t{1} << 30;
  MemoryGovernor governor(config);
  const int self = static_cast<int>(::getpgrp());
  for (auto _ : state) {
    const auto samples = flashfit::build::sample_process_group(self);
    const auto available = flashfit::build::sample_available_memory("/");
    benchmark::DoNotOptimize(governor.decide(samples, self, available));
  }
}

}  // namespace

BENCHMARK(BM_GovernorTick)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_StaticJ1)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
BENCHMARK(BM_StaticBestFit)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
BENCHMARK(BM_StaticAllAtOnce)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
BENCHMARK(BM_GovernorEstimate)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
BENCHMARK(BM_GovernorLearning)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
BENCHMARK(BM_Summary)->Iterations(1);
