#include "install/lines_run.hpp"

namespace flashfit::install {

util::Result<util::ProcessResult> SharedLinesRun::run_with(const std::filesystem::path& wheel) {
  if (state_ != State::pending)
    return util::fail(util::ErrorKind::internal, "the requirements' lines already ran");
  state_ = State::with_wheel;
  std::vector<std::string> argv = lines_argv_;
  argv.insert(argv.end(), pin_args_.begin(), pin_args_.end());
  argv.push_back(wheel.string());
  auto ran = run_(argv);
  if (ran && ran->succeeded()) {
    lines_ok_ = true;
    deciding_ = *ran;
  }
  return ran;
}

util::Result<void> SharedLinesRun::run_alone() {
  if (lines_ok_.has_value()) return {};  // decided: installed, or failed by themselves
  state_ = State::alone;
  auto ran = run_(lines_argv_);
  if (!ran) return tl::unexpected(ran.error());
  lines_ok_ = ran->succeeded();
  deciding_ = std::move(*ran);
  // Not held by the pin here: a dependency of the lines may have moved torch.
  torch_changed_ = *lines_ok_ && torch_state_() != torch_before_;
  return {};
}

util::Result<void> SharedLinesRun::ensure_lines() {
  if (auto ran = run_alone(); !ran) return ran;
  if (lines_ok_ != true) {
    return util::fail(util::ErrorKind::failed,
                      "the installer could not install the requirements' other lines",
                      deciding_ ? deciding_->describe() : std::string());
  }
  if (torch_changed_) {
    return util::fail(util::ErrorKind::failed,
                      "the requirements' other lines changed torch: the wheel picked for the "
                      "torch before them is picked again");
  }
  return {};
}

}  // namespace flashfit::install
