// The restore guard (issue 13 item 10): what was installed before comes back
// on every way out, the destructor included, without spawning anything; the
// backup goes only once the restore is proven.
#include "install/restore_guard.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "../temp_dir.hpp"

namespace flashfit::install {
namespace {
namespace fs = std::filesystem;

using test::read;
using test::write;

struct Site {
  test::TempDir dir{"guard"};
  fs::path prefix = dir.path() / "venv";
  fs::path site = prefix / "lib/site-packages";

  void install_09() {
    write(site / "ffinst/__init__.py", "old\n");
    write(site / "ffinst/kept.py", "old kept\n");
    write(site / "ffinst-0.9.dist-info/METADATA", "Name: ffinst\nVersion: 0.9\n");
    write(site / "ffinst-0.9.dist-info/RECORD",
          "ffinst/__init__.py,,\nffinst/kept.py,,\nffinst-0.9.dist-info/METADATA,,\n"
          "ffinst-0.9.dist-info/RECORD,,\n../../bin/fftool,,\n");
    write(prefix / "bin/fftool", "#!/bin/sh\nold\n");
  }
  // What pip leaves after replacing 0.9 by 1.0 (new files, 0.9's gone).
  void replace_by_10() {
    fs::remove_all(site / "ffinst");
    fs::remove_all(site / "ffinst-0.9.dist-info");
    fs::remove(prefix / "bin/fftool");
    write(site / "ffinst/__init__.py", "new\n");
    write(site / "ffinst/added.py", "new only\n");
    write(site / "ffinst/__pycache__/added.cpython-311.pyc", "bytecode");
    write(site / "ffinst-1.0.dist-info/METADATA", "Name: ffinst\nVersion: 1.0\n");
    write(site / "ffinst-1.0.dist-info/RECORD",
          "ffinst/__init__.py,,\nffinst/added.py,,\nffinst-1.0.dist-info/METADATA,,\n"
          "ffinst-1.0.dist-info/RECORD,,\n../../../../outside-the-prefix,,\n");
  }
  RestoreScope scope() const { return {"ffinst", {site.string()}, {site}, prefix}; }
};

TEST(RestoreGuard, TheDestructorPutsThePreviousVersionBackExactly) {
  Site s;
  s.install_09();
  write(s.dir.path() / "outside-the-prefix", "not ours");
  const fs::path backup_dir = s.dir.path() / "backup";
  std::vector<std::string> said;
  {
    RestoreGuard guard(s.scope(), [&](std::string_view line) { said.emplace_back(line); });
    auto before = find_installed({s.site.string()}, "ffinst");
    ASSERT_TRUE(before);
    auto backup = backup_installed(*before, backup_dir);
    ASSERT_TRUE(backup) << backup.error().message;
    guard.keep_backup(std::move(*backup));
    guard.changing(
        {"ffinst/__init__.py", "ffinst/added.py", "ffinst/late.py", "ffinst-1.0.dist-info/RECORD"});
    s.replace_by_10();
    write(s.site / "ffinst/late.py", "written before RECORD was");  // pip stopped mid-way
    // An early return (Ctrl-C during pip or the import check): no settle() call.
  }
  ASSERT_EQ(said, (std::vector<std::string>{"restored 0.9"}));
  auto now = find_installed({s.site.string()}, "ffinst");
  ASSERT_TRUE(now);
  EXPECT_EQ(now->version, "0.9");
  EXPECT_EQ(read(s.site / "ffinst/__init__.py"), "old\n");
  EXPECT_EQ(read(s.site / "ffinst/kept.py"), "old kept\n");
  EXPECT_EQ(read(s.prefix / "bin/fftool"), "#!/bin/sh\nold\n");
  EXPECT_FALSE(fs::exists(s.site / "ffinst/added.py"));
  EXPECT_FALSE(fs::exists(s.site / "ffinst/late.py"));
  EXPECT_FALSE(fs::exists(s.site / "ffinst/__pycache__"));
  EXPECT_FALSE(fs::exists(s.site / "ffinst-1.0.dist-info"));
  EXPECT_EQ(read(s.dir.path() / "outside-the-prefix"), "not ours");  // a RECORD cannot reach out
  EXPECT_FALSE(fs::exists(backup_dir));  // proven restored: the backup goes
}

TEST(RestoreGuard, NothingBeforeMeansTheNewVersionIsRemoved) {
  Site s;
  RestoreGuard guard(s.scope(), {});
  guard.changing({"ffinst/__init__.py"});
  s.replace_by_10();
  EXPECT_EQ(guard.settle(), "removed: nothing was installed before");
  EXPECT_FALSE(find_installed({s.site.string()}, "ffinst"));
  EXPECT_FALSE(fs::exists(s.site / "ffinst"));
  EXPECT_EQ(guard.settle(), "");  // once
}

TEST(RestoreGuard, CommitKeepsTheNewVersionAndUnchangedRestoresNothing) {
  Site s;
  s.install_09();
  const fs::path backup_dir = s.dir.path() / "backup";
  {
    RestoreGuard guard(s.scope(), [](std::string_view) { FAIL() << "nothing to restore"; });
    guard.keep_backup(*backup_installed(*find_installed({s.site.string()}, "ffinst"), backup_dir));
    guard.changing({"ffinst/__init__.py"});
    s.replace_by_10();
    guard.commit();
  }
  EXPECT_EQ(find_installed({s.site.string()}, "ffinst")->version, "1.0");
  EXPECT_FALSE(fs::exists(backup_dir));
  RestoreGuard untouched(s.scope(), {});
  EXPECT_EQ(untouched.settle(), "");
  EXPECT_EQ(find_installed({s.site.string()}, "ffinst")->version, "1.0");
}

TEST(RestoreGuard, AnUnprovenRestoreKeepsTheBackupAndSaysWhere) {
  Site s;
  s.install_09();
  const fs::path backup_dir = s.dir.path() / "backup";
  RestoreGuard guard(s.scope(), {});
  guard.keep_backup(*backup_installed(*find_installed({s.site.string()}, "ffinst"), backup_dir));
  guard.changing({"ffinst/__init__.py"});
  s.replace_by_10();
  // The file a restore must write is a directory now: it cannot be put back.
  fs::create_directories(s.site / "ffinst/kept.py/blocker");
  const std::string outcome = guard.settle();
  EXPECT_EQ(outcome.rfind("restore failed: ", 0), 0u) << outcome;
  EXPECT_NE(outcome.find(backup_dir.string()), std::string::npos) << outcome;
  EXPECT_TRUE(fs::exists(backup_dir));
}

}  // namespace
}  // namespace flashfit::install
