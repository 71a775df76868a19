// pip's installation report (`pip install --dry-run --report`, whose JSON
// `flashfit lock` reads; pip writes it, but from whatever the indexes said):
// hostile text is an error with a message, never a throw; every package kept
// has a name, a version and a URL, and a sha256 that is empty or 64 hex digits.
#include "fuzz_common.hpp"
#include "workflow/pip_report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::workflow;
  auto packages = parse_pip_report(flashfit::fuzz::as_text(data, size));
  if (!packages) {
    FUZZ_CHECK(!packages.error().message.empty(), "an error without a message");
    return 0;
  }
  for (const ReportedPackage& p : *packages) {
    FUZZ_CHECK(!p.name.empty() && !p.version.empty() && !p.url.empty(),
               "a package without name, version or url: " + p.name);
    FUZZ_CHECK(p.sha256.empty() || p.sha256.size() == 64, "a bad sha256 kept: " + p.sha256);
    for (char c : p.sha256)
      FUZZ_CHECK((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'), "a sha256 not lower hex");
  }
  return 0;
}
