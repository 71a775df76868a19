// PEP 440 versions: a parsed version prints back to text that parses equal,
// printing is stable, and ordering is consistent with equality.
#include "fuzz_common.hpp"
#include "pkg/version.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using flashfit::pkg::Version;
  const auto text = flashfit::fuzz::as_text(data, size);
  const auto nl = text.find('\n');
  const auto first = text.substr(0, nl);
  auto v = Version::parse(first);
  if (!v) {
    FUZZ_CHECK(!v.error().message.empty(), "an error without a message");
    return 0;
  }
  const std::string printed = v->str();
  auto again = Version::parse(printed);
  FUZZ_CHECK(again.has_value(), "str() does not parse: " + printed);
  FUZZ_CHECK(*again == *v, "str() parses to another version: " + printed);
  FUZZ_CHECK(again->str() == printed, "str() is not stable: " + printed + " -> " + again->str());
  auto canonical = Version::parse(v->canonical_str());
  FUZZ_CHECK(canonical.has_value() && *canonical == *v,
             "canonical_str() differs: " + v->canonical_str());
  auto public_part = Version::parse(v->public_str());
  FUZZ_CHECK(public_part.has_value() && !public_part->has_local(),
             "public_str(): " + v->public_str());
  FUZZ_CHECK(v->compare_public(*public_part) == std::strong_ordering::equal, "public part differs");
  FUZZ_CHECK(v->without_local() == *public_part, "without_local() != public_str()");
  // A second line, when there is one: the order is antisymmetric.
  if (nl != std::string_view::npos) {
    if (auto w = Version::parse(text.substr(nl + 1))) {
      const auto ab = *v <=> *w;
      const auto ba = *w <=> *v;
      FUZZ_CHECK((ab < 0) == (ba > 0) && (ab == 0) == (ba == 0), printed + " vs " + w->str());
      // Equal versions print the same canonical form.
      if (ab == 0)
        FUZZ_CHECK(v->canonical_str() == w->canonical_str(), printed + " == " + w->str());
    }
  }
  return 0;
}
