#include "cli/doctor_answer.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "cli/colour.hpp"
#include "resolve/suggestions.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

using nlohmann::json;

std::string modules_of(const install::ImportCheck& check) {
  std::vector<std::string> names;
  for (const install::ModuleResult& m : check.modules) names.push_back(m.module);
  return util::join(names, ", ");
}

// Why nothing fits, in one clause: the nearest rejected wheel's first reason.
std::string why_none(const resolve::Resolution& r) {
  if (r.candidates.empty()) return "no wheel of it is offered by the sources consulted";
  const resolve::Judged& nearest = r.candidates.front();
  if (nearest.reasons.empty()) return "no candidate fits";
  const resolve::Reason& reason = nearest.reasons.front();
  return fmt::format("no wheel fits (nearest: {}: {}: {})", nearest.candidate->filename,
                     to_string(reason.code), reason.message.empty() ? "rejected" : reason.message);
}

}  // namespace

std::string_view to_string(AnswerKind kind) {
  switch (kind) {
    case AnswerKind::works:
      return "works";
    case AnswerKind::installed:
      return "installed";
    case AnswerKind::fits:
      return "fits";
    case AnswerKind::none_fits:
      return "none-fits";
    case AnswerKind::unknown:
      return "unknown";
  }
  return "unknown";
}

std::optional<std::string> kernels_cannot_run(const resolve::Recipe* recipe,
                                              const env::Environment& environment) {
  if (!recipe || !recipe->needs_cuda) return std::nullopt;
  // A ROCm torch (AMD GPUs, no NVIDIA driver, torch.version.cuda None): not
  // judged by NVIDIA's facts.
  if (environment.torch.hip.known() && !environment.torch.hip->none()) return std::nullopt;
  const env::GpuFacts& gpu = environment.gpu;
  if (gpu.presence == env::GpuPresence::no_driver || gpu.presence == env::GpuPresence::no_gpu)
    return fmt::format("there is no NVIDIA GPU here ({})", gpu.summary);
  if (environment.torch.cuda.known() && environment.torch.cuda->none())
    return std::string("torch here is a CPU build");
  if (gpu.gpus.known()) {
    // Judged only when every GPU's compute capability is known: one unknown
    // may be the GPU that runs it.
    std::vector<env::ComputeCapability> capabilities;
    for (const env::GpuDevice& d : *gpu.gpus) {
      if (!d.capability.known()) return std::nullopt;
      capabilities.push_back(*d.capability);
    }
    return resolve::no_gpu_runs(*recipe, capabilities);
  }
  return std::nullopt;
}

PackageAnswer decide_answer(const PackageFacts& facts) {
  PackageAnswer a;
  a.package = facts.package;
  a.installed_version = facts.installed_version;
  const bool checked = facts.import_check.has_value();
  if (checked) a.importable = facts.import_check->ok();
  if (facts.installed_version && checked && facts.import_check->ok()) {
    const std::string imports =
        facts.import_check->modules.empty()
            ? fmt::format("installed {}; torch imports (no module of it was checked)",
                          *facts.installed_version)
            : fmt::format("installed {}, imports {}", *facts.installed_version,
                          modules_of(*facts.import_check));
    if (facts.cannot_run) {
      // The import does not touch the GPU: it works only as far as it was proven.
      a.kind = AnswerKind::installed;
      a.summary =
          fmt::format("{}, but its kernels cannot run here: {}", imports, *facts.cannot_run);
      a.command = facts.fallback_command;
      return a;
    }
    a.kind = AnswerKind::works;
    a.summary = facts.import_check->modules.empty() ? imports
                                                    : imports + " (checked in a fresh interpreter)";
    return a;
  }
  // Installed but not proven: say what is known, then answer as if it were absent.
  std::string prefix = "not installed; ";
  if (facts.installed_version) {
    if (checked) {
      prefix = fmt::format("installed {} but its import fails; ", *facts.installed_version);
      a.notes.push_back("import check: " + facts.import_check->first_failure());
    } else {
      prefix =
          fmt::format("installed {} (import not checked: {}); ", *facts.installed_version,
                      facts.import_skipped.empty() ? "no module to check" : facts.import_skipped);
    }
  }
  if (!facts.unreachable.empty()) {
    a.notes.push_back(
        fmt::format("network unavailable for {}: the answer rests on the "
                    "built-in catalogs and the cache",
                    util::join(facts.unreachable, "; ")));
  }
  if (!facts.offline_reason.empty()) {
    a.notes.push_back(facts.offline_reason +
                      ": no network source was consulted and no URL confirmed; the answer rests on "
                      "the built-in catalogs and the cache");
  }
  if (!facts.resolution) {
    a.kind = facts.installed_version ? AnswerKind::installed : AnswerKind::unknown;
    a.summary = prefix + "could not be resolved: " + facts.error;
    return a;
  }
  const resolve::Resolution& r = *facts.resolution;
  if (r.selected) {
    const resolve::Judged& j = r.candidates[*r.selected];
    a.kind = AnswerKind::fits;
    a.wheel = j.candidate->filename;
    a.summary = fmt::format("{}{} fits ({}{})", prefix, j.candidate->filename, j.candidate->source,
                            j.certain() ? "" : "; uncertain");
    for (const resolve::Assumption& as : j.assumptions)
      a.notes.push_back(fmt::format("fits only if {} (give {})", as.message, as.flag));
    a.command = facts.install_command;
    return a;
  }
  a.kind = AnswerKind::none_fits;
  a.summary = prefix + why_none(r);
  if (!r.suggestions.empty()) {
    const resolve::Suggestion& next = r.suggestions.front();
    a.summary += fmt::format("; next: [{}] {}", resolve::to_string(next.kind), next.message);
    a.command = next.command;
  }
  return a;
}

std::string answer_text(const std::vector<PackageAnswer>& answers) {
  std::string out = "\nanswer:\n";
  for (const PackageAnswer& a : answers) {
    const Paint mark = a.kind == AnswerKind::works || a.kind == AnswerKind::fits ? Paint::good
                       : a.kind == AnswerKind::none_fits                         ? Paint::bad
                                                                                 : Paint::warn;
    out += fmt::format("  {}: {}\n", paint(mark, a.package), a.summary);
    if (a.command) out += "      $ " + *a.command + "\n";
    for (const std::string& n : a.notes) out += "      note: " + n + "\n";
  }
  return out;
}

json answer_json(const std::vector<PackageAnswer>& answers) {
  json out = json::array();
  for (const PackageAnswer& a : answers) {
    out.push_back({{"package", a.package},
                   {"answer", std::string(to_string(a.kind))},
                   {"summary", a.summary},
                   {"command", a.command ? json(*a.command) : json(nullptr)},
                   {"installed", a.installed_version ? json(*a.installed_version) : json(nullptr)},
                   {"importable", a.importable ? json(*a.importable) : json(nullptr)},
                   {"wheel", a.wheel ? json(*a.wheel) : json(nullptr)},
                   {"notes", a.notes}});
  }
  return out;
}

}  // namespace flashfit::cli
