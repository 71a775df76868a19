#include "pkg/tag.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "util/strings.hpp"

namespace flashfit::pkg {

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
  const std::size_t count = pairs * platforms.size();
  std::vector<Tag> tags;
  tags.reserve(count);
  for (auto interpreter : interpreters) {
    for (auto abi : abis) {
      for (auto platform : platforms) {
        tags.push_back(Tag{util::ascii_lower(interpreter), util::ascii_lower(abi),
                           util::ascii_lower(platform)});
      }
    }
  }
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  return tags;
}

}  // namespace flashfit::pkg
