#include "install/preloaded_check.hpp"

#include <fmt/format.h>

#include <system_error>

#include "install/installed.hpp"

namespace flashfit::install {

namespace fs = std::filesystem;

std::vector<std::string> torch_fingerprint(const env::Environment& environment) {
  std::vector<std::string> out;
  if (!environment.torch.package_dir.known()) return out;
  if (environment.torch.library_dir.known()) out = tree_fingerprint(*environment.torch.library_dir);
  std::error_code ec;
  const fs::path version = *environment.torch.package_dir / "version.py";
  auto size = fs::file_size(version, ec);
  auto mtime = fs::last_write_time(version, ec).time_since_epoch().count();
  out.push_back(fmt::format("{} {} {}", version.string(), size, mtime));
  return out;
}

util::Result<PreloadedCheck> PreloadedCheck::start(const env::Environment& environment,
                                                   bool import_torch) {
  if (!environment.python.interpreter.known())
    return util::fail(util::ErrorKind::internal, "no interpreter to preload");
  const std::string python = environment.python.interpreter->executable;
  // Taken before the interpreter starts: whatever it loads is at least this new.
  std::vector<std::string> before = torch_fingerprint(environment);
  auto process = util::StartedProcess::start(check_process(python, import_torch, true));
  if (!process) return tl::unexpected(process.error());
  return PreloadedCheck(python, import_torch, std::move(before), std::move(*process));
}

util::Result<CheckAnswer> PreloadedCheck::finish(const ImportCheckOptions& options) {
  // The check's timeout counts from here: the interpreter waited while pip ran.
  if (!process_) return util::fail(util::ErrorKind::internal, "the interpreter was abandoned");
  auto run = process_->finish(check_request(options), options.timeout);
  if (!run) return tl::unexpected(run.error());
  CheckAnswer answer = read_check_output(*run, options);
  answer.check.preloaded = true;
  return answer;
}

std::optional<std::string> preload_set_aside(const CheckAnswer& answer, bool import_torch,
                                             bool torch_unchanged) {
  if (!torch_unchanged) return std::string("torch's files changed while the installer ran");
  if (answer.stale) return "what it had loaded changed: " + *answer.stale;
  // torch may be what the installer just put there (install -r's lines).
  if (import_torch && !answer.check.torch_ok)
    return std::string("torch did not import when it started");
  // A module's import that hung past the timeout after the interpreter proved
  // itself current (it said torch's result) hangs in a fresh one too: that
  // answer stands, rather than a second full timeout for the same verdict.
  if (!answer.complete && answer.timed_out && answer.torch_said) return std::nullopt;
  // A crash, or a timeout before that proof: the fresh interpreter's answer is the one to trust.
  if (!answer.complete) return std::string("it did not answer in full");
  return std::nullopt;
}

}  // namespace flashfit::install
