#include "pkg/tag.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "util/strings.hpp"

namespace flashfit::pkg {

const std::vector<Tag>& SharedTags::empty_tags() {
  static const std::vector<Tag> none;
  return none;
}

util::Result<std::vector<Tag>> parse_tag_set(std::string_view text) {
  const auto fields = util::split(text, '-');
  if (fields.size() != 3) {
    return util::input_error(
        "a tag set has three '-'-separated fields (python-abi-platform), found " +
            std::to_string(fields.size()),
        std::string(text));
  }
  const auto interpreters = util::split(fields[0], '.');
  const auto abis = util::split(fields[1], '.');
  const auto platforms = util::split(fields[2], '.');
  // Each field multiplies the others: 200 bytes of dots would be millions of
  // tags (a hostile WHEEL file's Tag line; found by the dist_info fuzzer). The
  // widest real sets (every CPython x manylinux/musllinux spelling) are a few
  // hundred.
  // The product is checked a factor at a time: three fields of millions of
  // dots each would wrap a size_t product round to a small number.
  const auto too_many = [&] {
    return util::input_error(
        fmt::format("a tag set that expands to more than {} tags ({} x {} x {})", kMaxExpandedTags,
                    interpreters.size(), abis.size(), platforms.size()),
        util::printable(text, 80));
  };
  if (interpreters.size() > kMaxExpandedTags || abis.size() > kMaxExpandedTags) return too_many();
  const std::size_t pairs = interpreters.size() * abis.size();  // at most 2^32
  if (pairs > kMaxExpandedTags ||
      platforms.size() > kMaxExpandedTags / std::max<std::size_t>(pairs, 1))
    return too_many();
  // Each field sorted and without duplicates first: their product, taken in
  // that nesting order, is then sorted and unique as it is made (a tag orders
  // by interpreter, then ABI, then platform). Sorting the expanded tags instead
  // cost O(n log n) string comparisons on up to 65,536 tags: nearly all of
  // the dist_info fuzzer's time, and it is most of a wide name's parse.
  const auto distinct = [](const std::vector<std::string_view>& items) {
    std::vector<std::string> out;
    out.reserve(items.size());
    for (const auto item : items) out.push_back(util::ascii_lower(item));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  };
  const auto interpreter_set = distinct(interpreters);
  const auto abi_set = distinct(abis);
  const auto platform_set = distinct(platforms);
  std::vector<Tag> tags;
  tags.reserve(interpreter_set.size() * abi_set.size() * platform_set.size());
  for (const auto& interpreter : interpreter_set) {
    for (const auto& abi : abi_set) {
      for (const auto& platform : platform_set) tags.push_back(Tag{interpreter, abi, platform});
    }
  }
  return tags;
}

}  // namespace flashfit::pkg
