#pragma once
// The import check's interpreter started before the installer runs, so that
// its slow part (importing torch: about a second) overlaps pip's run instead
// of following it. Its answer counts only with proof that the installer
// changed nothing it had loaded: torch's files (flashfit's fingerprint, taken
// when it started and again now) and the interpreter's own evidence (every
// loaded module and mapped file unchanged, nothing new shadowing one, the
// site dirs' .pth files as at startup). Without that proof the check runs
// again in a fresh interpreter, and that answer is the one reported.
#include <optional>
#include <string>
#include <vector>

#include "env/environment.hpp"
#include "install/import_check.hpp"
#include "util/error.hpp"
#include "util/process.hpp"

namespace flashfit::install {

// torch's files as an install could change them: every file under its
// library dir and its version.py, by size and mtime. Empty without torch.
std::vector<std::string> torch_fingerprint(const env::Environment& environment);

class PreloadedCheck {
 public:
  // Starts the interpreter now; it imports torch when asked, then waits.
  static util::Result<PreloadedCheck> start(const env::Environment& environment, bool import_torch);

  const std::string& python() const { return python_; }
  bool imports_torch() const { return import_torch_; }
  // torch's fingerprint when it started.
  const std::vector<std::string>& torch_before() const { return torch_before_; }

  // Tells it the modules (options.python and import_torch must be its own)
  // and waits for its answer. Once only.
  util::Result<CheckAnswer> finish(const ImportCheckOptions& options);

  // Ends its interpreter now (an interpreter with torch imported holds
  // hundreds of MB): for one set aside while copies of its handle are still
  // held (install -r's options), e.g. through a source build. finish() is then
  // an error.
  void abandon() { process_.reset(); }

 private:
  PreloadedCheck(std::string python, bool import_torch, std::vector<std::string> torch_before,
                 util::StartedProcess process)
      : python_(std::move(python)),
        import_torch_(import_torch),
        torch_before_(std::move(torch_before)),
        process_(std::in_place, std::move(process)) {}
  std::string python_;
  bool import_torch_ = false;
  std::vector<std::string> torch_before_;
  std::optional<util::StartedProcess> process_;  // nullopt once abandoned
};

// Why a preloaded interpreter's answer is set aside and the check runs again
// fresh; nullopt when its answer stands (pure). `torch_unchanged`: torch's
// fingerprint now equals the one taken when it started.
std::optional<std::string> preload_set_aside(const CheckAnswer& answer, bool import_torch,
                                             bool torch_unchanged);

}  // namespace flashfit::install
