// PEP 691 JSON pages: malformed JSON is an error, never a throw; every link
// is absolute, without a fragment, and a hash is 64 lower-case hex digits.
#include "fuzz_common.hpp"
#include "resolve/index_page.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::resolve;
  const auto text = flashfit::fuzz::as_text(data, size);
  auto links = parse_simple_json(text, "https://index.example/simple/flash-attn/");
  if (!links) {
    FUZZ_CHECK(!links.error().message.empty(), "an error without a message");
    return 0;
  }
  for (const IndexLink& link : *links) {
    FUZZ_CHECK(flashfit::fuzz::fetchable_url(link.url), "not absolute: " + link.url);
    FUZZ_CHECK(link.url.find('#') == std::string::npos, "fragment kept: " + link.url);
    FUZZ_CHECK(link.filename.find('/') == std::string::npos, "filename with '/': " + link.filename);
    if (link.sha256) {
      FUZZ_CHECK(link.sha256->size() == 64 &&
                     link.sha256->find_first_not_of("0123456789abcdef") == std::string::npos,
                 "bad sha256: " + *link.sha256);
    }
    if (link.core_metadata && !link.core_metadata->empty()) {
      FUZZ_CHECK(link.core_metadata->size() == 64 &&
                     link.core_metadata->find_first_not_of("0123456789abcdef") == std::string::npos,
                 "bad metadata sha256: " + *link.core_metadata);
    }
  }
  return 0;
}
