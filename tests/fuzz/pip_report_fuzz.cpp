// pip's installation report (`pip install --dry-run --report`, whose JSON
// `flashfit lock` reads; pip writes it, but from whatever the indexes said):
// hostile text is an error with a message, never a throw; every package kept
// has a name, a version and a URL, and a sha256 that is empty or 64 hex digits.
#include "reported_package_checks.hpp"
#include "workflow/pip_report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::workflow;
  auto packages = parse_pip_report(flashfit::fuzz::as_text(data, size));
  if (!packages) {
    FUZZ_CHECK(!packages.error().message.empty(), "an error without a message");
    return 0;
  }
  flashfit::fuzz::check_reported_packages(*packages);
  return 0;
}
