#pragma once
// `flashfit lock`'s document assembled: the requirements planned as
// `install -r` plans them, each recipe package resolved to its pick's URL and
// sha256 (a cache pick: the URL its bytes came from; a pick whose source gives
// no sha256: fetched into the cache to learn it), the other lines and the
// picks' own Requires-Dist (workflow/lock_deps) as the probed interpreter's pip
// (or uv pip compile) resolves them. cli/lock renders and
// writes the document.
// The acts are behind LockSteps, so that unit tests drive the order with fakes.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "env/environment.hpp"
#include "pkg/requirements_file.hpp"
#include "resolve/recipe.hpp"
#include "util/error.hpp"
#include "workflow/install_requirements.hpp"
#include "workflow/lock_file.hpp"
#include "workflow/pip_report.hpp"
#include "workflow/resolve_flow.hpp"
#include "workflow/uv_compile.hpp"

namespace flashfit::workflow {

class LockSteps {
 public:
  virtual ~LockSteps() = default;
  // One recipe package's resolution against the environment probed once.
  virtual util::Result<std::unique_ptr<Resolved>> resolve(const TakenPackage& taken,
                                                          const resolve::SourceFlags& sources) = 0;
  // The installer's own resolution of the lines flashfit does not take: pip's
  // `install --dry-run --report`, or `uv pip compile` read back for this
  // interpreter's tags.
  virtual util::Result<std::vector<ReportedPackage>> pip_resolution(
      const InstallRequirementsPlan& plan, const env::Interpreter& interpreter) = 0;
  virtual util::Result<std::vector<ReportedPackage>> uv_resolution(
      const InstallRequirementsPlan& plan, const env::Environment& environment) = 0;
  // The URLs the cache fetched these bytes from (none: built or added here).
  virtual std::vector<std::string> cache_urls(const std::string& sha256) = 0;
  // The sha256 of the candidate's bytes, fetched into the cache as install would.
  virtual util::Result<std::string> hash_by_download(const resolve::Candidate& candidate) = 0;
  // The Requires-Dist of the pick's METADATA, read from its bytes: the local
  // file, the cache's copy (by `sha256`), or, when `may_fetch`, the METADATA
  // its index serves (PEP 658), its last bytes (HTTP range requests), else
  // the whole wheel downloaded (checked against `sha256`) into the cache's
  // tmp/ and removed after. `fetching` is told what is fetched before the
  // tail's first read and before the whole download ("downloading X to read
  // its dependencies, since ..."). nullopt: the bytes are not on
  // this machine and were not to be fetched.
  virtual util::Result<std::optional<std::vector<std::string>>> requires_dist(
      const resolve::Candidate& pick, const std::optional<std::string>& sha256, bool may_fetch,
      const std::function<void(const std::string&)>& fetching) = 0;
};

struct LockInput {
  const std::vector<pkg::RequirementsFile>* files = nullptr;
  const resolve::RecipeBook* book = nullptr;
  const env::Environment* environment = nullptr;  // probed once; its interpreter known
  resolve::SourceFlags sources;
  std::vector<std::string> what_if;           // the what-if flags described; empty: none given
  bool no_download = false;                   // a pick with no known sha256 stays unhashed
  LineResolver resolver = LineResolver::pip;  // who resolves the installer's lines
  // A line without sha256 is warned about (a requirements lock leaves its
  // --hash out; a pylock refuses it when rendered, saying why).
  bool warn_unhashed = true;
  std::function<void(std::string_view)> note;     // progress (quiet with -q)
  std::function<void(std::string_view)> warning;  // what the lock cannot promise
  std::function<void(std::string_view)> remark;   // what is not locked, and why
};

// A recipe package no wheel fits: nothing is locked.
struct LockUnfit {
  TakenPackage taken;
  std::unique_ptr<Resolved> resolved;
};

struct LockOutcome {
  LockDocument document;
  std::optional<LockUnfit> unfit;
};

// Errors: a bad requirement or source, pip's failure, a pick that cannot be
// fetched to hash (naming its line), an installer's resolution that changes
// torch (input: the header, this environment's key, would name another torch)
// or holds a recipe package the requirements do not list (input: it would be
// locked as the installer's choice, its fit unchecked; the line that requires
// it named when pip's report says).
util::Result<LockOutcome> lock_requirements(LockSteps& steps, const LockInput& input);

// The production steps; `resolve` is the caller's (the CLI's flags into
// workflow::resolve_flow with the environment probed once).
class RealLockSteps : public LockSteps {
 public:
  using Resolve = std::function<util::Result<std::unique_ptr<Resolved>>(
      const TakenPackage&, const resolve::SourceFlags&)>;
  explicit RealLockSteps(Resolve resolve) : resolve_(std::move(resolve)) {}
  util::Result<std::unique_ptr<Resolved>> resolve(const TakenPackage& taken,
                                                  const resolve::SourceFlags& sources) override {
    return resolve_(taken, sources);
  }
  util::Result<std::vector<ReportedPackage>> pip_resolution(
      const InstallRequirementsPlan& plan, const env::Interpreter& interpreter) override;
  util::Result<std::vector<ReportedPackage>> uv_resolution(
      const InstallRequirementsPlan& plan, const env::Environment& environment) override;
  std::vector<std::string> cache_urls(const std::string& sha256) override;
  util::Result<std::string> hash_by_download(const resolve::Candidate& candidate) override;
  util::Result<std::optional<std::vector<std::string>>> requires_dist(
      const resolve::Candidate& pick, const std::optional<std::string>& sha256, bool may_fetch,
      const std::function<void(const std::string&)>& fetching) override;

 private:
  Resolve resolve_;
};

}  // namespace flashfit::workflow
