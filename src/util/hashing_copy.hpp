#pragma once
// Copying one descriptor to another while hashing what is copied: the one
// pass publish uses to stage a wheel and to copy one it did not stage.

#include <cstdint>
#include <string>

#include "util/error.hpp"

namespace flashfit::util {

struct HashedCopy {
  std::string sha256;  // hex, of the bytes copied
  std::uint64_t size = 0;
};

// Which side of a copy failed, and its errno.
struct CopyFailure {
  bool reading = false;  // false: writing
  int error = 0;
};

// Copies `in` to `out` from their current offsets to `in`'s end through one
// 1 MiB buffer per thread (not zeroed: a fresh buffer per file is a page
// fault and a cleared page per 4 KiB), feeding each chunk to SHA-256 as it
// goes, so the digest is of exactly the bytes written.
tl::expected<HashedCopy, CopyFailure> copy_hashing(int in, int out);

}  // namespace flashfit::util
