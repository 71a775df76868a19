#pragma once
// Which backup directories under <cache>/backups/ `cache gc` reclaims (pure).
// flashfit names them after the process that made them: `<name>-<pid>`
// (install), `uninstall-<name>-<pid>` (uninstall) and `undo-current-<pid>`
// (install --undo). A run killed with SIGKILL leaves its directory behind; one
// is reclaimed only when its owner is gone (no process with that pid, or one
// that is not flashfit: the pid was reused), it is older than the keep period
// and backups/last-install.json does not name it (install --undo needs that
// one). A live flashfit with the pid, or an owner that cannot be checked,
// keeps it; other names are never touched (docs/cache.md).
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flashfit::store {

enum class BackupKind { install, uninstall, undo };

struct BackupName {
  BackupKind kind = BackupKind::install;
  std::string package;  // empty for undo-current-<pid>
  int pid = 0;
};

// nullopt: not a name flashfit gives a backup (a pid that is not 1..2^31-1
// in plain decimal, no pid, not a project name).
std::optional<BackupName> parse_backup_name(std::string_view name);

// `.last-install.json.XXXXXX`: util::write_file_atomic's temp file for the
// undo record, left by a run killed mid-write. It names no owner: it is
// reclaimed once older than the keep period and an hour (a write takes
// milliseconds), never sooner.
bool is_record_temp(std::string_view name);
inline constexpr std::time_t kRecordTempGrace = 3600;

// What /proc says about the pid in a backup's name, now, on this host.
enum class OwnerState {
  gone,      // no such process
  flashfit,  // a running flashfit: perhaps the owner, mid-run
  other,     // a process that is not flashfit: the pid was reused
  unknown,   // cannot be told (no /proc, hidden processes)
};

struct BackupDirFacts {
  std::string name;                        // the entry's name in backups/
  bool is_directory = false;               // a real directory (lstat), not a link or a file
  bool is_regular_file = false;            // a plain file (lstat)
  std::time_t modified = 0;                // its mtime
  OwnerState owner = OwnerState::unknown;  // of the pid in its name; ignored for other names
};

// What install --undo needs: the backup backups/last-install.json names.
struct UndoRecordFacts {
  bool unreadable = false;                 // the record exists but cannot be read
  std::optional<std::string> backup_name;  // the file name of its "replaced" backup dir
};

enum class BackupVerdict {
  reclaim_owner_gone,      // no process has its pid; older than the keep period
  reclaim_pid_reused,      // its pid is a process that is not flashfit; older than the keep period
  reclaim_record_temp,     // an abandoned temp file of last-install.json, old enough
  keep_owner_running,      // a flashfit process has its pid
  keep_owner_unknown,      // whether its owner runs cannot be told
  keep_recent,             // changed within the keep period (or in the future)
  keep_undo,               // last-install.json names it
  keep_record_unreadable,  // last-install.json cannot be read: it may name any backup
  keep_unknown_name,       // not a name flashfit gives a backup
  keep_not_directory,      // a file or a link: never flashfit's
};

std::string_view to_string(BackupVerdict verdict);  // "owner-gone", "pid-reused", ...
bool reclaims(BackupVerdict verdict);

struct BackupDecision {
  std::string name;
  BackupVerdict verdict = BackupVerdict::keep_unknown_name;
};

// One decision per entry, in the order given. keep_seconds >= 0.
std::vector<BackupDecision> decide_backup_gc(const std::vector<BackupDirFacts>& entries,
                                             const UndoRecordFacts& record, std::time_t now,
                                             std::time_t keep_seconds);

}  // namespace flashfit::store
