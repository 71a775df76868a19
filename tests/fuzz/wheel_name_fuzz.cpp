// Wheel file names: a parsed name rebuilt from its parts (one tag at a time)
// parses to the same project, version and tag.
#include <tuple>

#include "fuzz_common.hpp"
#include "pkg/wheel_name.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::pkg;
  const auto text = flashfit::fuzz::as_text(data, size);
  auto name = parse_wheel_filename(text);
  if (!name) {
    FUZZ_CHECK(!name.error().message.empty(), "an error without a message");
    return 0;
  }
  FUZZ_CHECK(!name->tags.empty(), "no tags");
  FUZZ_CHECK(!name->canonical_name.empty(), "empty canonical name");
  for (std::size_t i = 1; i < name->tags.size(); ++i) {
    const auto& a = name->tags[i - 1];
    const auto& b = name->tags[i];
    FUZZ_CHECK(
        std::tie(a.interpreter, a.abi, a.platform) < std::tie(b.interpreter, b.abi, b.platform),
        "tags not sorted and unique");
  }
  std::string rebuilt = name->name + "-" + name->version.str();
  if (name->build) rebuilt += "-" + name->build->first + name->build->second;
  rebuilt += "-" + name->tags.front().str() + ".whl";
  auto again = parse_wheel_filename(rebuilt);
  FUZZ_CHECK(again.has_value(), "rebuilt name does not parse: " + rebuilt);
  FUZZ_CHECK(again->canonical_name == name->canonical_name, "project differs: " + rebuilt);
  FUZZ_CHECK(again->version == name->version, "version differs: " + rebuilt);
  FUZZ_CHECK(again->build == name->build, "build tag differs: " + rebuilt);
  FUZZ_CHECK(again->tags.size() == 1 && again->tags.front().str() == name->tags.front().str(),
             "tag differs: " + rebuilt);
  return 0;
}
