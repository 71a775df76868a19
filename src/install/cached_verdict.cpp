#include "install/cached_verdict.hpp"

#include <algorithm>
#include <vector>

#include "util/strings.hpp"
#include "util/utc_time.hpp"

namespace flashfit::install {

std::string first_failure(const binary::InspectReport& report) {
  auto from = [](const std::vector<binary::Check>& checks) -> std::string {
    for (const binary::Check& c : checks) {
      if (c.status == binary::CheckStatus::fail) {
        return c.id + ": " + c.summary + (c.details.empty() ? "" : " (" + c.details.front() + ")");
      }
    }
    return "";
  };
  if (auto s = from(report.checks); !s.empty()) return s;
  for (const binary::ModuleReport& m : report.modules) {
    if (auto s = from(m.checks); !s.empty()) return m.member + ": " + s;
  }
  return "incompatible";
}

std::string environment_key(const env::Environment& env) {
  std::vector<std::string> parts;
  if (env.python.version.known()) parts.push_back("python " + env.python.version->str());
  if (env.torch.version.known()) parts.push_back("torch " + env.torch.version->str());
  if (env.torch.cxx11_abi.known())
    parts.push_back(*env.torch.cxx11_abi ? "cxx11abi" : "pre-cxx11abi");
  if (env.gpu.gpus.known()) {
    for (const auto& g : *env.gpu.gpus) {
      if (g.capability.known()) parts.push_back("sm " + g.capability->str());
    }
  }
  return util::join(parts, ", ");
}

util::Result<CachedVerdict> inspect_cached(store::WheelCache& cache, store::CacheEntry& entry,
                                           const env::Environment& environment,
                                           const binary::LoadHost& host,
                                           const std::filesystem::path& work_dir) {
  CachedVerdict out;
  const std::string key = environment_key(environment);
  for (const store::InspectRecord& r : entry.inspections) {
    if (r.environment == key) {
      out.record = r;
      out.reused = true;
    }
  }
  if (out.reused) return out;
  auto report = binary::inspect_wheel(entry.path, host, {work_dir, {}});
  if (!report) return tl::unexpected(report.error());
  // torch first when a module of the wheel calls into torch; a plain package is imported alone.
  bool calls_torch =
      std::any_of(report->modules.begin(), report->modules.end(),
                  [](const binary::ModuleReport& m) { return m.torch && m.torch->checked > 0; });
  out.record = store::InspectRecord{key, report->compatible(),
                                    report->compatible() ? "compatible" : first_failure(*report),
                                    util::now_utc(), calls_torch};
  entry.inspections.push_back(out.record);
  (void)cache.update(entry);
  out.report = std::move(*report);
  return out;
}

}  // namespace flashfit::install
