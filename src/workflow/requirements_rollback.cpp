// install -r's rollback of its earlier compiled packages; see requirements_rollback.hpp.
#include "workflow/requirements_rollback.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <system_error>

#include "pkg/name.hpp"
#include "workflow/uninstall.hpp"

namespace flashfit::workflow {
namespace fs = std::filesystem;

HeldInstalls::HeldInstalls(fs::path cache_root) : cache_root_(std::move(cache_root)) {
  auto record = read_install_record(cache_root_);
  if (record && *record) earlier_time_ = (*record)->time;
}

util::Result<void> HeldInstalls::hold(std::string_view package) {
  auto record = read_install_record(cache_root_);
  if (!record) return tl::unexpected(record.error());
  // Nothing recorded (no interpreter to record it for), or not this install's record.
  if (!*record || pkg::canonicalize_name((*record)->package) != package ||
      (!earlier_time_.empty() && (*record)->time == earlier_time_))
    return {};
  earlier_time_.clear();
  held_.push_back(std::move(**record));
  // Without a record the next install removes no backup; this process's
  // backups are kept by `cache gc` while it runs (they carry its pid).
  std::error_code ec;
  fs::remove(install_record_path(cache_root_), ec);
  if (ec) {
    return util::fail(util::ErrorKind::failed,
                      fmt::format("cannot set aside {}: {}",
                                  install_record_path(cache_root_).string(), ec.message()));
  }
  return {};
}

std::vector<RolledBack> HeldInstalls::roll_back(
    const env::Environment& environment, const std::function<void(std::string_view)>& progress) {
  std::vector<RolledBack> out;
  for (auto it = held_.rbegin(); it != held_.rend(); ++it) {
    RolledBack done{it->package, false, {}};
    if (it->replaced) {
      // `install --undo` of this record: the version it replaced restored.
      auto recorded = record_install(cache_root_, *it);
      auto undone = recorded ? undo_last_install(environment, cache_root_, progress)
                             : util::Result<UndoOutcome>(tl::unexpected(recorded.error()));
      done.ok = undone && undone->undone;
      done.outcome = undone ? undone->message : util::render(undone.error());
    } else {
      // It was new: removed as `flashfit uninstall` removes it.
      UninstallOptions options;
      options.backup_dir =
          cache_root_ / "backups" / fmt::format("uninstall-{}-{}", it->package, ::getpid());
      options.progress = progress;
      auto removed = uninstall_package(environment, it->package, options);
      done.ok = removed.has_value();
      done.outcome = removed ? fmt::format("removed {} {} (it was not installed before)",
                                           removed->package, removed->version)
                             : util::render(removed.error());
    }
    out.push_back(std::move(done));
  }
  held_.clear();
  return out;
}

std::vector<std::string> HeldInstalls::packages() const {
  std::vector<std::string> out;
  out.reserve(held_.size());
  for (const InstallRecord& record : held_) out.push_back(record.package);
  return out;
}

util::Result<void> HeldInstalls::release() {
  if (held_.empty()) return {};
  std::error_code ec;
  for (std::size_t i = 0; i + 1 < held_.size(); ++i) {
    if (held_[i].replaced) fs::remove_all(held_[i].replaced->dir, ec);
  }
  auto recorded = record_install(cache_root_, held_.back());
  held_.clear();
  return recorded;
}

}  // namespace flashfit::workflow
