#include "env/gpu.hpp"

#include <fmt/format.h>

#include <fstream>
#include <optional>
#include <system_error>

#include "env/gpu_sources.hpp"
#include "util/strings.hpp"

namespace flashfit::env {
namespace {

using detail::SourceReport;
using detail::SourceState;

struct ProcVersion {
  bool exists = false;
  Fact<std::string> driver_version;
};

// /proc/driver/nvidia/version exists exactly when the kernel module is
// loaded, so its absence is evidence of "no driver", not just a missing fact.
ProcVersion read_proc_version(const std::filesystem::path& root) {
  const auto path = root / "proc/driver/nvidia/version";
  ProcVersion proc;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    proc.driver_version = Fact<std::string>::unknown("absent", detail::kProcSource);
    return proc;
  }
  proc.exists = true;
  std::ifstream in(path, std::ios::binary);
  // The real file is a few hundred bytes; a cap keeps a strange one harmless.
  std::string text(4096, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    proc.driver_version = Fact<std::string>::unknown("unreadable", detail::kProcSource);
    return proc;
  }
  text.resize(static_cast<std::size_t>(in.gcount()));
  auto version = parse_proc_driver_version(text);
  proc.driver_version =
      version ? Fact<std::string>::of(*version, detail::kProcSource)
              : Fact<std::string>::unknown(version.error().message, detail::kProcSource);
  return proc;
}

// The first known fact, else an unknown one that keeps every source's reason.
template <class T>
Fact<T> first_known(std::initializer_list<const Fact<T>*> candidates) {
  std::vector<std::string> reasons;
  std::vector<std::string> sources;
  for (const Fact<T>* fact : candidates) {
    if (fact == nullptr) continue;
    if (fact->known()) return *fact;
    reasons.push_back(fact->source.empty() ? fact->unknown_reason
                                           : fact->source + ": " + fact->unknown_reason);
    if (!fact->source.empty()) sources.push_back(fact->source);
  }
  // The source of an unknown fact lists where flashfit looked.
  return Fact<T>::unknown(util::join(reasons, "; "), util::join(sources, ", "));
}

bool says_no_driver(SourceState state) {
  return state == SourceState::library_missing || state == SourceState::driver_not_loaded;
}

std::string plural_gpus(std::size_t n) {
  return fmt::format("{} NVIDIA GPU{}", n, n == 1 ? "" : "s");
}

std::string driver_words(const GpuFacts& facts) {
  std::string text =
      facts.driver_version.known() ? "driver " + *facts.driver_version : "driver version unknown";
  if (facts.driver_cuda.known()) text += " (CUDA " + facts.driver_cuda->str() + ")";
  return text;
}

void conclude(GpuFacts& facts, const SourceReport& nvml, const std::optional<SourceReport>& cuda,
              const ProcVersion& proc, const GpuProbeOptions& options) {
  const bool listed_some = facts.gpus.known() && !facts.gpus->empty();
  const bool cuda_silent =
      !cuda || cuda->state == SourceState::library_missing || cuda->state == SourceState::no_device;
  if (listed_some) {
    facts.presence = GpuPresence::gpus_found;
    facts.summary = plural_gpus(facts.gpus->size()) + ", " + driver_words(facts);
  } else if (!proc.exists && says_no_driver(nvml.state) && cuda_silent) {
    // Nothing of the driver is there: say so plainly instead of leaving three
    // unknown facts for the reader to interpret.
    facts.presence = GpuPresence::no_driver;
    const std::string evidence = fmt::format(
        "{}; {}; no {}", nvml.detail, cuda ? cuda->detail : std::string("libcuda not asked"),
        (options.root / "proc/driver/nvidia/version").string());
    facts.summary = "no NVIDIA driver";
    facts.driver_version = Fact<std::string>::unknown("no NVIDIA driver (" + evidence + ")",
                                                      facts.driver_version.source);
    facts.gpus = Fact<std::vector<GpuDevice>>::of({}, "no NVIDIA driver");
  } else if (facts.gpus.known()) {
    facts.presence = GpuPresence::no_gpu;
    facts.summary = "no NVIDIA GPU visible, " + driver_words(facts);
  } else {
    facts.presence = GpuPresence::unknown;
    facts.summary = "NVIDIA GPUs unknown: " + facts.gpus.unknown_reason;
  }
}

}  // namespace

std::string ComputeCapability::str() const {
  return fmt::format("{}.{}", major, minor);
}

std::string_view to_string(GpuPresence presence) {
  switch (presence) {
    case GpuPresence::unknown:
      return "unknown";
    case GpuPresence::no_driver:
      return "no-driver";
    case GpuPresence::no_gpu:
      return "no-gpu";
    case GpuPresence::gpus_found:
      return "gpus-found";
  }
  return "unknown";
}

GpuFacts probe_gpus(const GpuProbeOptions& options) {
  GpuFacts facts;
  const SourceReport nvml = detail::query_nvml(options.nvml_library);
  facts.notes = nvml.notes;

  // libcuda only when NVML left something out: loading it is slower and it
  // is the second opinion, not the first.
  std::optional<SourceReport> cuda;
  const bool need_gpus = !nvml.gpus.known();
  if (need_gpus || !nvml.driver_cuda.known()) {
    cuda = detail::query_cuda_driver(options.cuda_library, need_gpus);
    facts.notes.insert(facts.notes.end(), cuda->notes.begin(), cuda->notes.end());
  }
  const ProcVersion proc = read_proc_version(options.root);
  facts.notes.push_back(
      std::string(detail::kProcSource) + ": " +
      (proc.driver_version.known() ? *proc.driver_version : proc.driver_version.unknown_reason));

  facts.driver_version = first_known<std::string>({&nvml.driver_version, &proc.driver_version});
  facts.driver_cuda =
      first_known<pkg::CudaVersion>({&nvml.driver_cuda, cuda ? &cuda->driver_cuda : nullptr});
  facts.gpus =
      first_known<std::vector<GpuDevice>>({&nvml.gpus, cuda && need_gpus ? &cuda->gpus : nullptr});
  conclude(facts, nvml, cuda, proc, options);
  return facts;
}

DriverSupportVerdict driver_runs_cuda(const GpuFacts& facts, const pkg::CudaVersion& build) {
  if (facts.presence == GpuPresence::no_driver) {
    return {DriverSupport::no, "no NVIDIA driver, so no CUDA " + build.str() + " build can run"};
  }
  return driver_runs_cuda(facts.driver_version.value, facts.driver_cuda.value, build);
}

}  // namespace flashfit::env
