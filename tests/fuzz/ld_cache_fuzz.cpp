// ld.so.cache (old "ld.so-1.7.0", new "glibc-ld.so.cache1.1" and the compat
// layout): malformed files are input errors, never crashes; every entry has a
// name and a path without NUL bytes.
#include <span>

#include "binary/ld_cache.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit;
  auto entries = binary::parse_ld_so_cache(std::span<const std::uint8_t>(data, size));
  if (!entries) {
    FUZZ_CHECK(entries.error().kind == util::ErrorKind::input,
               "not an input error: " + entries.error().message);
    return 0;
  }
  for (const auto& entry : *entries) {
    FUZZ_CHECK(entry.soname.find('\0') == std::string::npos, "NUL in a name");
    FUZZ_CHECK(entry.path.find('\0') == std::string::npos, "NUL in a path");
    (void)binary::ld_cache_flags_name(entry.flags);
    (void)binary::ld_cache_flags_abi(entry.flags);
  }
  return 0;
}
