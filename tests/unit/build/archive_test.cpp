#include "build/archive.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <random>

#include "../temp_dir.hpp"
#include "archive_writer.hpp"
#include "build/source_archive_path.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;
using test::ArchiveFormat;
using test::ArchiveItem;
using ::testing::HasSubstr;

std::string random_bytes(std::size_t size, unsigned seed) {
  std::mt19937 gen(seed);
  std::string out(size, '\0');
  for (char& c : out) c = static_cast<char>(gen() & 0xff);
  return out;
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

mode_t perm_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

std::vector<ArchiveItem> sdist_items() {
  return {
      test::dir_item("pkg-1.0/"),
      test::file_item("pkg-1.0/setup.py", "print('setup')\n"),
      test::file_item("pkg-1.0/build.sh", "#!/bin/sh\necho hi\n", 0755),
      test::file_item("pkg-1.0/tool", "suid\n", 04755),
      test::file_item("pkg-1.0/csrc/kernel.cu", "__global__ void k() {}\n"),
      test::symlink_item("pkg-1.0/csrc/kernel_link.cu", "kernel.cu"),
      test::symlink_item("pkg-1.0/csrc/setup_link.py", "../setup.py"),
      test::hardlink_item("pkg-1.0/setup_copy.py", "pkg-1.0/setup.py"),
  };
}

class ArchiveTest : public ::testing::Test {
 protected:
  // The archive lives in its own directory; `out` is where it is unpacked
  // from, so that "nothing left behind" is a plain listing.
  fs::path archive(const std::string& name) { return dir_.path() / name; }
  fs::path out() const { return dir_.path() / "out"; }
  fs::path destination() const { return out() / "tree"; }

  void SetUp() override { fs::create_directories(out()); }

  // The extraction failed as input, said `words`, and left nothing at all.
  void expect_refused(const fs::path& file, const std::string& words,
                      const ExtractLimits& limits = {}) {
    auto result = extract_archive(file, destination(), limits);
    ASSERT_FALSE(result) << "extracted to " << result->string();
    EXPECT_EQ(result.error().kind, util::ErrorKind::input) << result.error().message;
    EXPECT_THAT(result.error().message, HasSubstr(words));
    EXPECT_THAT(result.error().context, HasSubstr(file.filename().string()));
    EXPECT_TRUE(listing(out()).empty()) << "left behind: " << listing(out()).front();
  }

  test::TempDir dir_{"archive"};
};

TEST_F(ArchiveTest, UnpacksEveryFormatWithModesAndLinks) {
  for (auto [format, name] : {std::pair{ArchiveFormat::tar_gz, "pkg-1.0.tar.gz"},
                              std::pair{ArchiveFormat::tar_bz2, "pkg-1.0.tar.bz2"},
                              std::pair{ArchiveFormat::tar_xz, "pkg-1.0.tar.xz"}}) {
    SCOPED_TRACE(name);
    fs::remove_all(destination());
    test::write_archive(archive(name), format, sdist_items());
    auto root = extract_archive(archive(name), destination());
    ASSERT_TRUE(root) << root.error().message;
    EXPECT_EQ(*root, destination() / "pkg-1.0");
    EXPECT_EQ(test::read_bytes(*root / "setup.py"), "print('setup')\n");
    EXPECT_EQ(perm_of(*root / "build.sh"), 0755u);
    EXPECT_EQ(perm_of(*root / "setup.py"), 0644u);
    EXPECT_EQ(perm_of(*root / "tool"), 0755u) << "setuid must be stripped";
    EXPECT_EQ(fs::read_symlink(*root / "csrc/kernel_link.cu"), "kernel.cu");
    EXPECT_EQ(test::read_bytes(*root / "csrc/setup_link.py"), "print('setup')\n");
    EXPECT_EQ(fs::hard_link_count(*root / "setup.py"), 2u);
    EXPECT_EQ(test::read_bytes(*root / "setup_copy.py"), "print('setup')\n");
    struct stat st {};
    ASSERT_EQ(::stat((*root / "setup.py").c_str(), &st), 0);
    EXPECT_EQ(st.st_mtime, 1700000000) << "the archive's mtime is restored";
    // Only the destination: no temp dir beside it.
    EXPECT_EQ(listing(out()), std::vector<std::string>{"tree"});
  }
}

TEST_F(ArchiveTest, UnpacksZipAndKeepsTheExecutableBit) {
  test::write_archive(archive("pkg-1.0.zip"), ArchiveFormat::zip,
                      {test::file_item("pkg-1.0/setup.py", "x = 1\n"),
                       test::file_item("pkg-1.0/scripts/run.sh", "#!/bin/sh\n", 0755),
                       test::symlink_item("pkg-1.0/run", "scripts/run.sh")});
  auto root = extract_archive(archive("pkg-1.0.zip"), destination());
  ASSERT_TRUE(root) << root.error().message;
  EXPECT_EQ(*root, destination() / "pkg-1.0");
  EXPECT_EQ(test::read_bytes(*root / "setup.py"), "x = 1\n");
  EXPECT_EQ(perm_of(*root / "scripts/run.sh"), 0755u);
  EXPECT_EQ(fs::read_symlink(*root / "run"), "scripts/run.sh");
}

TEST_F(ArchiveTest, WithoutOneTopLevelDirectoryTheRootIsTheDestination) {
  test::write_archive(
      archive("flat.tar.gz"), ArchiveFormat::tar_gz,
      {test::file_item("./setup.py", "a\n"), test::file_item("./src/a.cpp", "b\n")});
  auto root = extract_archive(archive("flat.tar.gz"), destination());
  ASSERT_TRUE(root) << root.error().message;
  EXPECT_EQ(*root, destination());
  EXPECT_EQ(test::read_bytes(destination() / "src/a.cpp"), "b\n");

  // One top-level file is no top-level directory either.
  test::write_archive(archive("one.tar.gz"), ArchiveFormat::tar_gz,
                      {test::file_item("setup.py", "a\n")});
  auto single = extract_archive(archive("one.tar.gz"), out() / "single");
  ASSERT_TRUE(single) << single.error().message;
  EXPECT_EQ(*single, out() / "single");
}

TEST_F(ArchiveTest, ALaterEntryReplacesAnEarlierFileButNotADirectory) {
  test::write_archive(archive("dup.tar"), ArchiveFormat::tar,
                      {test::file_item("p/a.txt", "old\n"), test::file_item("p/a.txt", "new\n")});
  auto root = extract_archive(archive("dup.tar"), destination());
  ASSERT_TRUE(root) << root.error().message;
  EXPECT_EQ(test::read_bytes(*root / "a.txt"), "new\n");

  fs::remove_all(destination());
  test::write_archive(archive("dir-then-file.tar"), ArchiveFormat::tar,
                      {test::file_item("p/d/x", "x\n"), test::file_item("p/d", "file over dir\n")});
  expect_refused(archive("dir-then-file.tar"), "would replace a directory");
}

TEST_F(ArchiveTest, RefusesZipSlipInTarAndZip) {
  const fs::path victim = dir_.path() / "evil.txt";
  test::write_archive(
      archive("slip.tar.gz"), ArchiveFormat::tar_gz,
      {test::file_item("pkg/setup.py", "a\n"), test::file_item("pkg/../../evil.txt", "pwned\n")});
  expect_refused(archive("slip.tar.gz"), "'..' component");
  test::write_archive(archive("slip.zip"), ArchiveFormat::zip,
                      {test::file_item("../evil.txt", "pwned\n")});
  expect_refused(archive("slip.zip"), "'..' component");
  EXPECT_FALSE(fs::exists(victim));
}

TEST_F(ArchiveTest, RefusesAbsolutePaths) {
  const fs::path victim = dir_.path() / "absolute-victim.txt";
  test::write_archive(archive("abs.tar.gz"), ArchiveFormat::tar_gz,
                      {test::file_item(victim.string(), "pwned\n")});
  expect_refused(archive("abs.tar.gz"), "absolute path");
  EXPECT_FALSE(fs::exists(victim));
}

TEST_F(ArchiveTest, RefusesASymlinkOutAndTheFileWrittenThroughIt) {
  const fs::path victim_dir = dir_.path() / "victim";
  fs::create_directories(victim_dir);
  test::write_archive(archive("link-out.tar.gz"), ArchiveFormat::tar_gz,
                      {test::dir_item("pkg/"), test::symlink_item("pkg/escape", "../../victim"),
                       test::file_item("pkg/escape/owned.txt", "pwned\n")});
  expect_refused(archive("link-out.tar.gz"), "points outside the archive");
  EXPECT_FALSE(fs::exists(victim_dir / "owned.txt"));

  test::write_archive(archive("link-abs.tar.gz"), ArchiveFormat::tar_gz,
                      {test::symlink_item("pkg/etc", victim_dir.string())});
  expect_refused(archive("link-abs.tar.gz"), "absolute path");

  test::write_archive(archive("link-out.zip"), ArchiveFormat::zip,
                      {test::symlink_item("pkg/escape", "../../victim")});
  expect_refused(archive("link-out.zip"), "points outside the archive");
}

TEST_F(ArchiveTest, RefusesALinkThatLeadsOutOnlyThroughAnotherLink) {
  // Read as written "b/../../x" from pkg/ stays at the top; but b is pkg
  // itself, so the kernel would resolve it one level above the tree.
  test::write_archive(archive("chain.tar.gz"), ArchiveFormat::tar_gz,
                      {test::dir_item("pkg/"), test::symlink_item("pkg/b", "."),
                       test::symlink_item("pkg/a", "b/../../x")});
  expect_refused(archive("chain.tar.gz"), "does not resolve inside the archive");

  // A loop is not followed forever.
  test::write_archive(archive("loop.tar.gz"), ArchiveFormat::tar_gz,
                      {test::symlink_item("pkg/l1", "l2"), test::symlink_item("pkg/l2", "l1")});
  expect_refused(archive("loop.tar.gz"), "does not resolve inside the archive");
}

TEST_F(ArchiveTest, NeverWritesThroughALinkEvenOneInside) {
  test::write_archive(archive("through.tar.gz"), ArchiveFormat::tar_gz,
                      {test::dir_item("pkg/sub/"), test::symlink_item("pkg/l", "sub"),
                       test::file_item("pkg/l/f.txt", "x\n")});
  expect_refused(archive("through.tar.gz"), "goes through the symbolic link 'pkg/l'");
}

TEST_F(ArchiveTest, RefusesHardLinksOutOfTheTreeOrToNothing) {
  const fs::path victim = dir_.path() / "secret.txt";
  test::write_bytes(victim, "secret\n");
  test::write_archive(
      archive("hard-out.tar"), ArchiveFormat::tar,
      {test::file_item("pkg/setup.py", "a\n"), test::hardlink_item("pkg/secret", "../secret.txt")});
  expect_refused(archive("hard-out.tar"), "hard link");
  test::write_archive(archive("hard-abs.tar"), ArchiveFormat::tar,
                      {test::hardlink_item("pkg/secret", victim.string())});
  expect_refused(archive("hard-abs.tar"), "hard link");
  test::write_archive(
      archive("hard-missing.tar"), ArchiveFormat::tar,
      {test::file_item("pkg/setup.py", "a\n"), test::hardlink_item("pkg/x", "pkg/missing.py")});
  expect_refused(archive("hard-missing.tar"), "not a file of the archive");
  // Through a link to a file of the tree is still not "a file of the archive".
  test::write_archive(archive("hard-via-link.tar"), ArchiveFormat::tar,
                      {test::file_item("pkg/real/f", "a\n"), test::symlink_item("pkg/l", "real"),
                       test::hardlink_item("pkg/x", "pkg/l/f")});
  expect_refused(archive("hard-via-link.tar"), "not a file of the archive");
  EXPECT_EQ(test::read_bytes(victim), "secret\n");
}

TEST_F(ArchiveTest, RefusesDevicesAndFifos) {
  test::write_archive(
      archive("dev.tar.gz"), ArchiveFormat::tar_gz,
      {test::file_item("pkg/setup.py", "a\n"), ArchiveItem{"pkg/null", 'c', {}, {}, 0666}});
  expect_refused(archive("dev.tar.gz"), "device file");
  test::write_archive(archive("fifo.tar.gz"), ArchiveFormat::tar_gz,
                      {ArchiveItem{"pkg/pipe", 'p', {}, {}, 0644}});
  expect_refused(archive("fifo.tar.gz"), "FIFO");
}

TEST_F(ArchiveTest, RefusesAHugeDeclaredSizeBeforeReadingIt) {
  // 8 GiB declared, nothing behind it: refused from the header alone.
  test::write_bytes(archive("huge.tar"), test::ustar_header("pkg/huge.bin", 077777777777ULL));
  expect_refused(archive("huge.tar"), "declares 8589934591 bytes");
}

TEST_F(ArchiveTest, RefusesAFileOverTheEntryLimit) {
  test::write_archive(archive("big.tar.gz"), ArchiveFormat::tar_gz,
                      {test::file_item("pkg/big.bin", std::string(64 * 1024, 'x'))});
  ExtractLimits limits;
  limits.max_entry_bytes = 1024;
  expect_refused(archive("big.tar.gz"), "over the limit of 1024", limits);
}

TEST_F(ArchiveTest, RefusesABombOverTheTotalCountingWrittenBytes) {
  // Each file is under the one-file limit; together they are over the total.
  std::vector<ArchiveItem> items;
  for (int i = 0; i < 8; ++i)
    items.push_back(test::file_item(fmt::format("bomb/z{}", i), std::string(512 * 1024, '\0')));
  test::write_archive(archive("bomb.tar.gz"), ArchiveFormat::tar_gz, items);
  EXPECT_LT(fs::file_size(archive("bomb.tar.gz")), 64u * 1024)
      << "the test wants a small archive that unpacks big";
  ExtractLimits limits;
  limits.max_entry_bytes = 1u << 20;
  limits.max_total_bytes = 2u << 20;
  expect_refused(archive("bomb.tar.gz"), "more than 2097152 bytes", limits);
  limits.max_total_bytes = 4u << 20;
  EXPECT_TRUE(extract_archive(archive("bomb.tar.gz"), destination(), limits));
}

TEST_F(ArchiveTest, RefusesMoreEntriesThanTheLimit) {
  std::vector<ArchiveItem> items;
  for (int i = 0; i < 30; ++i) items.push_back(test::file_item(fmt::format("pkg/f{}", i), "x"));
  test::write_archive(archive("many.zip"), ArchiveFormat::zip, items);
  ExtractLimits limits;
  limits.max_entries = 20;
  expect_refused(archive("many.zip"), "more than 20 entries", limits);
  limits.max_entries = 30;
  EXPECT_TRUE(extract_archive(archive("many.zip"), destination(), limits));
}

TEST_F(ArchiveTest, AnEmptyArchiveIsAnInputError) {
  test::write_archive(archive("empty.tar.gz"), ArchiveFormat::tar_gz, {});
  expect_refused(archive("empty.tar.gz"), "empty");
  test::write_archive(archive("dot.tar.gz"), ArchiveFormat::tar_gz, {test::dir_item("./")});
  expect_refused(archive("dot.tar.gz"), "empty");
  test::write_bytes(archive("zero.tar.gz"), "");
  auto result = extract_archive(archive("zero.tar.gz"), destination());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, util::ErrorKind::input);
  EXPECT_TRUE(listing(out()).empty());
}

TEST_F(ArchiveTest, TruncatedArchivesAreInputErrorsNamingTheArchive) {
  std::vector<ArchiveItem> items = {test::file_item("pkg/setup.py", "a\n"),
                                    test::file_item("pkg/data.bin", random_bytes(200 * 1024, 7))};
  for (auto [format, name] :
       {std::pair{ArchiveFormat::tar_gz, "cut.tar.gz"}, std::pair{ArchiveFormat::tar, "cut.tar"},
        std::pair{ArchiveFormat::zip, "cut.zip"}, std::pair{ArchiveFormat::tar_xz, "cut.tar.xz"}}) {
    SCOPED_TRACE(name);
    test::write_archive(archive(name), format, items);
    std::string bytes = test::read_bytes(archive(name));
    test::write_bytes(archive(name), bytes.substr(0, bytes.size() / 2));
    auto result = extract_archive(archive(name), destination());
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().kind, util::ErrorKind::input) << result.error().message;
    EXPECT_THAT(result.error().context, HasSubstr(name));
    EXPECT_FALSE(result.error().hint.empty());
    EXPECT_TRUE(listing(out()).empty());
  }
}

TEST_F(ArchiveTest, RandomBytesAreInputErrors) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    test::write_bytes(archive("noise.tar.gz"), random_bytes(4096 * seed, seed));
    auto result = extract_archive(archive("noise.tar.gz"), destination());
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().kind, util::ErrorKind::input) << result.error().message;
    EXPECT_THAT(result.error().message, HasSubstr("cannot read the archive"));
    EXPECT_TRUE(listing(out()).empty());
  }
}

TEST_F(ArchiveTest, TheDestinationMustNotExistAndItsParentMust) {
  test::write_archive(archive("ok.tar.gz"), ArchiveFormat::tar_gz,
                      {test::file_item("p/setup.py", "a\n")});
  fs::create_directories(destination());
  test::write_bytes(destination() / "keep.txt", "mine\n");
  auto exists = extract_archive(archive("ok.tar.gz"), destination());
  ASSERT_FALSE(exists);
  EXPECT_THAT(exists.error().message, HasSubstr("already exists"));
  EXPECT_EQ(test::read_bytes(destination() / "keep.txt"), "mine\n");

  auto no_parent = extract_archive(archive("ok.tar.gz"), out() / "missing" / "tree");
  ASSERT_FALSE(no_parent);
  EXPECT_THAT(no_parent.error().message, HasSubstr("does not exist"));

  auto no_archive = extract_archive(archive("missing.tar.gz"), out() / "t2");
  ASSERT_FALSE(no_archive);
  EXPECT_EQ(no_archive.error().kind, util::ErrorKind::input);
}

TEST(ArchiveNames, SourceArchiveExtensions) {
  for (const char* yes :
       {"flash_attn-2.8.3.tar.gz", "x.tgz", "x.tar.bz2", "x.tar.xz", "x.zip", "X.TAR.GZ"}) {
    EXPECT_TRUE(is_source_archive_name(yes)) << yes;
  }
  for (const char* no : {"x.whl", "x.tar", "x.gz", ".tar.gz", "", "x.tar.gz.part", "x.tar.zst"}) {
    EXPECT_FALSE(is_source_archive_name(no)) << no;
  }
}

TEST(ArchivePaths, SplitsAndRefusesHostileNames) {
  auto parts = detail::split_entry_path("./pkg//src/./a.cu");
  ASSERT_TRUE(parts);
  EXPECT_EQ(*parts, (std::vector<std::string>{"pkg", "src", "a.cu"}));
  auto root = detail::split_entry_path("./");
  ASSERT_TRUE(root);
  EXPECT_TRUE(root->empty());
  for (std::string bad : {std::string(""), std::string("/etc/passwd"), std::string("a/../../b"),
                          std::string(".."), std::string("a\0b", 3), std::string(300, 'x')}) {
    EXPECT_FALSE(detail::split_entry_path(bad)) << bad;
  }
}

TEST(ArchivePaths, LinkTargetsReadAsWritten) {
  EXPECT_TRUE(detail::check_link_target({"pkg", "csrc"}, "../setup.py"));
  EXPECT_TRUE(detail::check_link_target({"pkg"}, "../pkg/./x"));
  EXPECT_TRUE(detail::check_link_target({"pkg"}, ".."));  // the root itself
  EXPECT_FALSE(detail::check_link_target({"pkg"}, "../.."));
  EXPECT_FALSE(detail::check_link_target({}, "../x"));
  EXPECT_FALSE(detail::check_link_target({"pkg"}, "/etc"));
  EXPECT_FALSE(detail::check_link_target({"pkg"}, ""));
  EXPECT_FALSE(detail::check_link_target({"a", "b"}, "x/../../../../y"));
}

}  // namespace
}  // namespace flashfit::build
