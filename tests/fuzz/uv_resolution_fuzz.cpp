// uv's pylock.toml (`uv pip compile --format pylock.toml`, read back by
// `flashfit lock --resolver uv`): uv writes it, but from whatever the indexes
// said, so hostile text is an error with a message, never a throw; every
// package kept has a name, a version and a URL, and a sha256 that is empty or
// 64 lower-case hex digits; reading the same text twice gives the same files
// (the pick among a package's wheels depends on nothing but the text and the
// interpreter's tags).
#include "pkg/tags.hpp"
#include "reported_package_checks.hpp"
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::workflow;
  const auto text = flashfit::fuzz::as_text(data, size);
  auto packages = parse_uv_resolution(text, "uv's pylock.toml", interpreter_tags());
  if (!packages) {
    FUZZ_CHECK(!packages.error().message.empty(), "an error without a message");
    return 0;
  }
  flashfit::fuzz::check_reported_packages(*packages);
  auto again = parse_uv_resolution(text, "uv's pylock.toml", interpreter_tags());
  FUZZ_CHECK(again.has_value() && *again == *packages, "the same text read twice gave other files");
  return 0;
}
