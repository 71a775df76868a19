#pragma once
// PEP 425 tag triples and the compressed tag sets of wheel file names
// (`py2.py3-none-any` is two tags).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace flashfit::pkg {

struct Tag {
  std::string interpreter;  // cp311, py3, pp39
  std::string abi;          // cp311, abi3, none, cp313t
  std::string platform;     // manylinux_2_28_x86_64, linux_x86_64, any

  std::string str() const { return interpreter + "-" + abi + "-" + platform; }
  friend bool operator==(const Tag&, const Tag&) = default;
  // clang-tidy 14 reads the defaulted <=>'s comparison with 0 as a null pointer.
  // NOLINTNEXTLINE(modernize-use-nullptr)
  friend auto operator<=>(const Tag&, const Tag&) = default;
};

// Expands "py2.py3-none-any" into its tags, lower-cased as packaging does,
// sorted and without duplicates. Exactly three '-'-separated fields are required.
util::Result<std::vector<Tag>> parse_tag_set(std::string_view text);
// More tags than a compressed tag set expands to is an input error. Large
// enough for any real name (a file name with 10,001 platform tags still
// parses: WheelName.OverLongInput), small enough that a hostile line of dots
// (hundreds of thousands of tags from 200 bytes) is refused before expansion.
inline constexpr std::size_t kMaxExpandedTags = 65536;

}  // namespace flashfit::pkg
