// A pylock.toml (`flashfit lock --format pylock`'s file, read by `install
// --lock` and `lock --check`): hostile text is an error with a message,
// never a throw; an accepted file holds one hashed file per package, and
// renders to a pylock that reads back to the same packages and key.
#include "fuzz_common.hpp"
#include "lock_fuzz_common.hpp"
#include "workflow/pylock.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::workflow;
  auto parsed = parse_pylock(flashfit::fuzz::as_text(data, size), "pylock.toml");
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty(), "an error without a message");
    return 0;
  }
  const LockDocument& doc = parsed->document;
  for (const auto* lines : {&doc.flashfit, &doc.installer}) {
    for (const LockedLine& line : *lines) {
      FUZZ_CHECK(!line.name.empty(), "a package without a name");
      FUZZ_CHECK(!line.url.empty(), "a file without a URL");
      FUZZ_CHECK(line.sha256 && line.sha256->size() == 64, "a file without a sha256");
    }
  }
  auto written = render_pylock(doc);
  FUZZ_CHECK(written.has_value(), "an accepted pylock does not render: " + written.error().message);
  auto again = parse_pylock(*written, "again.toml");
  FUZZ_CHECK(again.has_value(), "own text refused: " + *written);
  FUZZ_CHECK(again->document.key == doc.key, "the key changed on a round trip: " + *written);
  FUZZ_CHECK(flashfit::fuzz::same_lines(again->document.flashfit, doc.flashfit) &&
                 flashfit::fuzz::same_lines(again->document.installer, doc.installer),
             "the packages changed on a round trip: " + *written);
  return 0;
}
