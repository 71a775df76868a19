// uv's pylock.toml (`uv pip compile --format pylock.toml`, read back by
// `flashfit lock --resolver uv`): uv writes it, but from whatever the indexes
// said, so hostile text is an error with a message, never a throw; every
// package kept has a name, a version and a URL, and a sha256 that is empty or
// 64 lower-case hex digits; reading the same text twice gives the same files
// (the pick among a package's wheels depends on nothing but the text and the
// interpreter's tags).
#include "fuzz_common.hpp"
#include "pkg/tags.hpp"
#include "workflow/uv_compile.hpp"

namespace {

// A CPython 3.11 on manylinux x86-64, the shape of the interpreters flashfit
// locks for, so that wheels both fit and do not.
const flashfit::pkg::SupportedTags& interpreter_tags() {
  static const flashfit::pkg::SupportedTags tags({{"cp311", "cp311", "manylinux_2_17_x86_64"},
                                                  {"cp311", "abi3", "manylinux_2_17_x86_64"},
                                                  {"cp311", "none", "linux_x86_64"},
                                                  {"py3", "none", "any"}});
  return tags;
}

bool same_packages(const std::vector<flashfit::workflow::ReportedPackage>& a,
                   const std::vector<flashfit::workflow::ReportedPackage>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].version != b[i].version || a[i].url != b[i].url ||
        a[i].sha256 != b[i].sha256)
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::workflow;
  const auto text = flashfit::fuzz::as_text(data, size);
  auto packages = parse_uv_resolution(text, "uv's pylock.toml", interpreter_tags());
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
  auto again = parse_uv_resolution(text, "uv's pylock.toml", interpreter_tags());
  FUZZ_CHECK(again.has_value() && same_packages(*again, *packages),
             "the same text read twice gave other files");
  return 0;
}
