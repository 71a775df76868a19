// The variant record (<wheel>.variant.json) read from an index flashfit did
// not necessarily write: hostile text is an error with a message, never a
// throw; an accepted record writes back to JSON that reads to the same record,
// and the facts the resolver takes from it are in range.
#include "fuzz_common.hpp"
#include "store/cache_layout.hpp"
#include "store/variant_record.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::store;
  const auto text = flashfit::fuzz::as_text(data, size);
  auto record = parse_variant_record(text);
  if (!record) {
    FUZZ_CHECK(!record.error().message.empty(), "an error without a message");
    return 0;
  }
  FUZZ_CHECK(detail::is_sha256_hex(record->sha256), "kept a bad sha256: " + record->sha256);
  FUZZ_CHECK(detail::is_safe_basename(record->filename),
             "kept an unsafe file name: " + record->filename);
  for (int sm : record->sass_archs) FUZZ_CHECK(sm > 0 && sm < 10000, "an arch out of range");
  const std::string written = variant_record_json(*record);
  auto again = parse_variant_record(written);
  FUZZ_CHECK(again.has_value(), "own JSON refused: " + written);
  FUZZ_CHECK(*again == *record, "record changed on a round trip: " + written);
  const BuildRecord facts = build_record_of(*record);
  if (facts.torch) FUZZ_CHECK(facts.torch->release().size() == 2, "a torch that is not X.Y");
  return 0;
}
