// The build planner: memory decides parallelism, because an nvcc build that
// runs out of memory dies with a bare "Killed" after an hour, while one that
// runs a little slower succeeds. Every number in the plan says where it came
// from (the *_basis strings), so a user can see why MAX_JOBS is 2 and change it.
#include "build/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "build/plan_archs.hpp"
#include "resolve/build_knobs.hpp"
#include "util/strings.hpp"

namespace flashfit::build {
namespace {

using util::ErrorKind;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// Kept free for everything else on the machine: the larger of these.
constexpr std::uint64_t kMinReserveBytes = kGiB;
constexpr std::uint64_t kReservePercent = 10;  // of total memory

// When the machine's memory cannot be read: small enough to be safe on a
// laptop, and the warning says to pass --memory-budget.
constexpr std::uint64_t kUnknownMemoryBudget = 4 * kGiB;
// When the CPU count cannot be read.
constexpr unsigned kUnknownCpus = 2;

// Estimates, not measurements. One nvcc thread compiling one -gencode target
// of a torch extension's kernel file, for recipes without a measured figure
// and for .cu files without a recipe (one thread per job there): below
// flash-attn's measured 5 GiB (its cutlass kernels are among the heaviest),
// above a plain kernel file's 1-2 GiB.
constexpr std::uint64_t kDefaultNvccThreadBytes = 3 * kGiB;
// One g++ translation unit including torch's headers (torch/extension.h pulls
// in most of ATen): ~1-1.5 GiB at its peak; the upper end.
constexpr std::uint64_t kDefaultCxxJobBytes = 3 * kGiB / 2;

// Rough: seconds of one compiler on one unit. flash-attn's 73 kernel files x
// 4 archs at ~60 s over 64 cores match the README's "3-5 minutes on a 64-core
// machine"; a C++ file including torch's headers takes ~20 s.
constexpr unsigned kSecondsPerCudaUnit = 60;  // one .cu file for one arch
constexpr unsigned kSecondsPerCxxUnit = 20;   // one .cpp file

// Rough disk use: objects per unit, plus the source tree (flash-attn's sdist
// bundles cutlass), the linked module and the wheel.
constexpr std::uint64_t kDiskBaseBytes = kGiB;
constexpr std::uint64_t kDiskPerCudaUnit = 32 * kMiB;
constexpr std::uint64_t kDiskPerCxxUnit = 8 * kMiB;

constexpr const char* kDefaultJobsVariable = "MAX_JOBS";

std::string gib(std::uint64_t bytes) {
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / static_cast<double>(kGiB));
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::uint64_t gib_to_bytes(double value) {
  return static_cast<std::uint64_t>(std::llround(value * static_cast<double>(kGiB)));
}

void plan_budget(const env::Environment& env, const PlanRequest& request, BuildPlan& plan) {
  const auto& total = env.machine.memory_total_bytes;
  const auto& available = env.machine.memory_available_bytes;
  if (total.known() || available.known()) {
    const std::uint64_t base = total.known() ? *total : *available;
    plan.reserve_bytes = std::max(kMinReserveBytes, base / 100 * kReservePercent);
  }
  if (request.memory_budget) {
    plan.budget_bytes = *request.memory_budget;
    plan.budget_basis = "--memory-budget";
    return;
  }
  if (!available.known()) {
    plan.budget_bytes = kUnknownMemoryBudget;
    plan.budget_basis = fmt::format("available memory unknown ({}): {} assumed", available.unknown_reason,
                                    gib(kUnknownMemoryBudget));
    plan.warnings.push_back(fmt::format("available memory unknown ({}); planning for {}: pass --memory-budget",
                                        available.unknown_reason, gib(kUnknownMemoryBudget)));
    return;
  }
  const std::string source = available.source.empty() ? "" : " (" + available.source + ")";
  if (*available > plan.reserve_bytes) {
    plan.budget_bytes = *available - plan.reserve_bytes;
    plan.budget_basis = fmt::format("available {}{} - reserve {}", gib(*available), source, gib(plan.reserve_bytes));
  } else {
    plan.budget_bytes = std::max<std::uint64_t>(*available / 2, 1);
    plan.budget_basis = fmt::format("half of the available {}{}: less than the {} reserve", gib(*available), source,
                                    gib(plan.reserve_bytes));
    plan.warnings.push_back(fmt::format("only {} of memory is available; the build will be slow or fail: close "
                                        "other programs or pass --memory-budget",
                                        gib(*available)));
  }
}

// What one compile job and one compiler process need, and the nvcc threads
// that fit: the recipe's measurement per nvcc thread, else the defaults.
struct JobMemory {
  std::uint64_t per_thread = 0;  // nvcc builds only
  std::uint64_t per_job = 0;
  std::uint64_t per_worker = 0;
  std::string what;  // "2 nvcc threads x 5.0 GiB"
};

JobMemory job_memory(const BuildPlan& plan, const resolve::Recipe* recipe, const SourceScan& scan,
                     unsigned memory_threads, std::optional<std::size_t> archs) {
  JobMemory m;
  if (!plan.cuda) {
    m.per_job = m.per_worker = kDefaultCxxJobBytes;
    m.what = "a C++ compile, estimated";
    return m;
  }
  const bool measured = recipe && recipe->build.memory_per_thread_gib > 0;
  m.per_thread = measured ? gib_to_bytes(recipe->build.memory_per_thread_gib) : kDefaultNvccThreadBytes;
  const unsigned threads = archs ? resolve::effective_nvcc_threads(memory_threads, *archs) : memory_threads;
  m.per_job = m.per_thread * threads;
  m.per_worker = m.per_thread;
  m.what = fmt::format("{} x {}{}", plural(threads, "nvcc thread", "nvcc threads"), gib(m.per_thread),
                       measured ? "" : ", estimated");
  if (scan.cpp_files > 0 && m.per_job < kDefaultCxxJobBytes) {
    m.per_job = m.per_worker = kDefaultCxxJobBytes;
    m.what += "; a C++ compile needs more";
  }
  return m;
}

void plan_time(const env::Environment& env, const SourceScan& scan, std::optional<std::size_t> archs,
               BuildPlan& plan) {
  if (scan.cuda_files == 0 && scan.cpp_files == 0) {
    plan.time_basis = "no compile units found in the source";
    return;
  }
  const std::size_t arch_count = archs.value_or(1);
  const unsigned cpus = env.machine.cpu_count.known() ? std::max(1U, *env.machine.cpu_count) : kUnknownCpus;
  const bool serial = !env.toolkit.ninja.known();
  const unsigned threads = resolve::effective_nvcc_threads(plan.threads, arch_count);
  const unsigned cuda_lanes = serial ? threads : std::min(plan.jobs * threads, std::max(cpus, threads));
  const unsigned cxx_lanes = serial ? 1 : std::min(plan.jobs, cpus);
  const double seconds =
      static_cast<double>(scan.cuda_files * arch_count * kSecondsPerCudaUnit) / cuda_lanes +
      static_cast<double>(scan.cpp_files * kSecondsPerCxxUnit) / cxx_lanes;
  plan.time_estimate = std::chrono::seconds(static_cast<long long>(std::ceil(seconds)));

  std::vector<std::string> terms;
  if (scan.cuda_files > 0) {
    terms.push_back(fmt::format("{} .cu x {}{} x ~{} s / {}", scan.cuda_files, plural(arch_count, "arch", "archs"),
                                archs ? "" : " (unknown, counted as 1)", kSecondsPerCudaUnit,
                                plural(cuda_lanes, "lane", "lanes")));
  }
  if (scan.cpp_files > 0) {
    terms.push_back(fmt::format("{} C++ x ~{} s / {}", scan.cpp_files, kSecondsPerCxxUnit,
                                plural(cxx_lanes, "lane", "lanes")));
  }
  plan.time_basis = util::join(terms, " + ");
  if (serial) plan.time_basis += " (serial: no ninja)";
  else if (scan.cuda_files > 0) plan.time_basis += fmt::format(" ({} x {}, at most the CPUs)",
                                                               plural(plan.jobs, "job", "jobs"),
                                                               plural(threads, "nvcc thread", "nvcc threads"));
}

std::uint64_t disk_estimate(const SourceScan& scan, std::optional<std::size_t> archs) {
  return kDiskBaseBytes + scan.cuda_files * archs.value_or(1) * kDiskPerCudaUnit + scan.cpp_files * kDiskPerCxxUnit;
}

}  // namespace

util::Result<BuildPlan> plan_build(const env::Environment& env, const resolve::Recipe* recipe,
                                   const SourceScan& scan, const PlanRequest& request) {
  if (request.jobs && *request.jobs == 0)
    return util::fail(ErrorKind::usage, "--jobs must be at least 1", "--jobs");
  if (request.threads && *request.threads == 0)
    return util::fail(ErrorKind::usage, "--threads must be at least 1", "--threads");
  if (request.memory_budget && *request.memory_budget == 0)
    return util::fail(ErrorKind::usage, "--memory-budget must be more than zero", "--memory-budget");

  BuildPlan plan;
  plan.cuda = (recipe && recipe->build.needs_cuda) || scan.cuda_files > 0;
  const std::string package = recipe ? recipe->name : scan.name.value_or("this package");

  // nvcc threads: settable only through the recipe's variable.
  const bool threads_variable = plan.cuda && recipe && !recipe->build.threads_variable.empty();
  if (request.threads && !threads_variable) {
    return util::fail(ErrorKind::usage,
                      plan.cuda ? fmt::format("{} has no nvcc threads variable; its setup.py decides", package)
                                : fmt::format("{} is not a CUDA build; there are no nvcc threads", package),
                      "--threads", "leave --threads out");
  }

  std::optional<std::size_t> archs;
  if (plan.cuda) {
    auto selection = detail::plan_select_archs(env, recipe, request.archs);
    if (!selection) return tl::unexpected(std::move(selection.error()));
    plan.archs = std::move(selection->plan);
    archs = selection->count;
    for (std::string& w : selection->warnings) plan.warnings.push_back(std::move(w));
  } else if (request.archs) {
    plan.warnings.push_back(fmt::format("--archs ignored: {} compiles no CUDA code", package));
  }

  plan_budget(env, request, plan);

  // Threads: the recipe's default, no more than the archs (nvcc runs one
  // thread per -gencode target), and fewer if one job would not fit the budget.
  unsigned memory_threads = 1;  // the threads nvcc really runs, for the memory estimate
  std::string threads_note;
  if (plan.cuda && recipe) {
    const unsigned recipe_default = static_cast<unsigned>(std::max(1, recipe->build.default_threads));
    memory_threads = request.threads.value_or(archs ? resolve::effective_nvcc_threads(recipe_default, *archs)
                                                    : recipe_default);
    if (threads_variable && !request.threads) {
      const JobMemory one = job_memory(plan, recipe, scan, 1, archs);
      if (one.per_thread > 0 && memory_threads > 1 && one.per_thread * memory_threads > plan.budget_bytes) {
        const auto fit = static_cast<unsigned>(std::max<std::uint64_t>(1, plan.budget_bytes / one.per_thread));
        if (fit < memory_threads) {
          threads_note = fmt::format("; {} {} -> {} to fit the budget", recipe->build.threads_variable,
                                     memory_threads, fit);
          memory_threads = fit;
        }
      }
    }
    if (threads_variable) plan.threads = memory_threads;
  }

  const JobMemory memory = job_memory(plan, recipe, scan, memory_threads, archs);
  plan.per_job_bytes = memory.per_job;
  plan.per_worker_bytes = memory.per_worker;

  const unsigned cpus = env.machine.cpu_count.known() ? std::max(1U, *env.machine.cpu_count) : kUnknownCpus;
  const std::string cpus_text =
      env.machine.cpu_count.known() ? fmt::format("CPUs {}", cpus) : fmt::format("CPUs unknown, {} assumed", cpus);
  if (request.jobs) {
    plan.jobs = *request.jobs;
    plan.jobs_basis = "--jobs" + threads_note;
    const std::uint64_t want = plan.per_job_bytes * plan.jobs;
    if (want > plan.budget_bytes) {
      plan.warnings.push_back(fmt::format("--jobs {} x {} per job = {} is over the memory budget of {}: the governor "
                                          "will pause compilers when memory runs short",
                                          plan.jobs, gib(plan.per_job_bytes), gib(want), gib(plan.budget_bytes)));
    }
  } else {
    const std::uint64_t by_memory = plan.budget_bytes / plan.per_job_bytes;
    plan.jobs = static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(cpus, by_memory)));
    plan.jobs_basis = fmt::format("memory: {} / {} per job ({}) = {}, {}{}", gib(plan.budget_bytes),
                                  gib(plan.per_job_bytes), memory.what, by_memory, cpus_text, threads_note);
    if (by_memory == 0) {
      plan.warnings.push_back(fmt::format("one compile job needs about {}, more than the memory budget of {}: the "
                                          "build may be paused or killed; build fewer archs or free memory",
                                          gib(plan.per_job_bytes), gib(plan.budget_bytes)));
    }
  }
  plan.expected_peak_bytes = plan.per_job_bytes * plan.jobs;

  plan_time(env, scan, archs, plan);
  plan.disk_estimate_bytes = disk_estimate(scan, archs);

  // The environment the build gets, in a fixed order.
  if (recipe) {
    for (const auto& [name, value] : recipe->build.env) plan.env.emplace_back(name, value);
  }
  if (plan.archs && !plan.archs->variable.empty() && !plan.archs->tokens.empty()) {
    const std::string separator = recipe ? recipe->build.arch_separator : ";";
    plan.env.emplace_back(plan.archs->variable, util::join(plan.archs->tokens, separator));
  }
  const std::string jobs_variable = recipe ? recipe->build.jobs_variable : kDefaultJobsVariable;
  if (!jobs_variable.empty()) plan.env.emplace_back(jobs_variable, std::to_string(plan.jobs));
  if (threads_variable) plan.env.emplace_back(recipe->build.threads_variable, std::to_string(plan.threads));
  if (plan.cuda && env.toolkit.nvcc.known()) {
    // torch's cpp_extension finds nvcc and the runtime headers through
    // CUDA_HOME: the probed root that has them; nvcc's grandparent (torch's own
    // guess) only when none was found, and the preflight fails then.
    plan.env.emplace_back("CUDA_HOME", env.toolkit.cuda_home.known()
                                           ? env.toolkit.cuda_home->string()
                                           : env.toolkit.nvcc->parent_path().parent_path().string());
  }
  return plan;
}

}  // namespace flashfit::build
