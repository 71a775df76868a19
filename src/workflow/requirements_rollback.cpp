// install -r's rollback of its earlier compiled packages; see requirements_rollback.hpp.
#include "workflow/requirements_rollback.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <system_error>

#include "pkg/name.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"
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
  // Nothing held: the record there is an earlier run's, never this run's to touch.
  if (held_.empty()) return {};
  std::vector<RolledBack> out;
  // An interpreter that cannot be asked now: nothing can be undone in it.
  const std::string no_interpreter = environment.python.interpreter.known()
                                         ? std::string()
                                         : "not rolled back: the interpreter cannot be asked (" +
                                               environment.python.interpreter.unknown_reason + ")";
  // A package left installed (its undo failed, or an interrupt came first)
  // keeps its backup; the newest of them is what `install --undo` then reads.
  // No record is written over another here: record_install removes the
  // backup of the record it replaces, which may be one still needed.
  const InstallRecord* undo_next = nullptr;
  std::size_t undo_next_at = 0;  // its entry in `out`
  std::error_code ec;
  for (auto it = held_.rbegin(); it != held_.rend(); ++it) {
    RolledBack done{it->package, false, {}};
    if (util::interrupted()) {
      done.outcome = "not rolled back: interrupted";
    } else if (!no_interpreter.empty()) {
      done.outcome = no_interpreter;
    } else if (it->replaced) {
      // `install --undo` of this record: the version it replaced restored.
      fs::remove(install_record_path(cache_root_), ec);
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
    if (!done.ok && !it->replaced) {
      done.outcome += fmt::format(" (`flashfit uninstall {}` removes it)", it->package);
    } else if (!done.ok && undo_next == nullptr) {
      undo_next = &*it;
      undo_next_at = out.size();
    } else if (!done.ok) {
      done.outcome += fmt::format(" (its backup is kept in {})", it->replaced->dir.string());
    }
    out.push_back(std::move(done));
  }
  fs::remove(install_record_path(cache_root_), ec);
  if (undo_next != nullptr) {
    out[undo_next_at].outcome +=
        record_install(cache_root_, *undo_next)
            ? std::string(" (`flashfit install --undo` undoes it)")
            : fmt::format(" (its backup is kept in {})", undo_next->replaced->dir.string());
  }
  held_.clear();
  return out;
}

util::Error HeldInstalls::roll_back_interrupted(
    util::Error error, const std::function<env::Environment()>& probe,
    const std::function<void(std::string_view)>& progress) {
  if (held_.empty()) return error;
  util::set_interrupted(false);
  if (progress) {
    progress(
        "interrupted: rolling back the packages this run installed (interrupt again to "
        "leave them installed)");
  }
  const auto rolled = roll_back(probe(), progress);
  util::set_interrupted(true);
  error.message += "; " + describe_rolled_back(rolled);
  return error;
}

std::string describe_rolled_back(const std::vector<RolledBack>& rolled) {
  if (rolled.empty()) return {};
  std::vector<std::string> said;
  said.reserve(rolled.size());
  for (const RolledBack& one : rolled)
    said.push_back(fmt::format("{}: {}", one.package, one.outcome));
  return "what this run installed before, newest first: " + util::join(said, "; ");
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
