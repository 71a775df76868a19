#pragma once
// The lines flashfit does not take, as the installer reads them: a
// requirements.txt (and constraints.txt when the plan has any) in a temp dir of
// the cache, `<cache>/tmp/<purpose>-<pid>`, removed with this value. For
// `install -r`'s installer run and `lock`'s pip resolution; with `pins`, a
// constraints file of flashfit's own beside them (install -r's torch pin).
#include <filesystem>
#include <string_view>

#include "util/error.hpp"
#include "workflow/install_requirements.hpp"

namespace flashfit::workflow {

class InstallerInputFiles {
 public:
  static util::Result<InstallerInputFiles> write(const InstallRequirementsPlan& plan,
                                                 std::string_view purpose,
                                                 std::string_view pins = {});
  InstallerInputFiles(InstallerInputFiles&& other) noexcept;
  InstallerInputFiles& operator=(InstallerInputFiles&&) = delete;
  InstallerInputFiles(const InstallerInputFiles&) = delete;
  InstallerInputFiles& operator=(const InstallerInputFiles&) = delete;
  ~InstallerInputFiles();

  const std::filesystem::path& requirements() const { return requirements_; }
  // Empty without pins.
  const std::filesystem::path& pins() const { return pins_; }

 private:
  InstallerInputFiles() = default;
  std::filesystem::path dir_;
  std::filesystem::path requirements_;
  std::filesystem::path pins_;
};

}  // namespace flashfit::workflow
