// CUDA fatbin containers (.nv_fatbin / __nv_relfatbin section bytes),
// including LZ4 and zstd compressed payloads: malformed input is an input
// error with an offset, never a crash; entries lie inside the section, in order.
#include <span>

#include "binary/fatbin.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit;
  const std::span<const std::uint8_t> bytes(data, size);
  for (auto which : {binary::FatbinSection::nv_fatbin, binary::FatbinSection::nv_relfatbin}) {
    auto entries = binary::parse_fatbin(bytes, which);
    if (!entries) {
      FUZZ_CHECK(entries.error().kind == util::ErrorKind::input,
                 "not an input error: " + entries.error().message);
      continue;
    }
    std::uint64_t last = 0;
    std::size_t container = 0;
    for (const auto& entry : *entries) {
      FUZZ_CHECK(entry.offset < size, "an entry past the end");
      FUZZ_CHECK(entry.container >= container, "containers out of order");
      if (entry.container == container) FUZZ_CHECK(entry.offset >= last, "entries out of order");
      container = entry.container;
      last = entry.offset;
      FUZZ_CHECK(!entry.name().empty(), "an entry without a name");
      FUZZ_CHECK(entry.section == which, "entry from another section");
    }
  }
  return 0;
}
