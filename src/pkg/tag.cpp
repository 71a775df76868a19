#include "pkg/tag.hpp"

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
  std::vector<Tag> tags;
  for (auto interpreter : util::split(fields[0], '.')) {
    for (auto abi : util::split(fields[1], '.')) {
      for (auto platform : util::split(fields[2], '.')) {
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
