#pragma once
// The install run's contact with the world, behind one small interface (as
// ninja's CommandRunner and DiskInterface): fetching into the cache, the
// inspection, the backup, the installer's child process and the import
// check. Production uses RealInstallSteps; the unit tests of the run and its
// rollback use fakes that fail at each step (tests/unit/install).
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "env/environment.hpp"
#include "install/cached_verdict.hpp"
#include "install/import_check.hpp"
#include "install/installed.hpp"
#include "install/preloaded_check.hpp"
#include "resolve/recipe.hpp"
#include "resolve/resolver.hpp"
#include "store/wheel_cache.hpp"
#include "util/error.hpp"
#include "util/process.hpp"

namespace flashfit::install {

class InstallSteps {
 public:
  virtual ~InstallSteps() = default;
  // The candidate's bytes in the cache (downloaded once).
  virtual util::Result<store::CacheEntry> fetch(const resolve::Candidate& candidate) = 0;
  // The verdict on those bytes for this environment.
  virtual util::Result<CachedVerdict> inspect(store::CacheEntry& entry) = 0;
  // Copies of the previous version's files, taken before the first installer run.
  virtual util::Result<Backup> backup(const InstalledDist& dist,
                                      const std::filesystem::path& backup_dir) = 0;
  // The wheel's member paths (the files an installer run may write).
  virtual std::vector<std::string> members(const std::filesystem::path& wheel) = 0;
  // The modules that prove the installed binary.
  virtual std::vector<std::string> modules(const std::filesystem::path& wheel) = 0;
  // One installer run (install or uninstall), bounded.
  virtual util::Result<util::ProcessResult> run_installer(const std::vector<std::string>& argv) = 0;
  // The import check's interpreter started now, before the installer runs,
  // so that it imports torch meanwhile; check_imports uses it only when it
  // proves nothing it loaded changed. Default: none (every check fresh).
  virtual void start_import_check(bool /*import_torch*/) {}
  virtual util::Result<ImportCheck> check_imports(const ImportCheckOptions& options) = 0;
  // The proven install is recorded in its cache entry (best effort).
  virtual void record_installed(store::CacheEntry& entry) = 0;
};

// The real steps: the wheel cache, binary inspection, pip or uv, a fresh interpreter.
class RealInstallSteps final : public InstallSteps {
 public:
  RealInstallSteps(store::WheelCache& cache, const env::Environment& environment,
                   const resolve::Recipe* recipe, std::filesystem::path work_dir,
                   std::shared_ptr<PreloadedCheck> preloaded = nullptr);
  util::Result<store::CacheEntry> fetch(const resolve::Candidate& candidate) override;
  util::Result<CachedVerdict> inspect(store::CacheEntry& entry) override;
  util::Result<Backup> backup(const InstalledDist& dist,
                              const std::filesystem::path& backup_dir) override;
  std::vector<std::string> members(const std::filesystem::path& wheel) override;
  std::vector<std::string> modules(const std::filesystem::path& wheel) override;
  util::Result<util::ProcessResult> run_installer(const std::vector<std::string>& argv) override;
  void start_import_check(bool import_torch) override;
  util::Result<ImportCheck> check_imports(const ImportCheckOptions& options) override;
  void record_installed(store::CacheEntry& entry) override;

 private:
  store::WheelCache& cache_;
  const env::Environment& environment_;
  const resolve::Recipe* recipe_;
  std::filesystem::path work_dir_;
  std::optional<binary::LoadHost> host_;  // read once (torch's libraries), at the first inspect
  std::shared_ptr<PreloadedCheck> preloaded_;  // started, not yet asked
};

}  // namespace flashfit::install
