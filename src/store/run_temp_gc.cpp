#include "store/run_temp_gc.hpp"

#include <sys/stat.h>

#include <array>
#include <charconv>

#include "store/backup_reclaim.hpp"
#include "store/cache_layout.hpp"
#include "util/strings.hpp"

namespace flashfit::store {
namespace fs = std::filesystem;
namespace {

// 1 .. 2^31-1 in plain decimal, no sign, no leading zero.
std::optional<int> parse_pid(std::string_view text) {
  if (text.empty() || text.size() > 10 || text.front() == '0') return std::nullopt;
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < 1 || value > 2147483647)
    return std::nullopt;
  return static_cast<int>(value);
}

RunTempFacts facts_of(const fs::path& path, const fs::path& proc_root) {
  RunTempFacts facts;
  facts.name = path.filename().string();
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) {
    facts.is_directory = S_ISDIR(info.st_mode);
    facts.modified = info.st_mtime;
  }
  if (auto pid = run_temp_owner_pid(facts.name)) facts.owner = probe_backup_owner(*pid, proc_root);
  return facts;
}

}  // namespace

std::optional<int> run_temp_owner_pid(std::string_view name) {
  // `<purpose>-<pid>`, exactly: the names install, install -r, lock and the
  // calibration give their directories.
  static constexpr std::array<std::string_view, 4> kPurposes = {"install-", "install-r-", "lock-",
                                                                "calibration-"};
  for (std::string_view prefix : kPurposes) {
    if (util::starts_with(name, prefix)) {
      if (auto pid = parse_pid(name.substr(prefix.size()))) return pid;
    }
  }
  // build-<pid>-<time>-<n> (build/build.cpp).
  if (util::starts_with(name, "build-")) {
    const std::string_view rest = name.substr(6);
    const auto dash = rest.find('-');
    if (dash != std::string_view::npos && dash + 1 < rest.size())
      return parse_pid(rest.substr(0, dash));
  }
  return std::nullopt;
}

bool reclaims(RunTempVerdict verdict) {
  return verdict == RunTempVerdict::reclaim_owner_gone ||
         verdict == RunTempVerdict::reclaim_pid_reused;
}

RunTempVerdict decide_run_temp(const RunTempFacts& facts, std::time_t now, std::time_t keep) {
  if (!run_temp_owner_pid(facts.name)) return RunTempVerdict::keep_unknown_name;
  if (!facts.is_directory) return RunTempVerdict::keep_not_directory;
  switch (facts.owner) {
    case OwnerState::flashfit:
      return RunTempVerdict::keep_owner_running;
    case OwnerState::unknown:
      return RunTempVerdict::keep_owner_unknown;
    case OwnerState::gone:
    case OwnerState::other:
      break;
  }
  if (facts.modified > now || now - facts.modified < keep) return RunTempVerdict::keep_recent;
  return facts.owner == OwnerState::gone ? RunTempVerdict::reclaim_owner_gone
                                         : RunTempVerdict::reclaim_pid_reused;
}

RunTempGcReport gc_run_temps(const fs::path& cache_root, std::chrono::hours keep_recent,
                             bool dry_run, const fs::path& proc_root) {
  RunTempGcReport report;
  const std::time_t keep = static_cast<std::time_t>(std::chrono::seconds(keep_recent).count());
  std::error_code ec;
  for (fs::directory_iterator it(cache_root / "tmp", ec), end; !ec && it != end; it.increment(ec)) {
    const RunTempFacts facts = facts_of(it->path(), proc_root);
    const RunTempVerdict verdict = decide_run_temp(facts, std::time(nullptr), keep);
    if (!reclaims(verdict)) continue;
    ReclaimedRunTemp gone{facts.name, it->path(), verdict, detail::directory_bytes(it->path()),
                          facts.modified};
    if (!dry_run) {
      // Decide again with fresh facts: a new run may have taken the pid since.
      if (!reclaims(decide_run_temp(facts_of(it->path(), proc_root), std::time(nullptr), keep)) ||
          !detail::discard_dir(cache_root / "wheels", it->path()))
        continue;
    }
    report.freed_bytes += gone.bytes;
    report.reclaimed.push_back(std::move(gone));
  }
  return report;
}

}  // namespace flashfit::store
