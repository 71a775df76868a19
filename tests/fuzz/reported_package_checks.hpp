#pragma once
// What the resolver-output harnesses (pip_report, uv_resolution) hold of every
// package they keep: a name, a version and a URL, a sha256 that is empty or 64
// lower-case hex digits, and the names it requires each once, PEP 503 normal.
#include <vector>

#include "fuzz_common.hpp"
#include "pkg/name.hpp"
#include "workflow/pip_report.hpp"

namespace flashfit::fuzz {

inline void check_reported_packages(const std::vector<workflow::ReportedPackage>& packages) {
  for (const workflow::ReportedPackage& p : packages) {
    FUZZ_CHECK(!p.name.empty() && !p.version.empty() && !p.url.empty(),
               "a package without name, version or url: " + p.name);
    FUZZ_CHECK(p.sha256.empty() || p.sha256.size() == 64, "a bad sha256 kept: " + p.sha256);
    for (char c : p.sha256)
      FUZZ_CHECK((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'), "a sha256 not lower hex");
    for (std::size_t i = 0; i < p.requires_names.size(); ++i) {
      const std::string& name = p.requires_names[i];
      FUZZ_CHECK(!name.empty() && pkg::canonicalize_name(name) == name,
                 "a required name not PEP 503 normal: " + name);
      for (std::size_t k = 0; k < i; ++k)
        FUZZ_CHECK(p.requires_names[k] != name, "a required name twice: " + name);
    }
  }
}

}  // namespace flashfit::fuzz
