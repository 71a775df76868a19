// util::write_all: every byte or a false with errno, whatever write(2) does.
#include "util/write_all.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "../temp_dir.hpp"
#include "util/atomic_file.hpp"
#include "util/unique_fd.hpp"

namespace flashfit::util {
namespace {

TEST(WriteAll, EveryByteOfALargeBufferReachesTheFile) {
  test::TempDir tmp("write-all");
  const auto path = tmp.path() / "out";
  std::string bytes(3 * 1024 * 1024 + 17, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 31 % 251);
  {
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    ASSERT_TRUE(fd);
    ASSERT_TRUE(write_all(fd.get(), bytes));
    ASSERT_TRUE(write_all(fd.get(), "", 0));  // nothing to write: nothing fails
  }
  EXPECT_EQ(read_small_file(path, bytes.size() + 1).value_or(""), bytes);
}

TEST(WriteAll, AFailingWriteIsFalseWithItsErrno) {
  errno = 0;
  EXPECT_FALSE(write_all(-1, "x"));
  EXPECT_EQ(errno, EBADF);
  UniqueFd full(::open("/dev/full", O_WRONLY | O_CLOEXEC));
  if (!full) GTEST_SKIP() << "no /dev/full here";
  errno = 0;
  EXPECT_FALSE(write_all(full.get(), std::string(100000, 'x')));
  EXPECT_EQ(errno, ENOSPC);
}

TEST(WriteAll, AReadOnlyDescriptorIsRefused) {
  UniqueFd in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(in);
  errno = 0;
  EXPECT_FALSE(write_all(in.get(), "x"));
  EXPECT_EQ(errno, EBADF);
}

}  // namespace
}  // namespace flashfit::util
