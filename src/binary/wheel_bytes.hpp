#pragma once
// A wheel's bytes read into memory once, shared by the readers that need
// them: libzip (binary::open_wheel_bytes), the file's SHA-256, and publish's
// put of exactly the bytes it inspected.

#include <cstddef>
#include <memory>
#include <string_view>

namespace flashfit::binary {

struct WheelBytes {
  std::unique_ptr<char[]> data;  // not zeroed before the read fills it
  std::size_t size = 0;
  std::string_view view() const { return {data.get(), size}; }
};

}  // namespace flashfit::binary
