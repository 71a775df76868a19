#include "util/files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include "../temp_dir.hpp"

namespace flashfit::util {
namespace {

namespace fs = std::filesystem;

// The shared temp dir, plus the file and directory makers these tests use.
class TempDir : public flashfit::test::TempDir {
 public:
  TempDir() : flashfit::test::TempDir("files") {}
  std::string str(const std::string& rel) const { return (path() / rel).string(); }

  fs::path file(const std::string& rel, mode_t mode) const {
    fs::path p = path() / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "#!/bin/sh\n";
    ::chmod(p.c_str(), mode);
    return p;
  }
  fs::path dir(const std::string& rel) const {
    fs::create_directories(path() / rel);
    return path() / rel;
  }
};

using flashfit::test::InDirectory;

// ---------------------------------------------------------------------------
// is_executable_file

TEST(IsExecutableFile, RegularFilesWithAnExecuteBit) {
  TempDir tmp;
  EXPECT_TRUE(is_executable_file(tmp.file("rwx", 0755)));
  // access(X_OK): root needs any x bit; others need the bit of their class.
  EXPECT_EQ(is_executable_file(tmp.file("x-only-other", 0641)), ::geteuid() == 0);
  EXPECT_FALSE(is_executable_file(tmp.file("rw", 0644)));
  EXPECT_FALSE(is_executable_file(tmp.file("none", 0)));
  EXPECT_TRUE(is_executable_file("/bin/sh"));
}

TEST(IsExecutableFile, NotRegularFiles) {
  TempDir tmp;
  const auto dir = tmp.dir("a-directory");
  ::chmod(dir.c_str(), 0755);
  EXPECT_FALSE(is_executable_file(dir));
  EXPECT_FALSE(is_executable_file(tmp.str("missing")));
  EXPECT_FALSE(is_executable_file(""));
  EXPECT_FALSE(is_executable_file("/dev/null"));
  tmp.file("f", 0755);
  EXPECT_FALSE(is_executable_file(tmp.str("f/below-a-file")));  // ENOTDIR
  EXPECT_FALSE(is_executable_file(std::string(5000, 'x')));     // ENAMETOOLONG, no throw
}

TEST(IsExecutableFile, SymlinksAreFollowed) {
  TempDir tmp;
  const auto target = tmp.file("target", 0755);
  fs::create_symlink(target, tmp.path() / "link");
  fs::create_symlink(tmp.path() / "nowhere", tmp.path() / "dangling");
  fs::create_symlink("loop", tmp.path() / "loop");
  fs::create_symlink(tmp.dir("d"), tmp.path() / "to-dir");
  EXPECT_TRUE(is_executable_file(tmp.path() / "link"));
  EXPECT_FALSE(is_executable_file(tmp.path() / "dangling"));
  EXPECT_FALSE(is_executable_file(tmp.path() / "loop"));
  EXPECT_FALSE(is_executable_file(tmp.path() / "to-dir"));
}

// ---------------------------------------------------------------------------
// find_on_path

TEST(FindOnPath, FirstExecutableInPathOrder) {
  TempDir tmp;
  tmp.file("a/tool", 0755);
  tmp.file("b/tool", 0755);
  EXPECT_EQ(find_on_path("tool", tmp.str("a") + ":" + tmp.str("b")), tmp.path() / "a/tool");
  EXPECT_EQ(find_on_path("tool", tmp.str("b") + ":" + tmp.str("a")), tmp.path() / "b/tool");
}

TEST(FindOnPath, SkipsWhatCannotRun) {
  TempDir tmp;
  tmp.file("not-exec/tool", 0644);
  tmp.dir("is-dir/tool");
  tmp.dir("dangling");
  fs::create_symlink(tmp.path() / "nowhere", tmp.path() / "dangling/tool");
  tmp.file("good/tool", 0755);
  const std::string path = tmp.str("missing-dir") + ":" + tmp.str("not-exec") + ":" +
                           tmp.str("is-dir") + ":" + tmp.str("dangling") + ":" + tmp.str("good");
  EXPECT_EQ(find_on_path("tool", path), tmp.path() / "good/tool");
  EXPECT_EQ(find_on_path("tool", tmp.str("not-exec") + ":" + tmp.str("is-dir")), std::nullopt);
}

TEST(FindOnPath, EmptyEntriesMeanTheWorkingDirectory) {
  TempDir tmp;
  tmp.file("tool", 0755);
  tmp.dir("empty");
  InDirectory in(tmp.path());
  const auto elsewhere = tmp.str("empty");
  for (const std::string& path : {std::string(""), std::string(":"), ":" + elsewhere,
                                  elsewhere + ":", elsewhere + "::" + elsewhere}) {
    const auto found = find_on_path("tool", path);
    ASSERT_TRUE(found.has_value()) << "PATH='" << path << "'";
    EXPECT_EQ(*found, fs::path("./tool")) << "PATH='" << path << "'";
    EXPECT_TRUE(is_executable_file(*found));
  }
  EXPECT_EQ(find_on_path("tool", elsewhere), std::nullopt);
  EXPECT_EQ(find_on_path("tool", std::string(10000, ':')), fs::path("./tool"));
}

TEST(FindOnPath, RelativeEntriesStayRelative) {
  TempDir tmp;
  tmp.file("bin/tool", 0755);
  InDirectory in(tmp.path());
  EXPECT_EQ(find_on_path("tool", "bin"), fs::path("bin/tool"));
  EXPECT_EQ(find_on_path("tool", "./bin"), fs::path("./bin/tool"));
}

TEST(FindOnPath, NamesWithASlashOrEmptyAreNotLookedUp) {
  TempDir tmp;
  tmp.file("bin/tool", 0755);
  tmp.file("sub/bin/tool", 0755);
  const auto path = tmp.str("") + ":" + tmp.str("sub");
  EXPECT_EQ(find_on_path("bin/tool", path), std::nullopt);
  EXPECT_EQ(find_on_path("/bin/sh", "/usr/bin:/bin"), std::nullopt);
  EXPECT_EQ(find_on_path("./tool", tmp.str("bin")), std::nullopt);
  EXPECT_EQ(find_on_path("", tmp.str("bin")), std::nullopt);
  EXPECT_EQ(find_on_path("tool/", tmp.str("bin")), std::nullopt);
}

TEST(FindOnPath, SpecialNamesAndEntries) {
  TempDir tmp;
  tmp.file("bin/tool", 0755);
  // "." and ".." as names resolve to directories, never to a program.
  EXPECT_EQ(find_on_path(".", tmp.str("bin")), std::nullopt);
  EXPECT_EQ(find_on_path("..", tmp.str("bin")), std::nullopt);
  // Spaces and odd bytes in entries are just characters.
  tmp.file("with space/tool2", 0755);
  EXPECT_EQ(find_on_path("tool2", tmp.str("with space")), tmp.path() / "with space/tool2");
  EXPECT_EQ(find_on_path("sh", "/nonexistent:/bin"), fs::path("/bin/sh"));
}

}  // namespace
}  // namespace flashfit::util
