// Orphaned backups in <cache>/backups/: the names, the pure decision, the
// owner probe against a fabricated /proc, and gc_backups on a real directory.
#include "store/backup_gc.hpp"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "../temp_dir.hpp"
#include "store/backup_reclaim.hpp"

namespace flashfit::store::test {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr std::time_t kNow = 1'800'000'000;
constexpr std::time_t kDay = 24 * 3600;
constexpr std::time_t kKeep = 30 * kDay;

BackupDirFacts dir(std::string name, OwnerState owner, std::time_t age) {
  BackupDirFacts facts;
  facts.name = std::move(name);
  facts.is_directory = true;
  facts.modified = kNow - age;
  facts.owner = owner;
  return facts;
}

BackupVerdict decide(const BackupDirFacts& entry, const UndoRecordFacts& record = {},
                     std::time_t keep = kKeep) {
  auto out = decide_backup_gc({entry}, record, kNow, keep);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(out.front().name, entry.name);
  return out.front().verdict;
}

TEST(BackupName, TheThreeKindsParse) {
  auto install = parse_backup_name("flash-attn-4242");
  ASSERT_TRUE(install);
  EXPECT_EQ(install->kind, BackupKind::install);
  EXPECT_EQ(install->package, "flash-attn");
  EXPECT_EQ(install->pid, 4242);
  auto uninstall = parse_backup_name("uninstall-Flash_Attn-7");
  ASSERT_TRUE(uninstall);
  EXPECT_EQ(uninstall->kind, BackupKind::uninstall);
  EXPECT_EQ(uninstall->package, "Flash_Attn");
  EXPECT_EQ(uninstall->pid, 7);
  auto undo = parse_backup_name("undo-current-2147483647");
  ASSERT_TRUE(undo);
  EXPECT_EQ(undo->kind, BackupKind::undo);
  EXPECT_EQ(undo->pid, 2147483647);
}

TEST(BackupName, OtherNamesAndMalformedPidsAreNotBackups) {
  for (const char* name :
       {"last-install.json", "notes", "flash-attn", "flash-attn-", "-123", "flash-attn-0",
        "flash-attn-0123", "flash-attn-12a", "flash-attn-+12", "flash-attn- 12",
        "flash-attn-2147483648", "flash-attn-99999999999999999999", "flash-attn--5", "uninstall--5",
        "undo-current-", "bad name-12", ".hidden-12", "flash-attn-12.tmp", "a/b-12"}) {
    EXPECT_FALSE(parse_backup_name(name)) << name;
  }
}

TEST(BackupDecision, ALiveFlashfitOwnerKeepsEvenAnAncientBackup) {
  EXPECT_EQ(decide(dir("flash-attn-10", OwnerState::flashfit, 1000 * kDay)),
            BackupVerdict::keep_owner_running);
  EXPECT_EQ(decide(dir("flash-attn-10", OwnerState::flashfit, 1000 * kDay), {}, 0),
            BackupVerdict::keep_owner_running);
}

TEST(BackupDecision, AGoneOwnerReclaimsOnlyOnceOlderThanTheKeepPeriod) {
  EXPECT_EQ(decide(dir("flash-attn-10", OwnerState::gone, kKeep + 1)),
            BackupVerdict::reclaim_owner_gone);
  EXPECT_EQ(decide(dir("flash-attn-10", OwnerState::gone, kKeep)),
            BackupVerdict::reclaim_owner_gone);
  EXPECT_EQ(decide(dir("flash-attn-10", OwnerState::gone, kKeep - 1)), BackupVerdict::keep_recent);
  EXPECT_EQ(decide(dir("flash-attn-10", OwnerState::gone, 0)), BackupVerdict::keep_recent);
  // --keep-days 0: every orphan goes, even one made this second.
  EXPECT_EQ(decide(dir("flash-attn-10", OwnerState::gone, 0), {}, 0),
            BackupVerdict::reclaim_owner_gone);
  // A future mtime (another host's clock) is recent.
  EXPECT_EQ(decide(dir("flash-attn-10", OwnerState::gone, -kDay), {}, 0),
            BackupVerdict::keep_recent);
}

TEST(BackupDecision, APidReusedByAnotherProgramDoesNotProtectIt) {
  EXPECT_EQ(decide(dir("uninstall-ffinst-77", OwnerState::other, kKeep + kDay)),
            BackupVerdict::reclaim_pid_reused);
  EXPECT_EQ(decide(dir("uninstall-ffinst-77", OwnerState::other, kDay)),
            BackupVerdict::keep_recent);
}

TEST(BackupDecision, AnOwnerThatCannotBeCheckedKeepsIt) {
  EXPECT_EQ(decide(dir("undo-current-5", OwnerState::unknown, 1000 * kDay), {}, 0),
            BackupVerdict::keep_owner_unknown);
}

TEST(BackupDecision, TheBackupInstallUndoNeedsIsKept) {
  UndoRecordFacts record{false, "ffinst-55"};
  EXPECT_EQ(decide(dir("ffinst-55", OwnerState::gone, 1000 * kDay), record, 0),
            BackupVerdict::keep_undo);
  // Once the record names another backup, the old one is an orphan.
  EXPECT_EQ(decide(dir("ffinst-54", OwnerState::gone, 1000 * kDay), record, 0),
            BackupVerdict::reclaim_owner_gone);
  // An unreadable record may name any of them: all stay.
  EXPECT_EQ(decide(dir("ffinst-54", OwnerState::gone, 1000 * kDay), {true, std::nullopt}, 0),
            BackupVerdict::keep_record_unreadable);
}

TEST(BackupDecision, UnknownNamesAndNonDirectoriesAreNeverTouched) {
  EXPECT_EQ(decide(dir("last-install.json", OwnerState::gone, 1000 * kDay), {}, 0),
            BackupVerdict::keep_unknown_name);
  EXPECT_EQ(decide(dir("ffinst-007", OwnerState::gone, 1000 * kDay), {}, 0),
            BackupVerdict::keep_unknown_name);
  BackupDirFacts link = dir("ffinst-8", OwnerState::gone, 1000 * kDay);
  link.is_directory = false;
  EXPECT_EQ(decide(link, {}, 0), BackupVerdict::keep_not_directory);
}

TEST(BackupDecision, AnAbandonedRecordTempFileGoesAfterAnHourAtLeast) {
  EXPECT_TRUE(is_record_temp(".last-install.json.AbC123"));
  for (const char* name :
       {".last-install.json.", ".last-install.json.AbC12", ".last-install.json.AbC1234",
        ".last-install.json.AbC-23", "last-install.json.AbC123", ".other.json.AbC123"})
    EXPECT_FALSE(is_record_temp(name)) << name;
  BackupDirFacts temp = dir(".last-install.json.AbC123", OwnerState::unknown, 2 * 3600);
  temp.is_directory = false;
  temp.is_regular_file = true;
  EXPECT_EQ(decide(temp, {}, 0), BackupVerdict::reclaim_record_temp);
  // Still written, perhaps: an hour's grace even with --keep-days 0.
  temp.modified = kNow - 60;
  EXPECT_EQ(decide(temp, {}, 0), BackupVerdict::keep_recent);
  temp.modified = kNow - 2 * 3600;
  EXPECT_EQ(decide(temp, {}, kKeep), BackupVerdict::keep_recent);
  // Not a plain file: never flashfit's.
  temp.is_regular_file = false;
  temp.is_directory = true;
  EXPECT_EQ(decide(temp, {}, 0), BackupVerdict::keep_not_directory);
}

TEST(BackupDecision, OneDecisionPerEntryInOrder) {
  auto out =
      decide_backup_gc({dir("a-1", OwnerState::gone, kKeep * 2),
                        dir("b-2", OwnerState::flashfit, kKeep * 2), dir("c", OwnerState::gone, 0)},
                       {}, kNow, kKeep);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(reclaims(out[0].verdict));
  EXPECT_FALSE(reclaims(out[1].verdict));
  EXPECT_FALSE(reclaims(out[2].verdict));
  EXPECT_EQ(to_string(out[0].verdict), "owner-gone");
  EXPECT_EQ(to_string(BackupVerdict::reclaim_pid_reused), "pid-reused");
}

// A fabricated /proc: <root>/self, <root>/<pid>/{comm,exe,cmdline}.
class FakeProc : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(proc() / "self"); }
  fs::path proc() const { return temp_.path() / "proc"; }
  void process(int pid, const std::string& comm, const std::string& exe = {},
               const std::string& cmdline = {}) {
    const fs::path dir = proc() / std::to_string(pid);
    fs::create_directories(dir);
    if (!comm.empty()) std::ofstream(dir / "comm") << comm << "\n";
    if (!exe.empty()) fs::create_symlink(exe, dir / "exe");
    if (!cmdline.empty()) std::ofstream(dir / "cmdline", std::ios::binary) << cmdline;
  }
  flashfit::test::TempDir temp_{"backup-gc"};
};

TEST_F(FakeProc, OwnerStates) {
  process(100, "flashfit");
  process(101, "python3", "/usr/bin/python3.11");
  process(102, "ff", "/opt/bin/flashfit (deleted)");  // run through a link named ff
  process(103, "ff", "", std::string("/x/flashfit-0.3\0install\0", 24));
  process(104, "");      // nothing readable
  process(105, "bash");  // exe unreadable: comm tells
  EXPECT_EQ(probe_backup_owner(100, proc()), OwnerState::flashfit);
  EXPECT_EQ(probe_backup_owner(101, proc()), OwnerState::other);
  EXPECT_EQ(probe_backup_owner(102, proc()), OwnerState::flashfit);
  EXPECT_EQ(probe_backup_owner(103, proc()), OwnerState::flashfit);
  EXPECT_EQ(probe_backup_owner(104, proc()), OwnerState::unknown);
  EXPECT_EQ(probe_backup_owner(105, proc()), OwnerState::other);
  EXPECT_EQ(probe_backup_owner(999, proc()), OwnerState::gone);
  // No /proc mounted: nothing can be told.
  EXPECT_EQ(probe_backup_owner(999, temp_.path() / "no-proc"), OwnerState::unknown);
}

TEST(RealProc, ThisTestIsAliveAndNotFlashfit) {
  EXPECT_EQ(probe_backup_owner(static_cast<int>(::getpid())), OwnerState::other);
}

void make_backup(const fs::path& path, std::time_t age, std::size_t bytes) {
  fs::create_directories(path);
  std::ofstream(path / "0", std::ios::binary) << std::string(bytes, 'x');
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = std::time(nullptr) - age;
  times[0].tv_nsec = times[1].tv_nsec = 0;
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW), 0);
}

TEST_F(FakeProc, GcReclaimsOnlyStaleOrphans) {
  const fs::path root = temp_.path() / "cache";
  const fs::path backups = root / "backups";
  fs::create_directories(root / "wheels" / "tmp");
  process(200, "flashfit");
  process(201, "sleep", "/usr/bin/sleep");
  make_backup(backups / "ffinst-300", 40 * kDay, 1000);           // gone, old: reclaimed
  make_backup(backups / "uninstall-ffinst-201", 40 * kDay, 500);  // reused pid, old: reclaimed
  make_backup(backups / "ffinst-200", 40 * kDay, 10);             // live flashfit: kept
  make_backup(backups / "ffinst-301", 1 * kDay, 10);              // gone, recent: kept
  make_backup(backups / "ffinst-302", 40 * kDay, 10);             // last-install.json's: kept
  make_backup(backups / "mine", 40 * kDay, 10);                   // unknown name: kept
  std::ofstream(backups / "last-install.json") << "{}";
  std::ofstream(backups / ".last-install.json.Ab12Cd") << "{\"py";  // killed mid-write
  struct timespec old_times[2];
  old_times[0].tv_sec = old_times[1].tv_sec = std::time(nullptr) - 40 * kDay;
  old_times[0].tv_nsec = old_times[1].tv_nsec = 0;
  ASSERT_EQ(::utimensat(AT_FDCWD, (backups / ".last-install.json.Ab12Cd").c_str(), old_times,
                        AT_SYMLINK_NOFOLLOW),
            0);
  const UndoRecordFacts record{false, "ffinst-302"};

  auto dry = gc_backups(root, record, std::chrono::hours(24 * 30), true, proc());
  ASSERT_EQ(dry.reclaimed.size(), 3u);
  EXPECT_EQ(dry.freed_bytes, 1504u);
  EXPECT_EQ(dry.kept, 3u);
  EXPECT_TRUE(fs::exists(backups / "ffinst-300"));
  EXPECT_TRUE(fs::exists(backups / "uninstall-ffinst-201"));

  auto done = gc_backups(root, record, std::chrono::hours(24 * 30), false, proc());
  ASSERT_EQ(done.reclaimed.size(), 3u);
  EXPECT_EQ(done.freed_bytes, 1504u);
  EXPECT_FALSE(fs::exists(backups / ".last-install.json.Ab12Cd"));
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(backups))
    left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_THAT(left,
              ElementsAre("ffinst-200", "ffinst-301", "ffinst-302", "last-install.json", "mine"));
  EXPECT_THAT(gc_backups(root, record, std::chrono::hours(24 * 30), false, proc()).reclaimed,
              IsEmpty());
  // --keep-days 0 takes the recent orphan too, and still not the others.
  auto zero = gc_backups(root, record, std::chrono::hours(0), false, proc());
  ASSERT_EQ(zero.reclaimed.size(), 1u);
  EXPECT_EQ(zero.reclaimed.front().name, "ffinst-301");
  EXPECT_TRUE(fs::exists(backups / "ffinst-200"));
  EXPECT_TRUE(fs::exists(backups / "ffinst-302"));
}

TEST(BackupGc, NoBackupsDirectoryIsAnEmptyReport) {
  flashfit::test::TempDir temp{"backup-gc"};
  auto report = gc_backups(temp.path(), {}, std::chrono::hours(0), false);
  EXPECT_THAT(report.reclaimed, IsEmpty());
  EXPECT_EQ(report.kept, 0u);
}

}  // namespace
}  // namespace flashfit::store::test
