#include "workflow/undo.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "install/installer.hpp"
#include "install/restore_guard.hpp"
#include "util/atomic_file.hpp"
#include "util/interrupt.hpp"
#include "workflow/uninstall.hpp"

namespace flashfit::workflow {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json backup_json(const install::Backup& b) {
  json files = json::array();
  for (const fs::path& f : b.files) files.push_back(f.string());
  return {{"site_dir", b.dist.site_dir.string()},
          {"dist_info", b.dist.dist_info.string()},
          {"name", b.dist.name},
          {"version", b.dist.version},
          {"egg_info", b.dist.egg_info},
          {"dir", b.dir.string()},
          {"files", files}};
}

install::Backup backup_from(const json& j) {
  install::Backup b;
  b.dist.site_dir = j.at("site_dir").get<std::string>();
  b.dist.dist_info = j.at("dist_info").get<std::string>();
  b.dist.name = j.at("name").get<std::string>();
  b.dist.version = j.at("version").get<std::string>();
  b.dist.egg_info = j.at("egg_info").get<bool>();
  b.dir = j.at("dir").get<std::string>();
  for (const auto& f : j.at("files")) b.files.emplace_back(f.get<std::string>());
  return b;
}

void remove_backup_of(const std::optional<InstallRecord>& record) {
  if (!record || !record->replaced) return;
  std::error_code ec;
  fs::remove_all(record->replaced->dir, ec);
}

void say(const std::function<void(std::string_view)>& progress, const std::string& line) {
  if (progress) progress(line);
}

}  // namespace

fs::path install_record_path(const fs::path& cache_root) {
  return cache_root / "backups" / "last-install.json";
}

util::Result<void> record_install(const fs::path& cache_root, const InstallRecord& record) {
  // Only the last install can be undone: the older backup goes.
  auto previous = read_install_record(cache_root);
  if (previous) remove_backup_of(*previous);
  json doc{{"python", record.python},
           {"package", record.package},
           {"installed_version", record.installed_version},
           {"replaced", record.replaced ? backup_json(*record.replaced) : json(nullptr)},
           {"time", record.time}};
  std::error_code ec;
  fs::create_directories(install_record_path(cache_root).parent_path(), ec);
  return util::write_file_atomic(install_record_path(cache_root), doc.dump(2) + "\n");
}

util::Result<std::optional<InstallRecord>> read_install_record(const fs::path& cache_root) {
  const fs::path path = install_record_path(cache_root);
  std::ifstream in(path);
  if (!in) return std::optional<InstallRecord>{};
  std::stringstream text;
  text << in.rdbuf();
  try {
    json doc = json::parse(text.str());
    InstallRecord r;
    r.python = doc.at("python").get<std::string>();
    r.package = doc.at("package").get<std::string>();
    r.installed_version = doc.at("installed_version").get<std::string>();
    if (!doc.at("replaced").is_null()) r.replaced = backup_from(doc.at("replaced"));
    r.time = doc.value("time", "");
    return std::optional<InstallRecord>{std::move(r)};
  } catch (const json::exception& e) {
    return util::fail(util::ErrorKind::input, std::string("unreadable install record: ") + e.what(),
                      path.string(), "remove it: only `install --undo` reads it");
  }
}

util::Result<UndoOutcome> undo_last_install(const env::Environment& environment,
                                            const fs::path& cache_root,
                                            std::function<void(std::string_view)> progress) {
  UndoOutcome out;
  auto read = read_install_record(cache_root);
  if (!read) return tl::unexpected(read.error());
  if (!*read) {
    out.message = fmt::format("nothing to undo: no install is recorded in {}",
                              install_record_path(cache_root).string());
    return out;
  }
  const InstallRecord& record = **read;
  out.package = record.package;
  const env::Interpreter& interpreter = *environment.python.interpreter;
  if (record.python != interpreter.executable) {
    return util::fail(util::ErrorKind::usage,
                      fmt::format("the last install ({} {}) was into {}, not {}", record.package,
                                  record.installed_version, record.python, interpreter.executable),
                      {}, "give --python " + record.python);
  }
  if (!record.replaced) {
    out.message = fmt::format(
        "nothing to undo: the last install of {} {} replaced nothing (flashfit uninstall {} "
        "removes it)",
        record.package, record.installed_version, record.package);
    return out;
  }
  const install::Backup& kept = *record.replaced;
  std::error_code ec;
  if (!fs::is_directory(kept.dir, ec)) {
    out.message = fmt::format("nothing to undo: the backup of {} {} is gone ({})", kept.dist.name,
                              kept.dist.version, kept.dir.string());
    return out;
  }
  auto now = install::find_installed(interpreter.site_dirs, record.package);
  if (!now || now->version != record.installed_version) {
    return util::fail(
        util::ErrorKind::failed,
        fmt::format("{} is {} now, not {} as the last install left it: undo would replace what "
                    "someone installed since",
                    record.package, now ? now->version : "not installed", record.installed_version),
        {}, "install the version you want with flashfit install");
  }
  install::RestoreScope scope = restore_scope(interpreter, record.package);
  install::RestoreGuard guard(scope, progress);
  auto installer = install::choose_installer(environment);
  if (!installer) return tl::unexpected(installer.error());
  say(progress, fmt::format("backing up {} {}", now->name, now->version));
  auto backup = install::backup_installed(
      *now, cache_root / "backups" / fmt::format("undo-current-{}", ::getpid()));
  if (!backup) return tl::unexpected(backup.error());
  guard.keep_backup(std::move(*backup));
  say(progress, fmt::format("uninstalling {} {} with {}", now->name, now->version,
                            install::to_string(installer->kind)));
  auto fail_restoring = [&](util::Error error) -> util::Result<UndoOutcome> {
    std::string restore = guard.settle();
    if (!restore.empty()) error.message += "; " + restore;
    return tl::unexpected(std::move(error));
  };
  auto removed = uninstall_proven(*installer, scope, guard);
  if (!removed) return fail_restoring(std::move(removed.error()));
  say(progress,
      fmt::format("restoring {} {} from {}", kept.dist.name, kept.dist.version, kept.dir.string()));
  if (auto restored = install::restore_backup(kept); !restored)
    return fail_restoring(std::move(restored.error()));
  if (util::interrupted())
    return fail_restoring(util::Error{util::ErrorKind::interrupted, "interrupted", {}, {}});
  // Proof: the old version is what the interpreter finds, every file back.
  auto back = install::find_installed(interpreter.site_dirs, record.package);
  bool files_back = true;
  for (const fs::path& f : kept.files) files_back = files_back && fs::exists(f, ec);
  if (!back || back->version != kept.dist.version || !files_back) {
    return fail_restoring(
        util::Error{util::ErrorKind::failed,
                    fmt::format("{} {} could not be proven restored (found: {})", kept.dist.name,
                                kept.dist.version, back ? back->version : "nothing"),
                    {},
                    {}});
  }
  guard.commit();
  out.undone = true;
  out.removed_version = record.installed_version;
  out.restored_version = kept.dist.version;
  out.message = fmt::format("restored {} {} (removed {})", kept.dist.name, kept.dist.version,
                            record.installed_version);
  fs::remove_all(kept.dir, ec);
  fs::remove(install_record_path(cache_root), ec);
  return out;
}

}  // namespace flashfit::workflow
