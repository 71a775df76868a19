#pragma once
// `flashfit install SPEC|WHEEL` after the resolve flow: the install of what
// was resolved (fetch, inspect, install, import check, rollback; install/),
// the record --undo reads, and whether a source build takes over when nothing
// installed. Typed values only; progress and warnings go to the caller's sinks.
#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>

#include "install/install.hpp"
#include "workflow/resolve_flow.hpp"

namespace flashfit::workflow {

// One pass of resolve + install (the second pass, after a source build, finds
// the built wheel in the cache).
struct InstallPass {
  std::unique_ptr<Resolved> resolved;
  install::InstallOutcome outcome;
  // A local .whl was named and judged: it is tried even when rejected.
  bool named_file = false;
};

struct InstallPassOptions {
  bool dry_run = false;
  std::size_t max_attempts = 5;
  bool wheel_file = false;  // the request was a local .whl
  // An import check's interpreter started earlier (install -r), for the first attempt.
  std::shared_ptr<install::PreloadedCheck> preloaded;
  // install -r's other lines, for the first attempt's installer run (or null).
  std::shared_ptr<install::SharedLinesRun> lines;
  std::function<void(std::string_view)> progress;  // one line per step
  std::function<void(std::string_view)> warning;   // one line per warning
};

// Installs what `resolved` picked (nothing when it picked nothing and no file
// was named); a successful install is recorded for --undo.
util::Result<InstallPass> install_resolved(std::unique_ptr<Resolved> resolved,
                                           const InstallPassOptions& options);

// Installed, or (a dry run) something would have been tried.
bool installed_ok(const InstallPass& pass, bool dry_run);

// No prebuilt wheel works: build from the package's sdist, unless told not
// to, or the resolver says no GPU here can ever run the package (then the
// fallback is the answer, not hours of compiling). Pure.
bool hand_over_to_build(const InstallPass& pass, bool no_build, bool dry_run);

// After a successful install: what it replaced is kept for --undo. Nothing to
// record (no install, no interpreter) is not an error.
util::Result<void> remember_install(const std::filesystem::path& cache_root,
                                    const env::Environment& environment, const std::string& package,
                                    install::InstallOutcome& outcome);

}  // namespace flashfit::workflow
