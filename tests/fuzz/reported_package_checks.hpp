#pragma once
// What the resolver-output harnesses (pip_report, uv_resolution) hold of every
// package they keep: a name, a version and a URL, and a sha256 that is empty
// or 64 lower-case hex digits; and what "the same files" means when a text is
// read twice.
#include <vector>

#include "fuzz_common.hpp"
#include "workflow/pip_report.hpp"

namespace flashfit::fuzz {

inline void check_reported_packages(const std::vector<workflow::ReportedPackage>& packages) {
  for (const workflow::ReportedPackage& p : packages) {
    FUZZ_CHECK(!p.name.empty() && !p.version.empty() && !p.url.empty(),
               "a package without name, version or url: " + p.name);
    FUZZ_CHECK(p.sha256.empty() || p.sha256.size() == 64, "a bad sha256 kept: " + p.sha256);
    for (char c : p.sha256)
      FUZZ_CHECK((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'), "a sha256 not lower hex");
  }
}

inline bool same_packages(const std::vector<workflow::ReportedPackage>& a,
                          const std::vector<workflow::ReportedPackage>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].version != b[i].version || a[i].url != b[i].url ||
        a[i].sha256 != b[i].sha256)
      return false;
  }
  return true;
}

}  // namespace flashfit::fuzz
