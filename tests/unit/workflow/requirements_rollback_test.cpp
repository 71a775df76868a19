// HeldInstalls' bookkeeping over real record files: each package's record is
// held through the run (so the next install keeps its backup), and release()
// (success, or Ctrl-C) puts the newest back for `install --undo`.
#include "workflow/requirements_rollback.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "../temp_dir.hpp"

namespace flashfit::workflow {
namespace {

using ::testing::ElementsAre;

InstallRecord record(std::string package, std::string time) {
  return InstallRecord{"/venv/bin/python", std::move(package), "1.0", std::nullopt,
                       std::move(time)};
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

}  // namespace
}  // namespace flashfit::workflow
