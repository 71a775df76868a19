#pragma once
// PEP 425 tag triples and the compressed tag sets of wheel file names
// (`py2.py3-none-any` is two tags).

#include <cstddef>
#include <memory>
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

// A wheel file name's tags, held once and shared by its copies: a catalog's
// thousands of names have a few dozen tag sets, and every judged wheel holds
// a copy of its name. Reads as a const vector (iteration, size, front, [],
// and where a `const std::vector<Tag>&` is asked for).
class SharedTags {
 public:
  SharedTags() = default;
  explicit SharedTags(std::vector<Tag> tags)
      : tags_(std::make_shared<const std::vector<Tag>>(std::move(tags))) {}
  const std::vector<Tag>& vector() const { return tags_ ? *tags_ : empty_tags(); }
  // NOLINTNEXTLINE(google-explicit-constructor): read where a vector is read
  operator const std::vector<Tag>&() const { return vector(); }
  auto begin() const { return vector().begin(); }
  auto end() const { return vector().end(); }
  std::size_t size() const { return vector().size(); }
  bool empty() const { return vector().empty(); }
  const Tag& front() const { return vector().front(); }
  const Tag& operator[](std::size_t i) const { return vector()[i]; }
  friend bool operator==(const SharedTags& a, const SharedTags& b) {
    return a.vector() == b.vector();
  }
  friend bool operator==(const SharedTags& a, const std::vector<Tag>& b) { return a.vector() == b; }

 private:
  static const std::vector<Tag>& empty_tags();
  std::shared_ptr<const std::vector<Tag>> tags_;
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
