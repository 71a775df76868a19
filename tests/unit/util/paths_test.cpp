#include "util/paths.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "../temp_dir.hpp"
#include "util/atomic_file.hpp"

namespace flashfit::util {
namespace {

ino_t inode_of(const std::filesystem::path& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 ? info.st_ino : 0;
}

TEST(CacheDir, TheTagIsWrittenOnceAndAgainWhenACrashLeftItEmpty) {
  test::TempDir tmp("paths");
  const auto root = tmp.path() / "cache";
  ASSERT_TRUE(ensure_cache_dir(root, root / "wheels" / "tmp"));
  EXPECT_TRUE(std::filesystem::is_directory(root / "wheels" / "tmp"));
  const auto tag = root / "CACHEDIR.TAG";
  const auto text = read_small_file(tag);
  ASSERT_TRUE(text);
  EXPECT_EQ(text->rfind("Signature: 8a477f597d28d172789f06886806bc55\n", 0), 0u);
  // Whole: left as it is (the same file).
  const ino_t first = inode_of(tag);
  ASSERT_TRUE(ensure_cache_dir(root, root / "wheels" / "urls"));
  EXPECT_EQ(inode_of(tag), first);
  // Empty, as a crash after the rename and before the data reached the disk
  // can leave it: written again.
  std::ofstream(tag, std::ios::trunc).flush();
  ASSERT_TRUE(ensure_cache_dir(root, root / "wheels" / "locks"));
  EXPECT_EQ(read_small_file(tag), text);
}

TEST(CacheDir, ADirectoryThatCannotBeMadeIsFalse) {
  test::TempDir tmp("paths");
  std::ofstream(tmp.path() / "file") << "x";
  EXPECT_FALSE(ensure_cache_dir(tmp.path(), tmp.path() / "file" / "wheels"));
}

}  // namespace
}  // namespace flashfit::util
