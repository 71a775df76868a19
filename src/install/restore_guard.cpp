#include "install/restore_guard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "binary/wheel.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace flashfit::install {
namespace {
namespace fs = std::filesystem;

bool inside(const fs::path& path, const fs::path& dir) {
  const fs::path rel = path.lexically_normal().lexically_relative(dir.lexically_normal());
  return !rel.empty() && rel != "." && *rel.begin() != "..";  // strictly inside
}

// Where a wheel member lands in the site directory (purelib/platlib data
// included); nullopt for scripts, headers and data, which land elsewhere.
std::optional<std::string> site_path_of_member(const std::string& member) {
  const auto slash = member.find('/');
  if (slash == std::string::npos ||
      !util::ends_with(std::string_view(member).substr(0, slash), ".data")) {
    return member;
  }
  const std::string rest = member.substr(slash + 1);
  for (const char* scheme : {"purelib/", "platlib/"}) {
    if (util::starts_with(rest, scheme)) return rest.substr(std::string_view(scheme).size());
  }
  return std::nullopt;
}

class Remover {
 public:
  Remover(const fs::path& prefix, std::vector<fs::path> roots)
      : prefix_(prefix), roots_(std::move(roots)) {}

  void file(const fs::path& path) {
    const fs::path p = path.lexically_normal();
    if (!inside(p, prefix_)) return;  // a hostile RECORD cannot reach outside the environment
    std::error_code ec;
    const auto status = fs::symlink_status(p, ec);
    if (ec || fs::is_directory(status)) return;
    if (fs::remove(p, ec)) parents_.push_back(p.parent_path());
  }

  // Directories left empty by the removals, bottom-up, never a root itself.
  void prune() {
    std::sort(parents_.begin(), parents_.end(), [](const fs::path& a, const fs::path& b) {
      return std::distance(a.begin(), a.end()) > std::distance(b.begin(), b.end());
    });
    for (fs::path dir : parents_) {
      while (std::any_of(roots_.begin(), roots_.end(),
                         [&](const fs::path& r) { return inside(dir, r); })) {
        std::error_code ec;
        // Bytecode is regenerated from whatever sources stay; left alone it
        // would keep a removed package's directory alive.
        if (dir.filename() == "__pycache__" || fs::exists(dir / "__pycache__", ec)) {
          fs::remove_all(dir.filename() == "__pycache__" ? dir : dir / "__pycache__", ec);
          if (dir.filename() == "__pycache__") {
            dir = dir.parent_path();
            continue;
          }
        }
        if (!fs::is_empty(dir, ec) || ec || !fs::remove(dir, ec)) break;
        dir = dir.parent_path();
      }
    }
  }

 private:
  fs::path prefix_;
  std::vector<fs::path> roots_;
  std::vector<fs::path> parents_;
};

}  // namespace

RestoreGuard::RestoreGuard(RestoreScope scope, std::function<void(std::string_view)> say)
    : scope_(std::move(scope)), say_(std::move(say)) {}

RestoreGuard::~RestoreGuard() {
  if (!changed()) return;
  const std::string outcome = settle();
  if (say_) say_(outcome);
}

bool RestoreGuard::writes_into(const fs::path& site_dir) const {
  return std::any_of(
      scope_.target_dirs.begin(), scope_.target_dirs.end(),
      [&](const fs::path& dir) { return dir.lexically_normal() == site_dir.lexically_normal(); });
}

void RestoreGuard::changing(std::vector<std::string> wheel_members) {
  changed_ = true;
  members_.insert(members_.end(), std::make_move_iterator(wheel_members.begin()),
                  std::make_move_iterator(wheel_members.end()));
}

void RestoreGuard::commit() {
  settled_ = true;
  if (backup_) {
    std::error_code ec;
    fs::remove_all(backup_->dir, ec);
  }
}

std::string RestoreGuard::settle() {
  if (settled_) return "";
  settled_ = true;
  if (!changed_) {
    std::error_code ec;
    if (backup_)
      fs::remove_all(backup_->dir, ec);  // nothing was touched: the originals are in place
    return "";
  }
  return restore();
}

std::string RestoreGuard::restore() {
  Remover remove(scope_.prefix, scope_.target_dirs);
  // 1. Whatever is installed of the package where the installer writes: the
  //    new version, a half-written one, or the previous one (put back in 2.).
  for (const fs::path& site : scope_.target_dirs) {
    while (auto now = find_installed({site.string()}, scope_.package)) {
      if (auto text = util::read_small_file(now->dist_info / "RECORD", std::size_t{64} << 20)) {
        if (auto rows = binary::parse_record(*text)) {
          for (const binary::RecordRow& row : *rows) {
            if (!row.path.empty() && row.path.front() != '/') remove.file(site / row.path);
          }
        }
      }
      std::error_code ec;
      fs::remove_all(now->dist_info, ec);
      if (ec || fs::exists(now->dist_info, ec)) break;
    }
    // 2. What the tried wheels would have written, RECORD or not (pip killed mid-way).
    for (const std::string& member : members_) {
      if (auto relative = site_path_of_member(member)) remove.file(site / *relative);
    }
  }
  remove.prune();

  // 3. The previous version's files, then the proof.
  if (!backup_) {
    for (const fs::path& site : scope_.target_dirs) {
      if (auto left = find_installed({site.string()}, scope_.package)) {
        return fmt::format("restore failed: {} {} is still installed in {}", left->name,
                           left->version, site.string());
      }
    }
    if (auto elsewhere = find_installed(scope_.site_dirs, scope_.package)) {
      return fmt::format(
          "restored {}: it was never replaced (it is in {}, where the installer does not write)",
          elsewhere->version, elsewhere->site_dir.string());
    }
    return "removed: nothing was installed before";
  }
  const Backup& backup = *backup_;
  auto restored = restore_backup(backup);
  if (!restored) {
    return fmt::format("restore failed: {} (the previous files are kept in {})",
                       restored.error().message, backup.dir.string());
  }
  auto found = find_installed(scope_.site_dirs, scope_.package);
  std::string problem;
  if (!found || found->dist_info != backup.dist.dist_info) {
    problem = found ? fmt::format("{} {} is found instead", found->name, found->version)
                    : "it is not found";
  }
  for (std::size_t i = 0; problem.empty() && i < backup.files.size(); ++i) {
    std::error_code a, b;
    if (fs::file_size(backup.files[i], a) != fs::file_size(backup.dir / std::to_string(i), b) ||
        a || b) {
      problem = backup.files[i].string() + " differs from its backup";
    }
  }
  if (!problem.empty()) {
    return fmt::format(
        "restore failed: {} {} was put back but {} (the previous files are kept in {})",
        backup.dist.name, backup.dist.version, problem, backup.dir.string());
  }
  std::error_code ec;
  fs::remove_all(backup.dir, ec);
  return "restored " + backup.dist.version;
}

}  // namespace flashfit::install
