// HeldInstalls' bookkeeping over real record files: each package's record is
// held through the run (so the next install keeps its backup), and release()
// (success) puts the newest back for `install --undo`, as roll_back does with
// the newest it leaves installed when interrupted again.
#include "workflow/requirements_rollback.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "../temp_dir.hpp"
#include "util/interrupt.hpp"

namespace flashfit::workflow {
namespace {

using ::testing::ElementsAre;

InstallRecord record(std::string package, std::string time) {
  return InstallRecord{"/venv/bin/python", std::move(package), "1.0", std::nullopt,
                       std::move(time)};
}

// A record of an install that replaced a version, its backup a directory made here.
InstallRecord replacing(std::string package, std::string time, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  InstallRecord out = record(std::move(package), std::move(time));
  out.replaced = install::Backup{};
  out.replaced->dir = dir;
  return out;
}

TEST(HeldInstalls, HoldsEachRecordAndReleasesTheNewest) {
  test::TempDir cache("held-installs");
  // An earlier run's record is never held.
  ASSERT_TRUE(record_install(cache.path(), record("old", "2026-11-27T10:00:00Z")));
  HeldInstalls held(cache.path());
  ASSERT_TRUE(held.hold("old"));
  EXPECT_TRUE(held.packages().empty());

  ASSERT_TRUE(record_install(cache.path(), record("ffdep", "2026-11-28T10:00:00Z")));
  ASSERT_TRUE(held.hold("ffdep"));
  EXPECT_FALSE(std::filesystem::exists(install_record_path(cache.path())));
  ASSERT_TRUE(record_install(cache.path(), record("ffinst", "2026-11-28T10:00:01Z")));
  ASSERT_TRUE(held.hold("ffinst"));
  EXPECT_THAT(held.packages(), ElementsAre("ffdep", "ffinst"));

  ASSERT_TRUE(held.release());
  auto back = read_install_record(cache.path());
  ASSERT_TRUE(back && *back);
  EXPECT_EQ((*back)->package, "ffinst");
  EXPECT_TRUE(held.packages().empty());
}

// Interrupted again while rolling back (here: before the first): nothing is
// undone, each package is said to be left installed with what undoes it (the
// newest that replaced a version: `install --undo`; a new one: uninstall),
// and every backup is kept (recording one removed the one recorded before).
TEST(HeldInstalls, AnInterruptedRollBackLeavesTheRestForUndo) {
  test::TempDir cache("held-installs");
  HeldInstalls held(cache.path());
  const std::filesystem::path backup = cache.path() / "backups" / "ffdep-0.9";
  ASSERT_TRUE(record_install(cache.path(), replacing("ffdep", "2026-11-28T10:00:00Z", backup)));
  ASSERT_TRUE(held.hold("ffdep"));
  const std::filesystem::path newer = cache.path() / "backups" / "ffinst-0.9";
  ASSERT_TRUE(record_install(cache.path(), replacing("ffinst", "2026-11-28T10:00:01Z", newer)));
  ASSERT_TRUE(held.hold("ffinst"));
  ASSERT_TRUE(record_install(cache.path(), record("ffnew", "2026-11-28T10:00:02Z")));
  ASSERT_TRUE(held.hold("ffnew"));

  util::set_interrupted(true);
  const auto rolled = held.roll_back(env::Environment{}, nullptr);
  util::set_interrupted(false);
  ASSERT_EQ(rolled.size(), 3u);
  EXPECT_EQ(rolled[0].package, "ffnew");
  EXPECT_FALSE(rolled[0].ok);
  EXPECT_EQ(rolled[0].outcome,
            "not rolled back: interrupted (`flashfit uninstall ffnew` removes it)");
  EXPECT_EQ(rolled[1].package, "ffinst");
  EXPECT_EQ(rolled[1].outcome,
            "not rolled back: interrupted (`flashfit install --undo` undoes it)");
  EXPECT_EQ(rolled[2].package, "ffdep");
  EXPECT_EQ(rolled[2].outcome,
            "not rolled back: interrupted (its backup is kept in " + backup.string() + ")");
  auto back = read_install_record(cache.path());
  ASSERT_TRUE(back && *back);
  EXPECT_EQ((*back)->package, "ffinst");
  EXPECT_TRUE(std::filesystem::is_directory(backup));
  EXPECT_TRUE(std::filesystem::is_directory(newer));
  EXPECT_TRUE(held.packages().empty());
}

// An undo that fails (here: the records name another interpreter than the
// one rolled back in) leaves its package installed with its backup: the
// older package's undo must not remove it by recording over it.
TEST(HeldInstalls, AFailedUndoKeepsItsBackupThroughTheOlderOnes) {
  test::TempDir cache("held-installs");
  HeldInstalls held(cache.path());
  std::vector<std::filesystem::path> backups;
  for (const char* package : {"ffdep", "ffinst"}) {
    backups.push_back(cache.path() / "backups" / (std::string(package) + "-0.9"));
    const std::string time = "2026-11-28T10:00:0" + std::to_string(backups.size()) + "Z";
    ASSERT_TRUE(record_install(cache.path(), replacing(package, time, backups.back())));
    ASSERT_TRUE(held.hold(package));
  }
  env::Interpreter other;
  other.executable = "/other/bin/python";
  env::Environment environment;
  environment.python.interpreter = env::Fact<env::Interpreter>::of(other, "test");
  const auto rolled = held.roll_back(environment, nullptr);
  ASSERT_EQ(rolled.size(), 2u);
  EXPECT_EQ(rolled[0].package, "ffinst");
  EXPECT_FALSE(rolled[0].ok);
  EXPECT_NE(rolled[0].outcome.find("not /other/bin/python"), std::string::npos)
      << rolled[0].outcome;
  EXPECT_NE(rolled[0].outcome.find("(`flashfit install --undo` undoes it)"), std::string::npos);
  EXPECT_NE(rolled[1].outcome.find("its backup is kept in " + backups[0].string()),
            std::string::npos)
      << rolled[1].outcome;
  EXPECT_TRUE(std::filesystem::is_directory(backups[0]));
  EXPECT_TRUE(std::filesystem::is_directory(backups[1]));
  auto back = read_install_record(cache.path());
  ASSERT_TRUE(back && *back);
  EXPECT_EQ((*back)->package, "ffinst");
}

// A run whose first package fails holds nothing: the record there is an
// earlier run's, and `install --undo` must still find it.
TEST(HeldInstalls, RollingBackNothingLeavesAnEarlierRunsRecord) {
  test::TempDir cache("held-installs");
  const std::filesystem::path backup = cache.path() / "backups" / "ffinst-0.9";
  ASSERT_TRUE(record_install(cache.path(), replacing("ffinst", "2026-11-27T10:00:00Z", backup)));
  HeldInstalls held(cache.path());
  EXPECT_TRUE(held.roll_back(env::Environment{}, nullptr).empty());
  auto back = read_install_record(cache.path());
  ASSERT_TRUE(back && *back);
  EXPECT_EQ((*back)->package, "ffinst");
  EXPECT_TRUE(std::filesystem::is_directory(backup));
}

// An interpreter that cannot be asked: nothing is undone, each package is
// said to be left installed, the backups kept, the newest recorded.
TEST(HeldInstalls, WithoutAnInterpreterNothingIsUndoneAndTheBackupsStay) {
  test::TempDir cache("held-installs");
  HeldInstalls held(cache.path());
  const std::filesystem::path backup = cache.path() / "backups" / "ffinst-0.9";
  ASSERT_TRUE(record_install(cache.path(), replacing("ffinst", "2026-11-28T10:00:00Z", backup)));
  ASSERT_TRUE(held.hold("ffinst"));
  env::Environment environment;
  environment.python.interpreter =
      env::Fact<env::Interpreter>::unknown("/venv/bin/python: no such file");
  const auto rolled = held.roll_back(environment, nullptr);
  ASSERT_EQ(rolled.size(), 1u);
  EXPECT_FALSE(rolled[0].ok);
  EXPECT_EQ(rolled[0].outcome,
            "not rolled back: the interpreter cannot be asked (/venv/bin/python: no such file) "
            "(`flashfit install --undo` undoes it)");
  EXPECT_TRUE(std::filesystem::is_directory(backup));
  auto back = read_install_record(cache.path());
  ASSERT_TRUE(back && *back);
  EXPECT_EQ((*back)->package, "ffinst");
}

}  // namespace
}  // namespace flashfit::workflow
