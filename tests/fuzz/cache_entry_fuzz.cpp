// The wheel cache's entry.json: hostile text is an error, never a throw; an
// accepted entry writes back to JSON that reads to the same entry.
#include "fuzz_common.hpp"
#include "store/cache_layout.hpp"
#include "store/wheel_cache.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::store;
  const auto text = flashfit::fuzz::as_text(data, size);
  auto entry = detail::entry_from_json(text);
  if (!entry) {
    FUZZ_CHECK(!entry.error().message.empty(), "an error without a message");
    return 0;
  }
  FUZZ_CHECK(detail::is_sha256_hex(entry->sha256), "kept a bad sha256: " + entry->sha256);
  FUZZ_CHECK(detail::is_safe_basename(entry->filename),
             "kept an unsafe file name: " + entry->filename);
  const std::string written = detail::entry_to_json(*entry);
  auto again = detail::entry_from_json(written);
  FUZZ_CHECK(again.has_value(), "own JSON refused: " + written);
  FUZZ_CHECK(detail::entry_to_json(*again) == written, "entry changed on a round trip: " + written);
  return 0;
}
