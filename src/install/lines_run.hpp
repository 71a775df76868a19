#pragma once
// `install -r`'s installer run over the lines flashfit does not take, shared
// with the first compiled package's install: the verified wheel goes into
// that same run, so one installer start does what two did (pip's start is
// about half a second of the `install -r` bench, bench/README). torch is held
// at its installed version by a constraint in that run (the caller's pins),
// so the pick made before the run stays right after it.
//
// A combined run that fails is nobody's verdict yet (the lines, the wheel or
// their mix): the lines then run by themselves, and their run decides
// whether the lines installed; the wheel goes on by itself, as it would
// without sharing, unless the lines by themselves changed torch (a line's
// dependency wanted another torch: what made the pinned run fail): then the
// pick made before them is stale, and the caller picks again.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"
#include "util/process.hpp"

namespace flashfit::install {

// Runs one installer argv (production: install::run_installer with the
// user's configuration, as `pip install -r` would read it).
using InstallerRunner =
    std::function<util::Result<util::ProcessResult>(const std::vector<std::string>& argv)>;
// torch's files as an install changes them (production: torch_fingerprint).
using TorchState = std::function<std::vector<std::string>()>;

class SharedLinesRun {
 public:
  // `lines_argv`: the installer's argv over the lines, as they run alone;
  // the combined run appends `pin_args` (`-c FILE` holding torch) and the
  // wheel's path. `torch_state` is read now and after a lone run.
  SharedLinesRun(std::vector<std::string> lines_argv, std::vector<std::string> pin_args,
                 InstallerRunner run, TorchState torch_state)
      : lines_argv_(std::move(lines_argv)),
        pin_args_(std::move(pin_args)),
        run_(std::move(run)),
        torch_state_(std::move(torch_state)),
        torch_before_(torch_state_()) {}

  // Nothing has run yet.
  bool pending() const { return state_ == State::pending; }
  // The lines went in with a wheel, in one run that succeeded.
  bool shared() const { return state_ == State::with_wheel && lines_ok_ == true; }

  // The combined run: the lines and `wheel`. Only while pending. Its result
  // is the wheel's install result when it succeeded; when it failed, call
  // run_alone() to learn whether the lines install, then install the wheel by itself.
  util::Result<util::ProcessResult> run_with(const std::filesystem::path& wheel);
  // The lines by themselves: when no wheel took them, or the combined run
  // failed. Does nothing once a run decided whether the lines install.
  // After it, torch_changed() says whether they moved torch.
  util::Result<void> run_alone();
  // run_alone(), then an error unless the lines are installed (the deciding
  // run says why) with torch as it was: what must hold before a wheel picked
  // for that torch goes on top of them.
  util::Result<void> ensure_lines();
  // The lines by themselves changed torch: a pick made before them is stale.
  bool torch_changed() const { return torch_changed_; }

  // Whether the lines are installed; nullopt before a run decided it.
  std::optional<bool> lines_ok() const { return lines_ok_; }
  // The run that decided it (the combined or the lone one), for the report.
  const std::optional<util::ProcessResult>& deciding_run() const { return deciding_; }

 private:
  enum class State { pending, with_wheel, alone };
  std::vector<std::string> lines_argv_;
  std::vector<std::string> pin_args_;
  InstallerRunner run_;
  TorchState torch_state_;
  std::vector<std::string> torch_before_;
  bool torch_changed_ = false;
  State state_ = State::pending;
  std::optional<bool> lines_ok_;
  std::optional<util::ProcessResult> deciding_;
};

}  // namespace flashfit::install
