// The cost of each unit a build compiles. Measured figures beat estimates:
// a recipe's unit kinds carry wall time and peak memory of one unit compiled
// for one arch by one nvcc thread on a named machine (docs/background.md
// §11.1); this machine's calibration scales the time. Units no kind matches,
// and packages without figures, get the defaults below, said as estimates.
#include "build/plan_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "util/strings.hpp"

namespace flashfit::build::detail {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// Estimates, not measurements. One nvcc thread compiling one -gencode target
// of a torch extension's kernel file, for units no measured kind matches:
// below flash-attn's measured 4-6.4 GiB (cutlass kernels are among the
// heaviest), above a plain kernel file's 1-2 GiB.
constexpr std::uint64_t kDefaultNvccThreadBytes = 3 * kGiB;
// One g++ translation unit including torch's headers (torch/extension.h pulls
// in most of ATen): ~1-1.5 GiB at its peak; the upper end.
constexpr std::uint64_t kDefaultCxxJobBytes = 3 * kGiB / 2;
// Seconds of one compiler on one unit: a .cu for one arch (a plain kernel
// file; flash-attn's measured units take ~3 min), a C++ file including
// torch's headers (bench/README.md: the test extension's units here).
// bench/README.md: build_pkg's binding.cpp takes 15 s of CPU here against
// Debian's torch 1.13 at -O1, 24 s against torch 2.13 at -O3 (1.5 GB); its
// three files without torch's headers about a second each.
constexpr double kSecondsPerCudaUnit = 60;
constexpr double kSecondsPerCxxUnit = 20;
constexpr double kSecondsPerPlainCxxUnit = 2;
constexpr std::uint64_t kPlainCxxJobBytes = kGiB / 2;

// A calibration outside this range says more about the run (a swapping
// machine, a broken toolkit) than about the CPU: not used.
constexpr double kMinScale = 0.2;
constexpr double kMaxScale = 5.0;

std::uint64_t gib_to_bytes(double value) {
  return static_cast<std::uint64_t>(std::llround(value * static_cast<double>(kGiB)));
}

std::string major_minor(const std::string& version) {
  const auto parts = util::split(version, '.');
  if (parts.size() < 2) return version;
  return std::string(parts[0]) + "." + std::string(parts[1]);
}

// The time scale and its words, from the calibration (if any).
void scale_by_calibration(const resolve::BuildKnobs::Measurement& measured,
                          const PlanRequest& request, const std::string& nvcc_version,
                          CostModel& model, std::vector<std::string>& warnings) {
  model.basis = fmt::format("measured on {} with nvcc {}", measured.machine, measured.nvcc);
  if (!measured.reference.empty()) model.basis += " (" + measured.reference + ")";
  if (!nvcc_version.empty() && major_minor(nvcc_version) != measured.nvcc) {
    model.basis +=
        fmt::format("; this nvcc is {}: its compile times may differ", major_minor(nvcc_version));
  }
  if (!request.calibration) {
    model.basis += fmt::format(
        "; not calibrated to this machine ({})",
        request.calibration_note.empty() ? "no calibration run" : request.calibration_note);
    return;
  }
  const Calibration& c = *request.calibration;
  if (measured.calibration_seconds <= 0) {
    model.basis += "; not calibrated: the recipe has no calibration figure";
    return;
  }
  const double scale = c.cpu_seconds / measured.calibration_seconds;
  if (!(scale >= kMinScale && scale <= kMaxScale)) {
    warnings.push_back(fmt::format(
        "the calibration took {:.1f} s against the recipe's {:.1f} s: a {:.2f}x difference "
        "is not a CPU's speed; using the recipe's figures unscaled",
        c.cpu_seconds, measured.calibration_seconds, scale));
    model.basis += "; calibration out of range, not applied";
    return;
  }
  model.scale = scale;
  model.basis +=
      fmt::format("; x{:.2f} for this machine (calibration {:.1f} s vs {:.1f} s, {}{})", scale,
                  c.cpu_seconds, measured.calibration_seconds, c.cpu, c.cached ? ", cached" : "");
}

}  // namespace

CostModel unit_cost_model(const resolve::Recipe* recipe, const CompileUnits& units,
                          const PlanRequest& request, const std::string& nvcc_version,
                          std::vector<std::string>& warnings) {
  CostModel model;
  model.cxx_job_bytes = kDefaultCxxJobBytes;
  const resolve::BuildKnobs* knobs = recipe ? &recipe->build : nullptr;
  const bool has_kinds = knobs && !knobs->unit_kinds.empty() && knobs->measured;
  if (has_kinds) scale_by_calibration(*knobs->measured, request, nvcc_version, model, warnings);

  // Count units per kind; estimated-from-the-tree units have no names.
  std::map<std::string, std::size_t> per_kind;
  std::size_t unmatched = units.cuda.empty() ? units.cuda_count : 0;
  for (const std::string& path : units.cuda) {
    const resolve::BuildKnobs::UnitKind* kind = has_kinds ? knobs->kind_of(path) : nullptr;
    if (kind) {
      ++per_kind[kind->name];
    } else {
      ++unmatched;
    }
  }
  if (has_kinds) {
    for (const auto& kind : knobs->unit_kinds) {
      const auto it = per_kind.find(kind.name);
      if (it == per_kind.end()) continue;
      UnitCost c;
      c.kind = kind.name;
      c.units = it->second;
      c.seconds = kind.seconds * model.scale;
      c.peak_bytes = gib_to_bytes(kind.peak_gib);
      c.measured = true;
      c.match = kind.match;
      model.costs.push_back(std::move(c));
    }
  }
  if (unmatched > 0) {
    UnitCost c;
    c.kind = "CUDA";
    c.units = unmatched;
    c.seconds = kSecondsPerCudaUnit;
    // A unit of unknown kind could be the heaviest one: a tree-scanned
    // flash-attn is still flash-attn.
    const double recipe_gib =
        knobs ? std::max(knobs->memory_per_thread_gib, has_kinds ? knobs->heaviest_peak_gib() : 0)
              : 0;
    c.peak_bytes = recipe_gib > 0 ? gib_to_bytes(recipe_gib) : kDefaultNvccThreadBytes;
    c.measured = false;
    model.costs.push_back(std::move(c));
  }
  for (const UnitCost& c : model.costs) {
    if (c.peak_bytes > model.per_thread_bytes) {
      model.per_thread_bytes = c.peak_bytes;
      model.heaviest_kind = c.kind;
      model.heaviest_measured = c.measured;
    }
  }
  const std::size_t torch_cxx =
      std::min(units.cxx_torch.value_or(units.cxx_count), units.cxx_count);
  if (torch_cxx > 0) {
    UnitCost c;
    c.kind = "C++";
    c.cuda = false;
    c.units = torch_cxx;
    c.seconds = kSecondsPerCxxUnit;
    c.peak_bytes = kDefaultCxxJobBytes;
    model.costs.push_back(std::move(c));
  }
  if (units.cxx_count > torch_cxx) {
    UnitCost c;
    c.kind = "C++ without torch headers";
    c.cuda = false;
    c.units = units.cxx_count - torch_cxx;
    c.seconds = kSecondsPerPlainCxxUnit;
    c.peak_bytes = kPlainCxxJobBytes;
    model.costs.push_back(std::move(c));
  }
  if (torch_cxx == 0 && units.cxx_count > 0) model.cxx_job_bytes = kPlainCxxJobBytes;
  if (!has_kinds) {
    model.basis =
        knobs && knobs->memory_per_thread_gib > 0
            ? fmt::format(
                  "estimated: ~{} s per .cu and arch, the recipe's {:.1f} GiB per nvcc thread",
                  kSecondsPerCudaUnit, knobs->memory_per_thread_gib)
            : fmt::format("estimated: ~{} s per .cu and arch, ~{} s per C++ file",
                          kSecondsPerCudaUnit, kSecondsPerCxxUnit);
  } else if (unmatched > 0) {
    model.basis += fmt::format("; {} unit(s) of no known kind estimated at ~{} s", unmatched,
                               kSecondsPerCudaUnit);
  }
  return model;
}

}  // namespace flashfit::build::detail
