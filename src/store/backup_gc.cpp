#include "store/backup_gc.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "pkg/name.hpp"

namespace flashfit::store {
namespace {

// The decimal form getpid() is printed in: no sign, no leading zero, 1..INT_MAX.
std::optional<int> parse_pid(std::string_view digits) {
  if (digits.empty() || digits.size() > 10 || digits.front() == '0') return std::nullopt;
  for (const char c : digits)
    if (c < '0' || c > '9') return std::nullopt;
  long long value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() ||
      value > std::numeric_limits<int>::max())
    return std::nullopt;
  return static_cast<int>(value);
}

constexpr std::string_view kUninstallPrefix = "uninstall-";
constexpr std::string_view kUndoStem = "undo-current";

}  // namespace

std::optional<BackupName> parse_backup_name(std::string_view name) {
  const auto dash = name.rfind('-');
  if (dash == std::string_view::npos) return std::nullopt;
  auto pid = parse_pid(name.substr(dash + 1));
  if (!pid) return std::nullopt;
  const std::string_view stem = name.substr(0, dash);
  if (stem == kUndoStem) return BackupName{BackupKind::undo, {}, *pid};
  if (stem.starts_with(kUninstallPrefix) &&
      pkg::is_valid_project_name(stem.substr(kUninstallPrefix.size())))
    return BackupName{BackupKind::uninstall, std::string(stem.substr(kUninstallPrefix.size())),
                      *pid};
  if (pkg::is_valid_project_name(stem))
    return BackupName{BackupKind::install, std::string(stem), *pid};
  return std::nullopt;
}

bool is_record_temp(std::string_view name) {
  constexpr std::string_view kPrefix = ".last-install.json.";
  if (!name.starts_with(kPrefix) || name.size() != kPrefix.size() + 6) return false;
  for (const char c : name.substr(kPrefix.size())) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) return false;
  }
  return true;
}

std::string_view to_string(BackupVerdict verdict) {
  switch (verdict) {
    case BackupVerdict::reclaim_owner_gone:
      return "owner-gone";
    case BackupVerdict::reclaim_pid_reused:
      return "pid-reused";
    case BackupVerdict::reclaim_record_temp:
      return "abandoned-temp-file";
    case BackupVerdict::keep_owner_running:
      return "owner-running";
    case BackupVerdict::keep_owner_unknown:
      return "owner-unknown";
    case BackupVerdict::keep_recent:
      return "recent";
    case BackupVerdict::keep_undo:
      return "undo";
    case BackupVerdict::keep_record_unreadable:
      return "undo-record-unreadable";
    case BackupVerdict::keep_unknown_name:
      return "unknown-name";
    case BackupVerdict::keep_not_directory:
      return "not-a-directory";
  }
  return "unknown-name";
}

bool reclaims(BackupVerdict verdict) {
  return verdict == BackupVerdict::reclaim_owner_gone ||
         verdict == BackupVerdict::reclaim_pid_reused ||
         verdict == BackupVerdict::reclaim_record_temp;
}

namespace {

BackupVerdict decide_one(const BackupDirFacts& entry, const UndoRecordFacts& record,
                         std::time_t now, std::time_t keep_seconds) {
  if (is_record_temp(entry.name)) {
    if (!entry.is_regular_file) return BackupVerdict::keep_not_directory;
    const std::time_t grace = std::max(keep_seconds, kRecordTempGrace);
    return entry.modified > now || now - entry.modified < grace
               ? BackupVerdict::keep_recent
               : BackupVerdict::reclaim_record_temp;
  }
  if (!parse_backup_name(entry.name)) return BackupVerdict::keep_unknown_name;
  if (!entry.is_directory) return BackupVerdict::keep_not_directory;
  if (record.unreadable) return BackupVerdict::keep_record_unreadable;
  if (record.backup_name && *record.backup_name == entry.name) return BackupVerdict::keep_undo;
  switch (entry.owner) {
    case OwnerState::flashfit:
      return BackupVerdict::keep_owner_running;
    case OwnerState::unknown:
      return BackupVerdict::keep_owner_unknown;
    case OwnerState::gone:
    case OwnerState::other:
      break;
  }
  // A future mtime (clock skew between hosts) is recent.
  if (entry.modified > now || now - entry.modified < keep_seconds)
    return BackupVerdict::keep_recent;
  return entry.owner == OwnerState::gone ? BackupVerdict::reclaim_owner_gone
                                         : BackupVerdict::reclaim_pid_reused;
}

}  // namespace

std::vector<BackupDecision> decide_backup_gc(const std::vector<BackupDirFacts>& entries,
                                             const UndoRecordFacts& record, std::time_t now,
                                             std::time_t keep_seconds) {
  std::vector<BackupDecision> out;
  out.reserve(entries.size());
  for (const BackupDirFacts& entry : entries)
    out.push_back({entry.name, decide_one(entry, record, now, keep_seconds)});
  return out;
}

}  // namespace flashfit::store
