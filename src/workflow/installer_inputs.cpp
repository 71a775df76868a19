#include "workflow/installer_inputs.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <utility>

#include "util/atomic_file.hpp"
#include "util/paths.hpp"

namespace flashfit::workflow {

namespace fs = std::filesystem;

util::Result<InstallerInputFiles> InstallerInputFiles::write(const InstallRequirementsPlan& plan,
                                                             std::string_view purpose,
                                                             std::string_view pins) {
  auto cache_root = util::require_cache_root();
  if (!cache_root) return tl::unexpected(cache_root.error());
  InstallerInputFiles files;
  const fs::path dir = *cache_root / "tmp" / fmt::format("{}-{}", purpose, ::getpid());
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return util::fail(util::ErrorKind::failed, "cannot create " + dir.string(), ec.message());
  files.dir_ = dir;  // from here on, removed on every way out
  const fs::path constraints = dir / "constraints.txt";
  files.requirements_ = dir / "requirements.txt";
  if (!plan.constraints.empty()) {
    auto wrote = util::write_file_atomic(constraints, installer_constraints_text(plan));
    if (!wrote) return tl::unexpected(wrote.error());
  }
  auto wrote = util::write_file_atomic(files.requirements_,
                                       installer_requirements_text(plan, constraints.string()));
  if (!wrote) return tl::unexpected(wrote.error());
  if (!pins.empty()) {
    files.pins_ = dir / "flashfit-pins.txt";
    auto pinned = util::write_file_atomic(files.pins_, pins);
    if (!pinned) return tl::unexpected(pinned.error());
  }
  return files;
}

InstallerInputFiles::InstallerInputFiles(InstallerInputFiles&& other) noexcept
    : dir_(std::exchange(other.dir_, {})),
      requirements_(std::move(other.requirements_)),
      pins_(std::move(other.pins_)) {}

InstallerInputFiles::~InstallerInputFiles() {
  if (dir_.empty()) return;
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

}  // namespace flashfit::workflow
