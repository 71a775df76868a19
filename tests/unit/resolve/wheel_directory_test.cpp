// list_wheel_directory: a --find-links directory of wheels.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../temp_dir.hpp"
#include "resolve/index_page.hpp"

namespace flashfit::resolve {
namespace {

namespace fs = std::filesystem;

void touch(const fs::path& path) {
  std::ofstream(path) << "PK";
}

std::vector<std::string> filenames(const std::vector<IndexLink>& links) {
  std::vector<std::string> out;
  for (const IndexLink& link : links) out.push_back(link.filename);
  return out;
}

TEST(WheelDirectory, ListsRegularWheelsSortedByName) {
  test::TempDir temp("wheeldir");
  fs::path dir = temp.path() / "wheels";
  fs::create_directories(dir / "sub");
  fs::create_directories(dir / "dir.whl");  // a directory, not a wheel
  touch(dir / "b-1.0-py3-none-any.whl");
  touch(dir / "a-1.0-py3-none-any.whl");
  touch(dir / "C-1.0-py3-none-any.whl");
  touch(dir / "upper-1.0-py3-none-any.WHL");  // case-sensitive, as pip
  touch(dir / "a-1.0.tar.gz");
  touch(dir / "notes.txt");
  touch(dir / "a-1.0-py3-none-any.whl.part");
  touch(dir / ".whl");
  touch(dir / "sub" / "nested-1.0-py3-none-any.whl");  // not recursive
  touch(dir / "bad\nname-1.0-py3-none-any.whl");       // control byte in the name
  touch(temp.path() / "outside-1.0-py3-none-any.whl");
  fs::create_symlink("a-1.0-py3-none-any.whl", dir / "link-1.0-py3-none-any.whl");
  fs::create_symlink(temp.path() / "outside-1.0-py3-none-any.whl",
                     dir / "out-1.0-py3-none-any.whl");
  fs::create_symlink("missing.whl", dir / "dangling-1.0-py3-none-any.whl");
  fs::create_symlink("sub", dir / "dirlink-1.0-py3-none-any.whl");

  auto links = list_wheel_directory(dir.string());
  ASSERT_TRUE(links.has_value()) << links.error().message;
  EXPECT_EQ(filenames(*links),
            (std::vector<std::string>{"C-1.0-py3-none-any.whl", "a-1.0-py3-none-any.whl",
                                      "b-1.0-py3-none-any.whl", "link-1.0-py3-none-any.whl",
                                      "out-1.0-py3-none-any.whl"}));
  for (const IndexLink& link : *links) {
    // The symlink's own path, not its target.
    EXPECT_EQ(link.url, (dir / link.filename).string());
    EXPECT_EQ(link.sha256, std::nullopt);
    EXPECT_EQ(link.requires_python, std::nullopt);
    EXPECT_FALSE(link.yanked);
  }
}

TEST(WheelDirectory, RelativeDirectoryGivesAbsolutePaths) {
  test::TempDir temp("wheeldir");
  fs::create_directories(temp.path() / "wheels");
  touch(temp.path() / "wheels" / "a-1.0-py3-none-any.whl");
  test::InDirectory in(temp.path());
  for (std::string dir : {"wheels", "./wheels/", "wheels/."}) {
    auto links = list_wheel_directory(dir);
    ASSERT_TRUE(links.has_value()) << dir;
    ASSERT_EQ(links->size(), 1u);
    EXPECT_TRUE(fs::path((*links)[0].url).is_absolute()) << (*links)[0].url;
    EXPECT_TRUE(fs::equivalent((*links)[0].url, temp.path() / "wheels" / "a-1.0-py3-none-any.whl"));
    EXPECT_EQ((*links)[0].url.find("/./"), std::string::npos) << (*links)[0].url;
  }
}

TEST(WheelDirectory, EmptyDirectoryAndSymlinkedDirectory) {
  test::TempDir temp("wheeldir");
  fs::create_directories(temp.path() / "empty");
  auto empty = list_wheel_directory((temp.path() / "empty").string());
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());

  fs::create_directories(temp.path() / "real");
  touch(temp.path() / "real" / "a-1.0-py3-none-any.whl");
  fs::create_directory_symlink("real", temp.path() / "linked");
  auto linked = list_wheel_directory((temp.path() / "linked").string());
  ASSERT_TRUE(linked.has_value());
  ASSERT_EQ(linked->size(), 1u);
  EXPECT_EQ((*linked)[0].url, (temp.path() / "linked" / "a-1.0-py3-none-any.whl").string());
}

TEST(WheelDirectory, MissingOrNotADirectoryIsAnInputError) {
  test::TempDir temp("wheeldir");
  auto missing = list_wheel_directory((temp.path() / "nope").string());
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().kind, util::ErrorKind::input);
  EXPECT_EQ(missing.error().message, "no such wheel directory");
  EXPECT_EQ(missing.error().context, (temp.path() / "nope").string());

  touch(temp.path() / "a-1.0-py3-none-any.whl");
  auto file = list_wheel_directory((temp.path() / "a-1.0-py3-none-any.whl").string());
  ASSERT_FALSE(file.has_value());
  EXPECT_EQ(file.error().kind, util::ErrorKind::input);
  EXPECT_EQ(file.error().message, "not a directory");

  fs::create_symlink("nope", temp.path() / "dangling");
  auto dangling = list_wheel_directory((temp.path() / "dangling").string());
  ASSERT_FALSE(dangling.has_value());
  EXPECT_EQ(dangling.error().kind, util::ErrorKind::input);

  EXPECT_FALSE(list_wheel_directory("").has_value());
}

}  // namespace
}  // namespace flashfit::resolve
