// A requirements-format lock (`flashfit lock`'s file, read by `install
// --lock` and `lock --check`; it comes from a repository, so from anyone):
// hostile text is an error with a message, never a throw; an accepted lock
// keeps only http(s)/file URLs and 64-hex hashes, and renders to text that
// reads back to the same lines and key.
#include "fuzz_common.hpp"
#include "lock_fuzz_common.hpp"
#include "workflow/lock_file.hpp"

namespace {

bool hex64(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::workflow;
  auto parsed = parse_lock(flashfit::fuzz::as_text(data, size), "fuzz.txt");
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty(), "an error without a message");
    return 0;
  }
  const LockDocument& doc = parsed->document;
  FUZZ_CHECK(parsed->flashfit_where.size() == doc.flashfit.size(), "where not parallel");
  FUZZ_CHECK(parsed->installer_where.size() == doc.installer.size(), "where not parallel");
  for (const auto* lines : {&doc.flashfit, &doc.installer}) {
    for (const LockedLine& line : *lines) {
      FUZZ_CHECK(!line.name.empty(), "a line without a name");
      FUZZ_CHECK(line.url.rfind("http://", 0) == 0 || line.url.rfind("https://", 0) == 0 ||
                     line.url.rfind("file://", 0) == 0,
                 "kept a URL of another scheme: " + line.url);
      if (line.sha256) FUZZ_CHECK(hex64(*line.sha256), "kept a bad sha256: " + *line.sha256);
    }
  }
  const std::string written = render_lock(doc);
  auto again = parse_lock(written, "again.txt");
  FUZZ_CHECK(again.has_value(), "own text refused: " + written);
  FUZZ_CHECK(again->document.key == doc.key, "the key changed on a round trip: " + written);
  FUZZ_CHECK(flashfit::fuzz::same_lines(again->document.flashfit, doc.flashfit) &&
                 flashfit::fuzz::same_lines(again->document.installer, doc.installer),
             "the lines changed on a round trip: " + written);
  return 0;
}
