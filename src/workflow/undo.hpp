#pragma once
// `flashfit install --undo`: put back the version the last install replaced.
// A successful install that replaced a version keeps that version's backup
// (its RECORD's files) under <cache>/backups/undo-<pid>/ and records it in
// <cache>/backups/last-install.json; the next install replaces the record
// (and removes the older backup). Undo removes the installed version the
// same way `uninstall` does (backup, installer's uninstall, proof), copies
// the kept files back and proves the old version is what is found; on any
// failure or Ctrl-C the guard puts the newer version back.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "env/environment.hpp"
#include "install/installed.hpp"
#include "util/error.hpp"

namespace flashfit::workflow {

struct InstallRecord {
  std::string python;                       // the interpreter installed into
  std::string package;                      // as its metadata spells it
  std::string installed_version;            // what the install put there
  std::optional<install::Backup> replaced;  // nullopt: nothing was installed before
  std::string time;                         // UTC, ISO 8601
};

std::filesystem::path install_record_path(const std::filesystem::path& cache_root);

// After a successful install: the new record (the previous record's backup is removed).
util::Result<void> record_install(const std::filesystem::path& cache_root,
                                  const InstallRecord& record);
// nullopt: no install was recorded.
util::Result<std::optional<InstallRecord>> read_install_record(
    const std::filesystem::path& cache_root);

struct UndoOutcome {
  bool undone = false;
  std::string message;  // what was done, or why there is nothing to undo
  std::string package;
  std::optional<std::string> removed_version, restored_version;
};

// "Nothing to undo" (no record, nothing replaced, already undone) is an
// outcome with undone=false; a refusal (another interpreter, the installed
// version changed since) is an error.
util::Result<UndoOutcome> undo_last_install(const env::Environment& environment,
                                            const std::filesystem::path& cache_root,
                                            std::function<void(std::string_view)> progress);

}  // namespace flashfit::workflow
