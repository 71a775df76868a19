// util::copy_hashing: the digest is of exactly the bytes written; a failing
// side is named.
#include "util/hashing_copy.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "../temp_dir.hpp"
#include "util/atomic_file.hpp"
#include "util/sha256.hpp"
#include "util/unique_fd.hpp"

namespace flashfit::util {
namespace {

TEST(HashingCopy, CopiesFromTheOffsetToTheEndAndHashesWhatItWrote) {
  test::TempDir tmp("hashing-copy");
  std::string bytes(2 * 1024 * 1024 + 5, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 % 253);
  ASSERT_TRUE(write_file_atomic(tmp.path() / "in", bytes));
  UniqueFd in(::open((tmp.path() / "in").c_str(), O_RDONLY | O_CLOEXEC));
  UniqueFd out(::open((tmp.path() / "out").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  ASSERT_TRUE(in && out);
  ASSERT_EQ(::lseek(in.get(), 5, SEEK_SET), 5);
  auto copied = copy_hashing(in.get(), out.get());
  ASSERT_TRUE(copied);
  EXPECT_EQ(copied->size, bytes.size() - 5);
  EXPECT_EQ(copied->sha256, sha256_hex(bytes.substr(5)));
  EXPECT_EQ(read_small_file(tmp.path() / "out", bytes.size()).value_or(""), bytes.substr(5));
  // At the end already: nothing copied, the empty digest.
  auto again = copy_hashing(in.get(), out.get());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->size, 0u);
  EXPECT_EQ(again->sha256, sha256_hex(""));
}

TEST(HashingCopy, AFailingSideIsNamedWithItsErrno) {
  test::TempDir tmp("hashing-copy");
  ASSERT_TRUE(write_file_atomic(tmp.path() / "in", "some bytes"));
  UniqueFd in(::open((tmp.path() / "in").c_str(), O_RDONLY | O_CLOEXEC));
  UniqueFd full(::open("/dev/full", O_WRONLY | O_CLOEXEC));
  if (!full) GTEST_SKIP() << "no /dev/full here";
  auto no_space = copy_hashing(in.get(), full.get());
  ASSERT_FALSE(no_space);
  EXPECT_FALSE(no_space.error().reading);
  EXPECT_EQ(no_space.error().error, ENOSPC);
  UniqueFd write_only(::open((tmp.path() / "w").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  auto unreadable = copy_hashing(write_only.get(), full.get());
  ASSERT_FALSE(unreadable);
  EXPECT_TRUE(unreadable.error().reading);
  EXPECT_EQ(unreadable.error().error, EBADF);
}

}  // namespace
}  // namespace flashfit::util
