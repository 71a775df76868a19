#include "build/preflight_archs.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "build/nvcc_targets.hpp"
#include "build/nvcc_wrapper_plan.hpp"
#include "build/plan_archs.hpp"
#include "util/strings.hpp"

namespace flashfit::build::detail {
namespace {

using S = CheckStatus;

void add_unique(std::vector<std::string>& list, std::string item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(std::move(item));
}

// "sm_80" -> "8.0", the form --archs takes for every kind of package.
std::string capability_text(const NvccTarget& t) {
  return fmt::format("{}.{}", t.number / 10, t.number % 10);
}

// Whether --archs can leave targets out of this plan: always through an
// arch variable; through flashfit's nvcc wrapper for a setup.py that fixes
// its own -gencode list, which needs a torch that reads PYTORCH_NVCC.
bool archs_can_filter(const env::Environment& env, const BuildPlan& plan) {
  return !plan.archs->variable.empty() || plan.nvcc_wrapped ||
         pytorch_nvcc_unsupported(env.torch).empty();
}

}  // namespace

std::optional<PreflightCheck> archs_nvcc_refuses(const env::Environment& env,
                                                 const resolve::Recipe* recipe,
                                                 const BuildPlan& plan, const std::string& what) {
  const auto nvcc = nvcc_release(env);
  if (!plan.archs || !nvcc) return std::nullopt;
  // The recipe's tokens carry their own min_nvcc, checked (with the GPUs
  // each serves) by the caller; only dropped targets are left to this one.
  const bool tokens_checked =
      recipe && !recipe->build.arch_tokens.empty() && !plan.archs->tokens.empty();
  std::vector<std::string> dropped, too_new, kept, invalid;
  std::optional<env::MajorMinor> last_ok, first_ok;
  for (const std::string& text : plan.archs->sass) {
    const auto target = parse_nvcc_target(text);
    const NvccSupportVerdict v =
        target ? nvcc_supports(*nvcc, *target) : NvccSupportVerdict{NvccSupport::unknown, ""};
    const auto bound = env::parse_major_minor(v.bound);
    if (v.support == NvccSupport::no_such_target) {
      invalid.push_back(text);
    } else if (v.support == NvccSupport::dropped && bound) {
      dropped.push_back(text);
      if (!last_ok || *bound < *last_ok) last_ok = bound;
    } else if (v.support == NvccSupport::too_new && bound && !tokens_checked) {
      too_new.push_back(text);
      if (!first_ok || *first_ok < *bound) first_ok = bound;
    } else if (target) {
      add_unique(kept, capability_text(*target));
    }
  }
  if (dropped.empty() && too_new.empty() && invalid.empty()) return std::nullopt;

  std::vector<std::string> parts;
  if (!invalid.empty())
    parts.push_back(fmt::format(
        "{} {} no target of any nvcc (an `a` form exists from sm_90, an `f` form from sm_100)",
        util::join(invalid, ", "), invalid.size() == 1 ? "is" : "are"));
  if (!dropped.empty())
    parts.push_back(fmt::format("{} {} no longer compiled by nvcc {} (the last is nvcc {})",
                                util::join(dropped, ", "), dropped.size() == 1 ? "is" : "are",
                                nvcc->str(), last_ok->str()));
  if (!too_new.empty())
    parts.push_back(fmt::format("{} {} nvcc {} or newer", util::join(too_new, ", "),
                                too_new.size() == 1 ? "needs" : "need", first_ok->str()));
  const std::string message = fmt::format(
      "{}: the build would stop at its first CUDA file (\"nvcc fatal : Unsupported gpu "
      "architecture\"); {}",
      util::join(parts, "; "), what);

  std::vector<std::string> fixes;
  if (!kept.empty() && archs_can_filter(env, plan))
    fixes.push_back(fmt::format("build without them: --archs {} (GPUs below those cannot run it)",
                                util::join(kept, ",")));
  if (last_ok)
    fixes.push_back(fmt::format(
        "build with nvcc {0} or older: a CUDA {1} toolkit as CUDA_HOME, with a torch built for "
        "CUDA {1} (their majors must match)",
        last_ok->str(), last_ok->major));
  if (first_ok)
    fixes.push_back(fmt::format("build with nvcc {} or newer (and a torch of its CUDA major)",
                                first_ok->str()));
  if (plan.archs->variable.empty() && recipe)
    fixes.push_back(fmt::format("or a {} release whose setup.py leaves them out for nvcc {}",
                                recipe->name, nvcc->str()));
  return PreflightCheck{"archs", S::failed, message, util::join(fixes, "; ")};
}

std::string archs_nvcc_unknown_note(const env::Environment& env, const BuildPlan& plan) {
  const auto nvcc = nvcc_release(env);
  if (!plan.archs || !nvcc) return "";
  std::vector<std::string> unknown;
  for (const std::string& text : plan.archs->sass) {
    const auto target = parse_nvcc_target(text);
    if (!target || nvcc_supports(*nvcc, *target).support == NvccSupport::unknown)
      unknown.push_back(text);
  }
  if (unknown.empty()) return "";
  return fmt::format("; whether nvcc {} compiles {} is not known to flashfit", nvcc->str(),
                     util::join(unknown, ", "));
}

std::optional<PreflightCheck> archs_run_nowhere_here(const env::Environment& env,
                                                     const BuildPlan& plan,
                                                     const std::string& package,
                                                     const std::string& what) {
  if (!plan.archs || plan.archs->sass.empty() || !env.gpu.gpus.known() || env.gpu.gpus->empty())
    return std::nullopt;
  std::vector<NvccTarget> targets;
  for (const std::string& text : plan.archs->sass) {
    auto target = parse_nvcc_target(text);
    if (!target) return std::nullopt;  // a target the table cannot read: no claim
    targets.push_back(*target);
  }
  std::vector<std::string> gpus;
  for (const env::GpuDevice& gpu : *env.gpu.gpus) {
    if (!gpu.capability.known()) return std::nullopt;
    for (const NvccTarget& t : targets)
      if (target_runs_on(t, *gpu.capability)) return std::nullopt;
    add_unique(gpus, gpu_described(gpu));
  }
  std::string fix;
  if (!plan.archs->unserved_gpus.empty()) {
    fix = fmt::format("{} cannot be built for {} (the plan's warnings say which archs it takes); ",
                      package, util::join(plan.archs->unserved_gpus, ", "));
  } else {
    fix = "build for the GPU here with --archs set to its compute capability; or, ";
  }
  fix +=
      "to build for another machine, describe its GPU: --gpu <its name or capability, e.g. 8.0> "
      "(the built wheel is then checked against that GPU, not this one's)";
  return PreflightCheck{
      "archs", S::failed,
      fmt::format("the wheel would hold {} and no GPU here runs any of them ({}): flashfit keeps "
                  "a built wheel only when it runs here, so the build would be thrown away; {}",
                  util::join(plan.archs->sass, ", "), util::join(gpus, ", "), what),
      fix};
}

}  // namespace flashfit::build::detail
