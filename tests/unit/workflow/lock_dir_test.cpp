// A lock directory on disk: lock --dir for two environments keeps both, an
// index it cannot read is never overwritten, and install --lock's choice
// (select_lock) for a directory and for a file.
#include "workflow/lock_dir.hpp"

#include <gtest/gtest.h>

#include <string>

#include "../temp_dir.hpp"
#include "workflow/install_lock.hpp"

namespace flashfit::workflow {
namespace {

namespace fs = std::filesystem;

LockKey key_with(std::string gpus) {
  LockKey key;
  key.python = "cp311";
  key.platform = "manylinux_2_36_x86_64";
  key.torch = "2.8.0+cu128";
  key.cuda = "12.8";
  key.cxx11_abi = "true";
  key.gpu_archs = std::move(gpus);
  return key;
}

std::string lock_text(const LockKey& key) {
  LockDocument document;
  document.key = key;
  document.flashfit.push_back({"flash-attn", "2.8.3", "https://h/fa-" + *key.gpu_archs + ".whl",
                               std::string(64, 'a'), "flashfit's pick"});
  return render_lock(document);
}

TEST(LockDir, TwoEnvironmentsTwoFilesOneIndex) {
  test::TempDir temp("lockdir");
  const fs::path dir = temp.path() / "locks";  // created on first use
  auto first = write_lock_into(dir, key_with("sm_80"), lock_text(key_with("sm_80")));
  ASSERT_TRUE(first) << first.error().message;
  auto second = write_lock_into(dir, key_with("sm_90"), lock_text(key_with("sm_90")));
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(*first, dir / lock_file_name(key_with("sm_80")));
  EXPECT_TRUE(fs::is_regular_file(*first));
  EXPECT_TRUE(fs::is_regular_file(*second));
  auto index = read_lock_index(dir);
  ASSERT_TRUE(index) << index.error().message;
  ASSERT_EQ(index->size(), 2U);
  EXPECT_EQ((*index)[0].key, key_with("sm_80"));
  EXPECT_EQ((*index)[1].file, second->filename().string());

  auto chosen = select_lock(dir, key_with("sm_90"));
  ASSERT_TRUE(chosen) << chosen.error().message;
  ASSERT_TRUE(chosen->lock);
  EXPECT_EQ(chosen->file, *second);
  EXPECT_EQ(chosen->lock->document.flashfit.front().url, "https://h/fa-sm_90.whl");

  auto none = select_lock(dir, key_with("sm_89"));
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->lock);
  ASSERT_EQ(none->mismatches.size(), 2U);
  EXPECT_EQ(none->mismatches[0].differences.front().describe(),
            "gpu-archs: locked sm_80, here sm_89");

  // One file: its header decides.
  auto file = select_lock(*first, key_with("sm_90"));
  ASSERT_TRUE(file);
  EXPECT_FALSE(file->lock);
  ASSERT_EQ(file->mismatches.size(), 1U);
  EXPECT_EQ(file->mismatches[0].file, first->string());
  EXPECT_TRUE(select_lock(*first, key_with("sm_80"))->lock);
}

TEST(LockDir, NeverOverwritesAnIndexItCannotRead) {
  test::TempDir temp("lockdir");
  test::write(temp.path() / "flashfit-locks.json", "{\"flashfit-locks\": 3}");
  auto refused = write_lock_into(temp.path(), key_with("sm_80"), lock_text(key_with("sm_80")));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("format 3"), std::string::npos);
  EXPECT_EQ(test::read(temp.path() / "flashfit-locks.json"), "{\"flashfit-locks\": 3}");
  EXPECT_FALSE(fs::exists(temp.path() / lock_file_name(key_with("sm_80"))));
}

TEST(LockDir, AnIndexThatDisagreesWithItsFileIsRefused) {
  test::TempDir temp("lockdir");
  ASSERT_TRUE(write_lock_into(temp.path(), key_with("sm_80"), lock_text(key_with("sm_80"))));
  // The file rewritten by hand for another GPU, the index left as it was.
  test::write(temp.path() / lock_file_name(key_with("sm_80")), lock_text(key_with("sm_90")));
  auto refused = select_lock(temp.path(), key_with("sm_80"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, util::ErrorKind::input);
  EXPECT_NE(refused.error().message.find("(gpu-archs)"), std::string::npos)
      << refused.error().message;
}

// install --lock (a directory or a file) where torch is unknown, as in the
// lock's header: nothing proves the lock's torch is this one.
TEST(LockDir, AFactUnknownHereAndInTheLockNeverFits) {
  test::TempDir temp("lockdir");
  LockKey unknown = key_with("sm_80");
  unknown.torch.reset();
  ASSERT_TRUE(write_lock_into(temp.path(), unknown, lock_text(unknown)));
  for (const fs::path& path : {temp.path(), temp.path() / lock_file_name(unknown)}) {
    auto selection = select_lock(path, unknown);
    ASSERT_TRUE(selection) << selection.error().message;
    EXPECT_FALSE(selection->lock) << path;
    ASSERT_EQ(selection->mismatches.size(), 1u) << path;
    ASSERT_EQ(selection->mismatches[0].differences.size(), 1u) << path;
    EXPECT_EQ(
        selection->mismatches[0].differences[0].describe(),
        "torch: locked unknown, here unknown (an unknown fact never matches: lock again where it "
        "can be read)");
  }
}

TEST(LockDir, MissingPathsAreInputErrors) {
  test::TempDir temp("lockdir");
  auto no_index = select_lock(temp.path(), key_with("sm_80"));
  ASSERT_FALSE(no_index);
  EXPECT_NE(no_index.error().message.find("no flashfit-locks.json"), std::string::npos);
  auto no_file = select_lock(temp.path() / "nowhere.txt", key_with("sm_80"));
  ASSERT_FALSE(no_file);
  EXPECT_EQ(no_file.error().kind, util::ErrorKind::input);
}

}  // namespace
}  // namespace flashfit::workflow
