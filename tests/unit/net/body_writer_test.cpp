#include "net/body_writer.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <random>

#include "../temp_dir.hpp"
#include "util/sha256.hpp"
#include "util/unique_fd.hpp"

namespace flashfit::net::detail {
namespace {

std::string random_bytes(std::size_t size, unsigned seed) {
  std::mt19937 gen(seed);
  std::string out(size, '\0');
  for (char& c : out) c = static_cast<char>(gen() & 0xff);
  return out;
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Appends `body` in libcurl-sized pieces (16 KiB, the last one short).
bool append_in_pieces(BodyWriter& writer, std::string_view body) {
  for (std::size_t at = 0; at < body.size(); at += 16384) {
    if (!writer.append(body.data() + at, std::min<std::size_t>(16384, body.size() - at)))
      return false;
  }
  return true;
}

TEST(BodyWriter, WritesAndHashesEveryByteInOrderAfterWhatTheFileHeld) {
  test::TempDir dir;
  const auto path = dir.path() / "x.part";
  const std::string before = random_bytes(1000, 1);
  // Several blocks (1 MiB each), more than the 8 in flight, and a short tail.
  const std::string body = random_bytes((std::size_t{11} << 20) + 12345, 2);
  std::ofstream(path, std::ios::binary) << before;
  util::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
  ASSERT_TRUE(fd);
  util::Sha256 hasher;
  hasher.update(before);
  {
    BodyWriter writer(fd.get(), hasher, before.size());
    ASSERT_TRUE(append_in_pieces(writer, body));
    ASSERT_TRUE(writer.finish());
    EXPECT_TRUE(writer.finish());  // a second finish has nothing left to do
  }
  EXPECT_EQ(read(path), before + body);
  EXPECT_EQ(util::to_hex(hasher.finish()), util::sha256_hex(before + body));
}

TEST(BodyWriter, ABodyUnderOneBlockIsWrittenAtFinish) {
  test::TempDir dir;
  const auto path = dir.path() / "small.part";
  util::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  ASSERT_TRUE(fd);
  util::Sha256 hasher;
  BodyWriter writer(fd.get(), hasher, 0);
  ASSERT_TRUE(writer.append("hello ", 6));
  ASSERT_TRUE(writer.append("world", 5));
  EXPECT_EQ(read(path), "");  // gathered, not yet written
  ASSERT_TRUE(writer.finish());
  EXPECT_EQ(read(path), "hello world");
  EXPECT_EQ(util::to_hex(hasher.finish()), util::sha256_hex("hello world"));
}

TEST(BodyWriter, AFailedWriteStopsTheTransferWithItsErrno) {
  test::TempDir dir;
  const auto path = dir.path() / "ro.part";
  std::ofstream(path) << "";
  // Read-only: every write fails with EBADF, as a full disk fails with ENOSPC.
  util::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd);
  util::Sha256 hasher;
  BodyWriter writer(fd.get(), hasher, 0);
  const std::string body = random_bytes(std::size_t{20} << 20, 3);
  // The writer's thread fails on the first block; the transfer learns it at a
  // later append (at most the blocks in flight later) or at finish.
  const bool appended = append_in_pieces(writer, body);
  EXPECT_FALSE(writer.finish());
  EXPECT_FALSE(appended);
  EXPECT_EQ(writer.error_number(), EBADF);
  EXPECT_EQ(read(path), "");
}

TEST(BodyWriter, AFailedSmallBodyIsReportedAtFinish) {
  test::TempDir dir;
  const auto path = dir.path() / "ro-small.part";
  std::ofstream(path) << "";
  util::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  util::Sha256 hasher;
  BodyWriter writer(fd.get(), hasher, 0);
  ASSERT_TRUE(writer.append("abc", 3));
  EXPECT_FALSE(writer.finish());
  EXPECT_EQ(writer.error_number(), EBADF);
}

}  // namespace
}  // namespace flashfit::net::detail
