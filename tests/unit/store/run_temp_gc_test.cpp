// The work directories killed runs leave in <cache>/tmp/: their names, the
// pure decision, and gc_run_temps on a real directory with a fabricated /proc.
#include "store/run_temp_gc.hpp"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "../temp_dir.hpp"

namespace flashfit::store::test {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr std::time_t kNow = 1'800'000'000;
constexpr std::time_t kDay = 24 * 3600;
constexpr std::time_t kKeep = 30 * kDay;

RunTempFacts run_dir(std::string name, OwnerState owner, std::time_t age) {
  RunTempFacts facts;
  facts.name = std::move(name);
  facts.is_directory = true;
  facts.modified = kNow - age;
  facts.owner = owner;
  return facts;
}

TEST(RunTempName, ThePidOfEachRunDirectoryName) {
  EXPECT_EQ(run_temp_owner_pid("install-123"), 123);
  EXPECT_EQ(run_temp_owner_pid("install-r-77"), 77);
  EXPECT_EQ(run_temp_owner_pid("lock-9"), 9);
  EXPECT_EQ(run_temp_owner_pid("calibration-2147483647"), 2147483647);
  EXPECT_EQ(run_temp_owner_pid("build-4242-20261124T120000-0"), 4242);
}

TEST(RunTempName, OtherNamesAreNotRunDirectories) {
  for (const char* name : {"",
                           "install",
                           "install-",
                           "install-0",
                           "install-012",
                           "install--5",
                           "install-+5",
                           "install-2147483648",
                           "install-99999999999",
                           "install-12x",
                           "lock-1.5",
                           "build-12",
                           "build-12-",
                           "build-x-1-0",
                           "build--1-0",
                           "entry-Ab12Cd",
                           "add-XXXXXX",
                           "removed-abc",
                           "flashfit-wheel-1",
                           "1234",
                           "Install-12",
                           "install-r-",
                           "calibration-12 "}) {
    EXPECT_EQ(run_temp_owner_pid(name), std::nullopt) << name;
  }
}

TEST(RunTempDecision, EveryCase) {
  EXPECT_EQ(decide_run_temp(run_dir("build-5-t-0", OwnerState::gone, 2 * kKeep), kNow, kKeep),
            RunTempVerdict::reclaim_owner_gone);
  EXPECT_EQ(decide_run_temp(run_dir("lock-5", OwnerState::other, 2 * kKeep), kNow, kKeep),
            RunTempVerdict::reclaim_pid_reused);
  EXPECT_EQ(decide_run_temp(run_dir("lock-5", OwnerState::flashfit, 2 * kKeep), kNow, kKeep),
            RunTempVerdict::keep_owner_running);
  EXPECT_EQ(decide_run_temp(run_dir("lock-5", OwnerState::unknown, 2 * kKeep), kNow, kKeep),
            RunTempVerdict::keep_owner_unknown);
  EXPECT_EQ(decide_run_temp(run_dir("lock-5", OwnerState::gone, kDay), kNow, kKeep),
            RunTempVerdict::keep_recent);
  EXPECT_EQ(decide_run_temp(run_dir("lock-5", OwnerState::gone, -kDay), kNow, 0),
            RunTempVerdict::keep_recent);  // in the future
  EXPECT_EQ(decide_run_temp(run_dir("lock-5", OwnerState::gone, 0), kNow, 0),
            RunTempVerdict::reclaim_owner_gone);  // --keep-days 0
  EXPECT_EQ(decide_run_temp(run_dir("mine-5x", OwnerState::gone, 2 * kKeep), kNow, kKeep),
            RunTempVerdict::keep_unknown_name);
  auto file = run_dir("install-5", OwnerState::gone, 2 * kKeep);
  file.is_directory = false;
  EXPECT_EQ(decide_run_temp(file, kNow, kKeep), RunTempVerdict::keep_not_directory);
  EXPECT_TRUE(reclaims(RunTempVerdict::reclaim_pid_reused));
  EXPECT_FALSE(reclaims(RunTempVerdict::keep_recent));
}

void make_dir(const fs::path& path, std::time_t age, std::size_t bytes) {
  fs::create_directories(path / "sub");
  std::ofstream(path / "sub" / "o", std::ios::binary) << std::string(bytes, 'x');
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = std::time(nullptr) - age;
  times[0].tv_nsec = times[1].tv_nsec = 0;
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW), 0);
}

TEST(RunTempGc, ReclaimsOnlyOldDirectoriesOfRunsThatAreGone) {
  flashfit::test::TempDir temp{"run-temp-gc"};
  const fs::path proc = temp.path() / "proc";
  fs::create_directories(proc / "self");
  fs::create_directories(proc / "200");
  std::ofstream(proc / "200" / "comm") << "flashfit\n";
  const fs::path root = temp.path() / "cache";
  fs::create_directories(root / "wheels" / "tmp");
  make_dir(root / "tmp" / "build-300-t-0", 40 * kDay, 1000);  // gone, old: reclaimed
  make_dir(root / "tmp" / "install-200", 40 * kDay, 10);      // a running flashfit: kept
  make_dir(root / "tmp" / "lock-301", kDay, 10);              // gone, recent: kept
  make_dir(root / "tmp" / "notes", 40 * kDay, 10);            // not flashfit's name: kept

  auto dry = gc_run_temps(root, std::chrono::hours(24 * 30), true, proc);
  ASSERT_EQ(dry.reclaimed.size(), 1u);
  EXPECT_EQ(dry.reclaimed.front().name, "build-300-t-0");
  EXPECT_EQ(dry.freed_bytes, 1000u);
  EXPECT_TRUE(fs::exists(root / "tmp" / "build-300-t-0"));

  auto done = gc_run_temps(root, std::chrono::hours(24 * 30), false, proc);
  ASSERT_EQ(done.reclaimed.size(), 1u);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(root / "tmp"))
    left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_THAT(left, ElementsAre("install-200", "lock-301", "notes"));
  // --keep-days 0: the recent one too, never the running one's.
  auto zero = gc_run_temps(root, std::chrono::hours(0), false, proc);
  ASSERT_EQ(zero.reclaimed.size(), 1u);
  EXPECT_EQ(zero.reclaimed.front().name, "lock-301");
  EXPECT_THAT(gc_run_temps(temp.path() / "none", std::chrono::hours(0), false, proc).reclaimed,
              IsEmpty());
}

}  // namespace
}  // namespace flashfit::store::test
