#pragma once
// Writing a whole buffer to a file descriptor: the loop every writer needs.

#include <cstddef>
#include <string_view>

namespace flashfit::util {

// Writes all `size` bytes of `data` to `fd`, retrying on EINTR and short
// writes. False with errno set on failure (EIO for a write that wrote nothing).
bool write_all(int fd, const char* data, std::size_t size);

inline bool write_all(int fd, std::string_view bytes) {
  return write_all(fd, bytes.data(), bytes.size());
}

}  // namespace flashfit::util
