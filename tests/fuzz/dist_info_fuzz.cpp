// The dist-info text files a wheel carries (WHEEL, METADATA, RECORD), read
// from wheels and from installed environments: errors, never crashes; RECORD
// rows name a path and a well-formed hash or none.
#include <tuple>

#include "binary/wheel.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::binary;
  const auto text = flashfit::fuzz::as_text(data, size);
  if (auto fields = parse_wheel_file(text)) {
    for (std::size_t i = 1; i < fields->tags.size(); ++i) {
      const auto& a = fields->tags[i - 1];
      const auto& b = fields->tags[i];
      FUZZ_CHECK(
          std::tie(a.interpreter, a.abi, a.platform) < std::tie(b.interpreter, b.abi, b.platform),
          "Tag lines not sorted, unique");
    }
  }
  (void)parse_metadata_headers(text);
  if (auto rows = parse_record(text)) {
    for (const RecordRow& row : *rows) {
      FUZZ_CHECK(!row.path.empty(), "a RECORD row without a path");
    }
  }
  const std::string reason = unsafe_member_name_reason(text);
  if (reason.empty()) {
    const std::string normal = normalise_member_name(text);
    std::size_t start = 0;
    while (start <= normal.size()) {
      const auto slash = normal.find('/', start);
      const auto part = normal.substr(start, slash == std::string::npos ? slash : slash - start);
      FUZZ_CHECK(part != "..", "a safe name climbs: " + normal);
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    FUZZ_CHECK(normal.empty() || normal.front() != '/', "a safe name is absolute: " + normal);
  }
  return 0;
}
