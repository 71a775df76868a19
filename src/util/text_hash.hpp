#pragma once
// The hash of a string-keyed map that finds a std::string_view key without a
// string made of it (heterogeneous lookup: pair it with std::equal_to<>): the
// memos that look up parts of thousands of file names.
#include <cstddef>
#include <functional>
#include <string_view>

namespace flashfit::util {

struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const {
    return std::hash<std::string_view>{}(text);
  }
};

}  // namespace flashfit::util
