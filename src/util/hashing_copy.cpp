#include "util/hashing_copy.hpp"

#include <unistd.h>

#include <cerrno>
#include <memory>

#include "util/sha256.hpp"
#include "util/write_all.hpp"

namespace flashfit::util {

tl::expected<HashedCopy, CopyFailure> copy_hashing(int in, int out) {
  constexpr std::size_t kBuffer = std::size_t{1} << 20;
  thread_local const auto buffer = std::make_unique_for_overwrite<char[]>(kBuffer);
  Sha256 hash;
  HashedCopy copy;
  while (true) {
    const ssize_t n = ::read(in, buffer.get(), kBuffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return tl::unexpected(CopyFailure{true, errno});
    if (n == 0) break;
    const auto size = static_cast<std::size_t>(n);
    hash.update(buffer.get(), size);
    if (!write_all(out, buffer.get(), size)) return tl::unexpected(CopyFailure{false, errno});
    copy.size += size;
  }
  copy.sha256 = to_hex(hash.finish());
  return copy;
}

}  // namespace flashfit::util
