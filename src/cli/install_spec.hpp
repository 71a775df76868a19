#pragma once
// `flashfit install SPEC|WHEEL` for one spec, after install.cpp's dispatch
// (--lock, -r, --undo): workflow::install_package (install, else hand over to
// a source build, then install again), its progress on stderr and its report
// (text or JSON) through write_stdout. `install -r` calls it per compiled
// package, capturing that report. Exit 0 installed, 1 nothing installed.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "cli/what_if_flags.hpp"
#include "install/lines_run.hpp"
#include "install/preloaded_check.hpp"
#include "resolve/gather.hpp"
#include "util/error.hpp"

namespace flashfit::cli {

struct InstallSpecOptions {
  std::string spec;  // a requirement or a local .whl
  const EnvironmentFlags* environment = nullptr;
  resolve::SourceFlags sources;
  bool dry_run = false;
  bool no_build = false;
  bool json = false;
  std::optional<std::string> toolkit;  // for a hand-over to build
  std::size_t max_attempts = 5;
  // An import check's interpreter started earlier (install -r), or null.
  std::shared_ptr<install::PreloadedCheck> preloaded;
  // install -r's other lines, to go into the first installer run (or null);
  // still to run when a source build takes over, they run before it.
  std::shared_ptr<install::SharedLinesRun> lines;
};

util::Result<int> install_spec(const InstallSpecOptions& options);

}  // namespace flashfit::cli
