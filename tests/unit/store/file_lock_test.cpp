#include "store/file_lock.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "../temp_dir.hpp"
#include "util/interrupt.hpp"

namespace flashfit::store {
namespace {

using ::testing::HasSubstr;

TEST(FileLock, ExcludesAndWaitsABoundedTime) {
  flashfit::test::TempDir dir("lock");
  const auto path = dir.path() / "x.lock";
  auto held = FileLock::acquire(path, std::chrono::milliseconds(0), "x");
  ASSERT_TRUE(held) << held.error().message;
  bool told = false;
  auto second = FileLock::acquire(path, std::chrono::milliseconds(100), "the download of x.whl",
                                  [&] { told = true; });
  ASSERT_FALSE(second);
  EXPECT_TRUE(told);
  EXPECT_EQ(second.error().kind, util::ErrorKind::failed);
  EXPECT_THAT(second.error().message, HasSubstr("for the lock on the download of x.whl"));
  EXPECT_THAT(second.error().hint, HasSubstr("another flashfit process"));
  EXPECT_FALSE(FileLock::remove_if_unused(path));  // busy

  // Released by moving out and destroying: the next one gets it.
  { FileLock moved = std::move(*held); }
  EXPECT_TRUE(FileLock::acquire(path, std::chrono::milliseconds(0), "x"));
}

TEST(FileLock, AWaiterGetsItWhenReleased) {
  flashfit::test::TempDir dir("lock");
  const auto path = dir.path() / "x.lock";
  auto held =
      std::make_unique<FileLock>(*FileLock::acquire(path, std::chrono::milliseconds(0), "x"));
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    held.reset();
  });
  auto waited = FileLock::acquire(path, std::chrono::seconds(30), "x");
  releaser.join();
  EXPECT_TRUE(waited);
}

TEST(FileLock, UnusedLockFilesCanBeRemoved) {
  flashfit::test::TempDir dir("lock");
  const auto path = dir.path() / "x.lock";
  { ASSERT_TRUE(FileLock::acquire(path, std::chrono::milliseconds(0), "x")); }
  EXPECT_TRUE(FileLock::remove_if_unused(path));
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(FileLock::remove_if_unused(path));  // absent
}

TEST(FileLock, CtrlCStopsTheWait) {
  flashfit::test::TempDir dir("lock");
  const auto path = dir.path() / "x.lock";
  auto held = FileLock::acquire(path, std::chrono::milliseconds(0), "x");
  ASSERT_TRUE(held);
  util::set_interrupted(true);
  auto waited = FileLock::acquire(path, std::chrono::hours(1), "x");
  util::set_interrupted(false);
  ASSERT_FALSE(waited);
  EXPECT_EQ(waited.error().kind, util::ErrorKind::interrupted);
}

TEST(FileLock, AnUnopenableLockFileIsAClearError) {
  auto lock = FileLock::acquire("/nonexistent-dir/x.lock", std::chrono::milliseconds(0), "x");
  ASSERT_FALSE(lock);
  EXPECT_THAT(lock.error().message, HasSubstr("cannot open the lock file for x"));
}

}  // namespace
}  // namespace flashfit::store
