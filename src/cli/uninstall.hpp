#pragma once
// What `install` shares with `uninstall`: `install --undo`, and the record a
// successful install leaves for it.
#include <filesystem>

#include "cli/what_if_flags.hpp"
#include "install/install.hpp"
#include "util/error.hpp"

namespace flashfit::cli {

// `flashfit install --undo`: exit 0 restored, 1 nothing to undo.
util::Result<int> run_install_undo(const EnvironmentFlags& environment, bool json);

// After a successful install: what it replaced is kept for --undo (a warning when it cannot be).
void remember_install(const std::filesystem::path& cache_root, const env::Environment& environment,
                      const std::string& package, install::InstallOutcome& outcome);

}  // namespace flashfit::cli
