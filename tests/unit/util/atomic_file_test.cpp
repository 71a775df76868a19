#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../temp_dir.hpp"

namespace flashfit::util {
namespace {

std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    out.push_back(entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Both kinds replace the content whole and leave no temp file; only the fsync differs.
TEST(AtomicFile, DurableAndAtomicOnlyWritesReplaceTheFileWhole) {
  test::TempDir dir("atomic");
  const auto path = dir.path() / "index";
  for (const Durability durability : {Durability::durable, Durability::atomic_only}) {
    ASSERT_TRUE(write_file_atomic(path, "first\n", durability));
    EXPECT_EQ(read_small_file(path), "first\n");
    ASSERT_TRUE(write_file_atomic(path, "second, longer\n", durability));
    EXPECT_EQ(read_small_file(path), "second, longer\n");
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"index"});
    std::filesystem::remove(path);
  }
}

TEST(AtomicFile, AMissingDirectoryIsAnErrorNamingThePath) {
  test::TempDir dir("atomic");
  const auto path = dir.path() / "missing" / "index";
  for (const Durability durability : {Durability::durable, Durability::atomic_only}) {
    auto written = write_file_atomic(path, "x", durability);
    ASSERT_FALSE(written);
    EXPECT_NE(render(written.error()).find(path.string()), std::string::npos);
  }
}

}  // namespace
}  // namespace flashfit::util
