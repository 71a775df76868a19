#pragma once
// What the resolver-output harnesses (pip_report, uv_resolution) hold of every
// package they keep: a name, a version and a URL, and a sha256 that is empty
// or 64 lower-case hex digits.
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

}  // namespace flashfit::fuzz
