// workflow::install_spec: a named wheel is installed as named only when its
// name fits here and it is a file here; otherwise the pin is picked.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../temp_dir.hpp"
#include "workflow/install_requirements_flow.hpp"

namespace flashfit::workflow {
namespace {

namespace fs = std::filesystem;

TakenPackage named(std::string url) {
  TakenPackage t;
  t.recipe = "flash-attn";
  t.spec = "flash-attn==2.8.3";
  t.form = RecipeLineForm::wheel_url;
  t.url = std::move(url);
  return t;
}

TEST(InstallSpec, AFittingLocalWheelIsInstalledAsNamed) {
  test::TempDir dir("install-spec");
  const fs::path wheel =
      dir.path() / "flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp311-cp311-linux_x86_64.whl";
  std::ofstream(wheel) << "x";
  const UrlVerdict fits{true, {}};
  EXPECT_EQ(install_spec(named(wheel.string()), fits), wheel.string());
  EXPECT_EQ(install_spec(named("file://" + wheel.string()), fits), wheel.string());
  // A relative path is read from the working directory, as pip reads it.
  const fs::path before = fs::current_path();
  fs::current_path(dir.path());
  EXPECT_EQ(install_spec(named(wheel.filename().string()), fits), wheel.string());
  fs::current_path(before);
}

TEST(InstallSpec, OtherwiseThePinIsPicked) {
  test::TempDir dir("install-spec");
  const fs::path wheel = dir.path() / "flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl";
  std::ofstream(wheel) << "x";
  const UrlVerdict fits{true, {}};
  const UrlVerdict not_here{false, {"CUDA 11 is not this torch's 13"}};
  EXPECT_EQ(install_spec(named(wheel.string()), not_here), "flash-attn==2.8.3");
  EXPECT_EQ(install_spec(named(wheel.string()), std::nullopt), "flash-attn==2.8.3");
  EXPECT_EQ(install_spec(named("https://h/flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl"), fits),
            "flash-attn==2.8.3");
  EXPECT_EQ(install_spec(named((dir.path() / "missing.whl").string()), fits), "flash-attn==2.8.3");
  EXPECT_EQ(install_spec(named("file://otherhost" + wheel.string()), fits), "flash-attn==2.8.3");
  TakenPackage sdist = named(wheel.string());
  sdist.form = RecipeLineForm::sdist;
  EXPECT_EQ(install_spec(sdist, fits), "flash-attn==2.8.3");
}

}  // namespace
}  // namespace flashfit::workflow
