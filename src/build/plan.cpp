// The build planner: memory decides parallelism, because an nvcc build that
// runs out of memory dies with a bare "Killed" after an hour, while one that
// runs a little slower succeeds. Every number in the plan says where it came
// from (the *_basis strings), so a user can see why MAX_JOBS is 2 and change it.
#include "build/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "build/nvcc_wrapper_plan.hpp"
#include "build/plan_archs.hpp"
#include "build/plan_cost.hpp"
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
    plan.budget_basis = fmt::format("available memory unknown ({}): {} assumed",
                                    available.unknown_reason, gib(kUnknownMemoryBudget));
    plan.warnings.push_back(
        fmt::format("available memory unknown ({}); planning for {}: pass --memory-budget",
                    available.unknown_reason, gib(kUnknownMemoryBudget)));
    return;
  }
  const std::string source = available.source.empty() ? "" : " (" + available.source + ")";
  if (*available > plan.reserve_bytes) {
    plan.budget_bytes = *available - plan.reserve_bytes;
    plan.budget_basis = fmt::format("available {}{} - reserve {}", gib(*available), source,
                                    gib(plan.reserve_bytes));
  } else {
    plan.budget_bytes = std::max<std::uint64_t>(*available / 2, 1);
    plan.budget_basis = fmt::format("half of the available {}{}: less than the {} reserve",
                                    gib(*available), source, gib(plan.reserve_bytes));
    plan.warnings.push_back(
        fmt::format("only {} of memory is available; the build will be slow or fail: close "
                    "other programs or pass --memory-budget",
                    gib(*available)));
  }
}

// What one compile job and one compiler process need, and the nvcc threads
// that fit: the heaviest unit kind that will run, per nvcc thread.
struct JobMemory {
  std::uint64_t per_thread = 0;  // nvcc builds only
  std::uint64_t per_job = 0;
  std::uint64_t per_worker = 0;
  std::string what;  // "1 nvcc thread x 6.4 GiB (backward-hdim256)"
};

JobMemory job_memory(const BuildPlan& plan, const detail::CostModel& model, unsigned memory_threads,
                     std::optional<std::size_t> archs) {
  JobMemory m;
  if (!plan.cuda || model.per_thread_bytes == 0) {
    m.per_job = m.per_worker = model.cxx_job_bytes;
    m.what = "a C++ compile, estimated";
    return m;
  }
  m.per_thread = model.per_thread_bytes;
  const unsigned threads =
      archs ? resolve::effective_nvcc_threads(memory_threads, *archs) : memory_threads;
  m.per_job = m.per_thread * threads;
  m.per_worker = m.per_thread;
  m.what = fmt::format(
      "{} x {} {}", plural(threads, "nvcc thread", "nvcc threads"), gib(m.per_thread),
      model.heaviest_measured ? fmt::format("for {}, the heaviest kind", model.heaviest_kind)
                              : std::string("estimated"));
  if (plan.cxx_units > 0 && m.per_job < model.cxx_job_bytes) {
    m.per_job = m.per_worker = model.cxx_job_bytes;
    m.what += "; a C++ compile needs more";
  }
  return m;
}

void plan_time(const env::Environment& env, const detail::CostModel& model,
               std::optional<std::size_t> archs, BuildPlan& plan) {
  if (plan.cuda_units == 0 && plan.cxx_units == 0) {
    plan.time_basis = "no compile units found in the source";
    return;
  }
  const std::size_t arch_count = archs.value_or(1);
  const unsigned cpus =
      env.machine.cpu_count.known() ? std::max(1U, *env.machine.cpu_count) : kUnknownCpus;
  const bool serial = !env.toolkit.ninja.known();
  const unsigned threads = resolve::effective_nvcc_threads(plan.threads, arch_count);
  // nvcc threads beyond the CPUs share them: they add no lanes.
  const unsigned cuda_lanes = std::min(serial ? threads : plan.jobs * threads, cpus);
  const unsigned cxx_lanes = serial ? 1 : std::min(plan.jobs, cpus);
  double cuda_seconds = 0;
  double cxx_seconds = 0;
  std::vector<std::string> kinds;
  for (const UnitCost& c : model.costs) {
    if (c.cuda) {
      cuda_seconds += static_cast<double>(c.units * arch_count) * c.seconds;
      kinds.push_back(fmt::format("{} {} ~{:.0f} s", c.units, c.kind, c.seconds));
    } else {
      cxx_seconds += static_cast<double>(c.units) * c.seconds;
    }
  }
  // Lanes share the work, but no unit splits: the longest one bounds the time.
  double longest = 0;
  for (const UnitCost& c : model.costs) longest = std::max(longest, c.seconds);
  const double shared = cuda_seconds / cuda_lanes + cxx_seconds / cxx_lanes;
  const double seconds = std::max(shared, longest);
  plan.time_estimate = std::chrono::seconds(static_cast<long long>(std::ceil(seconds)));

  std::vector<std::string> terms;
  if (plan.cuda_units > 0) {
    terms.push_back(fmt::format("{} .cu x {}{} ({}) / {}", plan.cuda_units,
                                plural(arch_count, "arch", "archs"),
                                archs ? "" : " (unknown, counted as 1)", util::join(kinds, ", "),
                                plural(cuda_lanes, "lane", "lanes")));
  }
  for (const UnitCost& c : model.costs) {
    if (!c.cuda) {
      terms.push_back(fmt::format("{} {} x ~{:.0f} s / {}", c.units, c.kind, c.seconds,
                                  plural(cxx_lanes, "lane", "lanes")));
    }
  }
  plan.time_basis = util::join(terms, " + ");
  if (longest > shared)
    plan.time_basis += fmt::format("; at least its longest unit, ~{:.0f} s", longest);
  if (serial)
    plan.time_basis += " (serial: no ninja)";
  else if (plan.cuda_units > 0)
    plan.time_basis += fmt::format(" ({} x {}, at most the CPUs)", plural(plan.jobs, "job", "jobs"),
                                   plural(threads, "nvcc thread", "nvcc threads"));
}

std::uint64_t disk_estimate(const BuildPlan& plan, std::optional<std::size_t> archs) {
  return kDiskBaseBytes + plan.cuda_units * archs.value_or(1) * kDiskPerCudaUnit +
         plan.cxx_units * kDiskPerCxxUnit;
}

std::string nvcc_version_text(const env::Environment& env) {
  if (!env.toolkit.cuda_version.known()) return "";
  return fmt::format("{}.{}", env.toolkit.cuda_version->major, env.toolkit.cuda_version->minor);
}

// --archs for a recipe without an arch variable: the archs the nvcc wrapper
// keeps, or why it cannot (a usage error naming the reason).
util::Result<std::set<unsigned>> wrapped_archs(const env::Environment& env,
                                               const resolve::Recipe& recipe,
                                               const CompileUnits& units,
                                               const PlanRequest& request) {
  std::string why;
  if (units.gencode.empty())
    why = "its setup.py has no literal -gencode list flashfit's nvcc wrapper could filter";
  else if (std::string torch = pytorch_nvcc_unsupported(env.torch); !torch.empty())
    why = std::move(torch);
  else if (request.flashfit_exe.empty())
    why = "flashfit's own path is unknown, so no nvcc wrapper can be set";
  if (!why.empty()) {
    return util::fail(
        ErrorKind::usage,
        fmt::format("{} has no arch variable: its setup.py chooses the archs itself, and {}",
                    recipe.name, why),
        "--archs", "leave --archs out");
  }
  return wrapper_arch_numbers(*request.archs);
}

}  // namespace

util::Result<BuildPlan> plan_build(const env::Environment& env, const resolve::Recipe* recipe,
                                   const SourceScan& scan, const PlanRequest& request) {
  return plan_build(env, recipe, scan, units_from_scan(scan), request);
}

util::Result<BuildPlan> plan_build(const env::Environment& env, const resolve::Recipe* recipe,
                                   const SourceScan& scan, const CompileUnits& units,
                                   const PlanRequest& request) {
  if (request.jobs && *request.jobs == 0)
    return util::fail(ErrorKind::usage, "--jobs must be at least 1", "--jobs");
  if (request.threads && *request.threads == 0)
    return util::fail(ErrorKind::usage, "--threads must be at least 1", "--threads");
  if (request.memory_budget && *request.memory_budget == 0)
    return util::fail(ErrorKind::usage, "--memory-budget must be more than zero",
                      "--memory-budget");

  BuildPlan plan;
  plan.units_basis = units.basis;
  plan.units_detail = units.detail;
  plan.units_notes = units.notes;
  plan.setup_requires = units.setup_requires.value_or(std::vector<std::string>{});
  plan.cuda_units = units.cuda_count;
  plan.cxx_units = units.cxx_count;
  plan.cuda = (recipe && recipe->build.needs_cuda) || units.cuda_count > 0;
  const std::string package = recipe ? recipe->name : scan.name.value_or("this package");

  // nvcc threads: settable only through the recipe's variable.
  const bool threads_variable = plan.cuda && recipe && !recipe->build.threads_variable.empty();
  if (request.threads && !threads_variable) {
    return util::fail(
        ErrorKind::usage,
        plan.cuda ? fmt::format("{} has no nvcc threads variable; its setup.py decides", package)
                  : fmt::format("{} is not a CUDA build; there are no nvcc threads", package),
        "--threads", "leave --threads out");
  }

  std::optional<std::size_t> archs;
  // --archs for a setup.py that fixes its own -gencode list: through the wrapper.
  std::optional<std::set<unsigned>> wrapped;
  if (plan.cuda) {
    // The recipe's arch variable counts only when this source's setup.py
    // spells it (flash-attn reads FLASH_ATTN_CUDA_ARCHS from 2.7.3 on; before,
    // its -gencode list is fixed): else the plan is that list's. torch's own
    // variable is read by cpp_extension, not setup.py, and without a literal
    // -gencode list there is no other list to plan.
    std::optional<resolve::Recipe> unread_variable;
    if (recipe && !recipe->build.arch_variable.empty() &&
        recipe->build.arch_variable != detail::kTorchArchVariable && !units.gencode.empty() &&
        units.setup_variables &&
        std::find(units.setup_variables->begin(), units.setup_variables->end(),
                  recipe->build.arch_variable) == units.setup_variables->end()) {
      plan.warnings.push_back(fmt::format(
          "this {} source's setup.py never names {}: the archs are its own -gencode list",
          recipe->name, recipe->build.arch_variable));
      unread_variable = *recipe;
      unread_variable->build.arch_variable.clear();
      unread_variable->build.arch_tokens.clear();
      unread_variable->build.default_archs.clear();
    }
    const resolve::Recipe* arch_recipe = unread_variable ? &*unread_variable : recipe;
    std::optional<std::vector<std::string>> archs_request = request.archs;
    if (request.archs && arch_recipe && arch_recipe->build.arch_variable.empty()) {
      auto numbers = wrapped_archs(env, *arch_recipe, units, request);
      if (!numbers) return tl::unexpected(std::move(numbers.error()));
      wrapped = std::move(*numbers);
      archs_request.reset();
    }
    auto selection = detail::plan_select_archs(env, arch_recipe, archs_request);
    if (!selection) return tl::unexpected(std::move(selection.error()));
    plan.archs = std::move(selection->plan);
    archs = selection->count;
    // setup.py fixing its own -gencode list: count what it gives with this nvcc.
    if (!archs && arch_recipe && arch_recipe->build.arch_variable.empty() &&
        !units.gencode.empty()) {
      if (env.toolkit.cuda_version.known()) {
        const auto& v = *env.toolkit.cuda_version;
        std::vector<std::string> codes = gencode_for_nvcc(
            units.gencode, static_cast<unsigned>(v.major), static_cast<unsigned>(v.minor));
        // GPUs here none of setup.py's targets runs on: no --archs builds for them.
        plan.archs->unserved_gpus = detail::gpus_no_target_runs(env, codes);
        if (wrapped) {
          ServedArchs served = serve_archs(codes, *wrapped);
          if (!served.unserved.empty()) {
            std::vector<std::string> unserved;
            for (unsigned a : served.unserved)
              unserved.push_back(fmt::format("{}.{}", a / 10, a % 10));
            return util::fail(
                ErrorKind::usage,
                fmt::format("no -gencode target {}'s setup.py gives with nvcc {} ({}) runs on {}",
                            recipe->name, v.text, codes.empty() ? "none" : util::join(codes, ", "),
                            util::join(unserved, ", ")),
                "--archs",
                codes.empty() ? "leave --archs out"
                              : "pass archs those targets run on, or leave --archs out");
          }
          // The wrapper keeps the targets that serve the request (sm_80 for 8.6).
          *wrapped = served.numbers;
          std::vector<std::string> kept = std::move(served.targets);
          archs = kept.size();
          plan.archs->basis = fmt::format(
              "--archs through flashfit's nvcc wrapper (PYTORCH_NVCC): {} of the {} -gencode "
              "targets {}'s setup.py gives with nvcc {} ({})",
              kept.size(), codes.size(), recipe->name, v.text, util::join(codes, ", "));
          plan.archs->sass = std::move(kept);
        } else {
          archs = codes.size();
          plan.archs->basis =
              fmt::format("fixed by {}'s setup.py: {} -gencode targets with nvcc {} ({})",
                          recipe->name, codes.size(), v.text, util::join(codes, ", "));
          plan.archs->sass = std::move(codes);
        }
      } else if (wrapped) {
        archs = wrapped->size();
        for (unsigned a : *wrapped) plan.archs->sass.push_back(fmt::format("sm_{}", a));
        plan.archs->basis = fmt::format(
            "--archs through flashfit's nvcc wrapper (PYTORCH_NVCC); nvcc version unknown, so "
            "which of setup.py's {} literal -gencode values it keeps is not known yet",
            units.gencode.size());
      } else {
        plan.archs->basis += fmt::format(
            "; {} literal -gencode values in setup.py, nvcc version unknown", units.gencode.size());
      }
    }
    for (std::string& w : selection->warnings) plan.warnings.push_back(std::move(w));
  } else if (request.archs) {
    plan.warnings.push_back(fmt::format("--archs ignored: {} compiles no CUDA code", package));
  }

  plan_budget(env, request, plan);
  const detail::CostModel model =
      detail::unit_cost_model(recipe, units, request, nvcc_version_text(env), plan.warnings);
  plan.unit_costs = model.costs;
  plan.heaviest_kind = model.heaviest_kind;
  plan.time_scale = model.scale;
  plan.cost_basis = model.basis;

  // Threads: the recipe's default, no more than the archs (nvcc runs one
  // thread per -gencode target), and fewer if one job would not fit the budget.
  unsigned memory_threads = 1;  // the threads nvcc really runs, for the memory estimate
  std::string threads_note;
  if (plan.cuda && recipe) {
    const unsigned recipe_default =
        static_cast<unsigned>(std::max(1, recipe->build.default_threads));
    memory_threads = request.threads.value_or(
        archs ? resolve::effective_nvcc_threads(recipe_default, *archs) : recipe_default);
    if (threads_variable && !request.threads) {
      const JobMemory one = job_memory(plan, model, 1, archs);
      if (one.per_thread > 0 && memory_threads > 1 &&
          one.per_thread * memory_threads > plan.budget_bytes) {
        const auto fit =
            static_cast<unsigned>(std::max<std::uint64_t>(1, plan.budget_bytes / one.per_thread));
        if (fit < memory_threads) {
          threads_note = fmt::format("; {} {} -> {} to fit the budget",
                                     recipe->build.threads_variable, memory_threads, fit);
          memory_threads = fit;
        }
      }
    }
    if (threads_variable) plan.threads = memory_threads;
  }
  // setup.py passing its own `--threads N` (causal-conv1d: 4): nvcc runs that
  // many, whatever the plan would choose; the estimates must say so.
  if (plan.cuda && !threads_variable && units.nvcc_threads && archs) {
    memory_threads = resolve::effective_nvcc_threads(std::max(1U, *units.nvcc_threads), *archs);
    plan.threads = memory_threads;
    threads_note = fmt::format("; nvcc --threads {} fixed by setup.py", *units.nvcc_threads);
  }

  const JobMemory memory = job_memory(plan, model, memory_threads, archs);
  plan.per_job_bytes = memory.per_job;
  plan.per_worker_bytes = memory.per_worker;

  const unsigned cpus =
      env.machine.cpu_count.known() ? std::max(1U, *env.machine.cpu_count) : kUnknownCpus;
  const std::string cpus_text = env.machine.cpu_count.known()
                                    ? fmt::format("CPUs {}", cpus)
                                    : fmt::format("CPUs unknown, {} assumed", cpus);
  if (request.jobs) {
    plan.jobs = *request.jobs;
    plan.jobs_basis = "--jobs" + threads_note;
    const std::uint64_t want = plan.per_job_bytes * plan.jobs;
    if (want > plan.budget_bytes) {
      plan.warnings.push_back(
          fmt::format("--jobs {} x {} per job = {} is over the memory budget of {}: the governor "
                      "will pause compilers when memory runs short",
                      plan.jobs, gib(plan.per_job_bytes), gib(want), gib(plan.budget_bytes)));
    }
  } else {
    const std::uint64_t by_memory = plan.budget_bytes / plan.per_job_bytes;
    plan.jobs =
        static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(cpus, by_memory)));
    plan.jobs_basis =
        fmt::format("memory: {} / {} per job ({}) = {}, {}{}", gib(plan.budget_bytes),
                    gib(plan.per_job_bytes), memory.what, by_memory, cpus_text, threads_note);
    if (by_memory == 0) {
      plan.warnings.push_back(
          fmt::format("one compile job needs about {}, more than the memory budget of {}: the "
                      "build may be paused or killed; build fewer archs or free memory",
                      gib(plan.per_job_bytes), gib(plan.budget_bytes)));
    }
  }
  plan.expected_peak_bytes = plan.per_job_bytes * plan.jobs;

  plan_time(env, model, archs, plan);
  plan.disk_estimate_bytes = disk_estimate(plan, archs);

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
  if (threads_variable)
    plan.env.emplace_back(recipe->build.threads_variable, std::to_string(plan.threads));
  if (plan.cuda && env.toolkit.nvcc.known()) {
    // torch's cpp_extension finds nvcc and the runtime headers through
    // CUDA_HOME: the probed root that has them; nvcc's grandparent (torch's own
    // guess) only when none was found, and the preflight fails then.
    plan.env.emplace_back("CUDA_HOME",
                          env.toolkit.cuda_home.known()
                              ? env.toolkit.cuda_home->string()
                              : env.toolkit.nvcc->parent_path().parent_path().string());
    if (wrapped) {
      // torch runs $CUDA_HOME/bin/nvcc unless PYTORCH_NVCC says otherwise.
      const std::string real_nvcc =
          (std::filesystem::path(plan.env.back().second) / "bin" / "nvcc").string();
      auto command = nvcc_wrapper_command(request.flashfit_exe, *wrapped, plan.threads, real_nvcc);
      if (!command) return tl::unexpected(std::move(command.error()));
      plan.env.emplace_back("PYTORCH_NVCC", std::move(*command));
      plan.nvcc_wrapped = true;
    }
  }
  return plan;
}

}  // namespace flashfit::build
