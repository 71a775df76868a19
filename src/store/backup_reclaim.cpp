#include "store/backup_reclaim.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <string_view>

#include "store/cache_layout.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace flashfit::store {
namespace fs = std::filesystem;
using detail::directory_bytes;
using detail::discard_dir;
namespace {

bool flashfit_name(std::string_view name) {
  constexpr std::string_view kDeleted = " (deleted)";  // the binary was replaced since
  if (util::ends_with(name, kDeleted)) name.remove_suffix(kDeleted.size());
  return util::starts_with(name, "flashfit");
}

std::string base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

BackupDirFacts facts_of(const fs::path& path, const fs::path& proc_root) {
  BackupDirFacts facts;
  facts.name = path.filename().string();
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) {
    facts.is_directory = S_ISDIR(info.st_mode);
    facts.is_regular_file = S_ISREG(info.st_mode);
    facts.modified = info.st_mtime;
  }
  if (auto parsed = parse_backup_name(facts.name))
    facts.owner = probe_backup_owner(parsed->pid, proc_root);
  return facts;
}

}  // namespace

OwnerState probe_backup_owner(int pid, const fs::path& proc_root) {
  std::error_code ec;
  // Without a mounted /proc every pid would look gone.
  if (!fs::exists(proc_root / "self", ec)) return OwnerState::unknown;
  const fs::path dir = proc_root / std::to_string(pid);
  struct stat info {};
  if (::lstat(dir.c_str(), &info) != 0)
    return errno == ENOENT ? OwnerState::gone : OwnerState::unknown;
  auto comm = util::read_small_file(dir / "comm", 256);
  if (comm && flashfit_name(util::trim(*comm))) return OwnerState::flashfit;
  const fs::path exe = fs::read_symlink(dir / "exe", ec);
  if (!ec && flashfit_name(base_name(exe.string()))) return OwnerState::flashfit;
  auto cmdline = util::read_small_file(dir / "cmdline", 64 * 1024);
  if (cmdline && !cmdline->empty() && flashfit_name(base_name(std::string_view(cmdline->c_str()))))
    return OwnerState::flashfit;
  // A process we can read no name of may be anything, flashfit included.
  if (!comm && ec) return OwnerState::unknown;
  return OwnerState::other;
}

BackupGcReport gc_backups(const fs::path& cache_root, const UndoRecordFacts& record,
                          std::chrono::hours keep_recent, bool dry_run, const fs::path& proc_root) {
  BackupGcReport report;
  const std::time_t keep = static_cast<std::time_t>(std::chrono::seconds(keep_recent).count());
  std::vector<fs::path> paths;
  std::vector<BackupDirFacts> entries;
  std::error_code ec;
  for (fs::directory_iterator it(cache_root / "backups", ec), end; !ec && it != end;
       it.increment(ec)) {
    paths.push_back(it->path());
    entries.push_back(facts_of(it->path(), proc_root));
  }
  const auto decisions = decide_backup_gc(entries, record, std::time(nullptr), keep);
  for (std::size_t i = 0; i < decisions.size(); ++i) {
    const bool known =
        parse_backup_name(entries[i].name).has_value() || is_record_temp(entries[i].name);
    if (!reclaims(decisions[i].verdict)) {
      if (known) ++report.kept;
      continue;
    }
    ReclaimedBackup gone{entries[i].name, paths[i], decisions[i].verdict, directory_bytes(paths[i]),
                         entries[i].modified};
    if (!dry_run) {
      // Decide again with fresh facts: a new process may have taken the pid since.
      const auto again =
          decide_backup_gc({facts_of(paths[i], proc_root)}, record, std::time(nullptr), keep);
      std::error_code rm;
      const bool removed = reclaims(again.front().verdict) &&
                           (again.front().verdict == BackupVerdict::reclaim_record_temp
                                ? fs::remove(paths[i], rm)
                                : discard_dir(cache_root / "wheels", paths[i]).has_value());
      if (!removed) {
        ++report.kept;
        continue;
      }
    }
    report.freed_bytes += gone.bytes;
    report.reclaimed.push_back(std::move(gone));
  }
  return report;
}

}  // namespace flashfit::store
