#pragma once
// `flashfit install --lock DIR|FILE`: the thin shell over
// workflow/install_lock (dispatched at the top of run_install, as -r is):
// this environment's key, the lock chosen for it or the refusal fact by
// fact, the install, the report. Exit 0 installed, 1 no lock fits or a step
// failed (the report says which), 2 bad input (nothing installed).
#include <string>
#include <vector>

#include "cli/what_if_flags.hpp"
#include "resolve/gather.hpp"
#include "util/error.hpp"

namespace flashfit::cli {

struct InstallLockCliRequest {
  std::string path;                                        // DIR (its index) or FILE
  const std::vector<std::string>* specs = nullptr;         // must be empty
  const std::vector<std::string>* requirements = nullptr;  // must be empty
  const EnvironmentFlags* environment = nullptr;
  const resolve::SourceFlags* sources = nullptr;  // refused: the lock's URLs are the sources
  bool dry_run = false;
  bool json = false;
  bool undo = false;  // refused with --lock
};

util::Result<int> run_install_lock(const InstallLockCliRequest& request);

}  // namespace flashfit::cli
