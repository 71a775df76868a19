// workflow::install_spec: a named wheel is installed as named only when its
// name fits here and it is a file here; otherwise the pin is picked. And
// check_named_hashes: such a file is held to the line's --hash.
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

// A named local file is held to the line's sha256 --hash, as pip holds it.
TEST(CheckNamedHashes, ALocalFileMustMatchOneOfTheLinesSha256) {
  test::TempDir dir("named-hashes");
  const fs::path wheel = dir.path() / "flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl";
  std::ofstream(wheel) << "x";
  // sha256("x")
  const std::string digest = "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881";
  InstallRequirementsPlan plan;
  plan.flashfit.push_back(named("file://" + wheel.string()));
  plan.flashfit[0].where = "r.txt:3";
  plan.flashfit[0].hashes = {"sha256:" + std::string(64, '0'), "sha256:" + digest};
  EXPECT_TRUE(check_named_hashes(plan));
  plan.flashfit[0].hashes = {"sha256:" + std::string(64, '0')};
  auto refused = check_named_hashes(plan);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, util::ErrorKind::input);
  EXPECT_EQ(refused.error().context, "r.txt:3");
  EXPECT_NE(refused.error().message.find(digest), std::string::npos) << refused.error().message;
  // Any one of the line's hashes may name it, sha384 and sha512 too.
  const std::string sha512 =
      "a4abd4448c49562d828115d13a1fccea927f52b4d5459297f8b43e42da89238bc13626e43dcb38ddb082488927ec"
      "904fb42057443983e88585179d50551afe62";
  plan.flashfit[0].hashes = {"sha256:" + std::string(64, '0'), "sha512:" + sha512};
  EXPECT_TRUE(check_named_hashes(plan));
  plan.flashfit[0].hashes = {"sha512:" + std::string(128, '0')};
  auto wrong512 = check_named_hashes(plan);
  ASSERT_FALSE(wrong512);
  EXPECT_NE(wrong512.error().message.find("sha512 " + sha512), std::string::npos)
      << wrong512.error().message;
  // A remote file (never installed as named): nothing to hold the bytes to.
  plan.flashfit[0] = named("https://h/flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl");
  plan.flashfit[0].hashes = {"sha256:" + std::string(64, '0')};
  EXPECT_TRUE(check_named_hashes(plan));
}

}  // namespace
}  // namespace flashfit::workflow
