// PEP 440 specifier sets: str() parses back to the same set; contains() and
// filter() on a candidate (the input's second line) agree with each other.
#include "fuzz_common.hpp"
#include "pkg/specifier.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::pkg;
  const auto text = flashfit::fuzz::as_text(data, size);
  const auto nl = text.find('\n');
  auto set = SpecifierSet::parse(text.substr(0, nl));
  if (!set) return 0;
  const std::string printed = set->str();
  auto again = SpecifierSet::parse(printed);
  FUZZ_CHECK(again.has_value(), "str() does not parse: " + printed);
  FUZZ_CHECK(again->str() == printed, "str() is not stable: " + printed + " -> " + again->str());
  for (const auto& spec : set->specifiers()) {
    auto one = Specifier::parse(spec.str());
    FUZZ_CHECK(one.has_value() && one->str() == spec.str(), "specifier: " + spec.str());
  }
  if (nl == std::string_view::npos) return 0;
  auto candidate = Version::parse(text.substr(nl + 1));
  if (!candidate) return 0;
  for (std::optional<bool> pre :
       {std::optional<bool>{}, std::optional<bool>{true}, std::optional<bool>{false}}) {
    const bool in = set->contains(*candidate, pre);
    FUZZ_CHECK(in == again->contains(*candidate, pre), "reparsed set answers otherwise");
    if (pre == true) {
      // With pre-releases allowed, filter() keeps exactly what contains() accepts.
      const auto kept = set->filter({*candidate}, true);
      FUZZ_CHECK(kept.empty() != in, "filter and contains disagree on " + candidate->str());
    }
  }
  return 0;
}
