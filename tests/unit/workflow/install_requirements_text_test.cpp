// The requirements file install -r hands the installer: what a line said
// (its own options, quoted values) reaches pip as pip would have read it, and
// what flashfit cannot take is refused with the line named.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "../memory_files.hpp"
#include "workflow/install_requirements.hpp"

namespace flashfit::workflow {
namespace {

using MemoryFiles = testing::MemoryFiles;

util::Result<InstallRequirementsPlan> plan_of(const std::string& text, MemoryFiles& reader,
                                              const resolve::SourceFlags& flags = {}) {
  auto file = pkg::parse_requirements_file(text, "r.txt", reader);
  if (!file) return tl::unexpected(file.error());
  pkg::MarkerEnvironment markers;
  *markers.find("python_version") = "3.11";
  *markers.find("sys_platform") = "linux";
  *markers.find("os_name") = "posix";
  return plan_install_requirements({*file}, resolve::RecipeBook::built_in(), markers, flags);
}

util::Result<InstallRequirementsPlan> plan_of(const std::string& text,
                                              const resolve::SourceFlags& flags = {}) {
  MemoryFiles none;
  return plan_of(text, none, flags);
}

TEST(InstallRequirementsText, ALinesOwnOptionsReachTheInstallerQuoted) {
  MemoryFiles reader;
  reader.files["c.txt"] = "numpy<2 --install-option='--a b'\n";
  auto plan = plan_of(
      "six --global-option=--foo --install-option=\"--prefix=/x y\" --config-settings a=b\n"
      "-c c.txt\n",
      reader);
  ASSERT_TRUE(plan) << plan.error().message;
  const auto text = installer_requirements_text(*plan, "/tmp/c.txt");
  EXPECT_NE(text.find("\nsix --global-option=--foo --install-option='--prefix=/x y' "
                      "--config-settings=a=b\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(installer_constraints_text(*plan), "numpy<2 --install-option='--a b'\n");
}

TEST(InstallRequirementsText, SourceValuesWithSpacesAreQuoted) {
  resolve::SourceFlags flags;
  flags.find_links.push_back("/tmp/wh eels");
  auto plan = plan_of("six\n--find-links './my wheels'\n", flags);
  ASSERT_TRUE(plan) << plan.error().message;
  const auto text = installer_requirements_text(*plan, "");
  EXPECT_NE(text.find("\n--find-links '/tmp/wh eels'\n--find-links './my wheels'\n"),
            std::string::npos)
      << text;
}

TEST(InstallRequirementsText, AnIncludeLineIsNotSentAgain) {
  MemoryFiles reader;
  reader.files["sub.txt"] = "six\n";
  auto plan = plan_of("--pre -r sub.txt\n--pre\n", reader);
  ASSERT_TRUE(plan) << plan.error().message;
  const auto text = installer_requirements_text(*plan, "");
  EXPECT_EQ(text.find("-r sub.txt"), std::string::npos) << text;
  EXPECT_NE(text.find("# r.txt:2\n--pre\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# sub.txt:1\nsix\n"), std::string::npos) << text;
}

TEST(InstallRequirementsText, LegacySpecifiersPassThroughUnchanged) {
  auto plan = plan_of("six>=1.0.*\n");
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_NE(installer_requirements_text(*plan, "").find("\nsix>=1.0.*\n"), std::string::npos);

  auto refused = plan_of("numpy\nflash-attn>=2.0.* ; python_version > '3'\n");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().context, "r.txt:2");
  EXPECT_NE(refused.error().message.find("flash-attn"), std::string::npos)
      << refused.error().message;
}

TEST(InstallRequirementsText, APathsExtrasAreNotedOnTheTakenPackage) {
  auto plan = plan_of(
      "./wh/flash_attn-2.6.3+cu123torch2.4cxx11abiTRUE-cp311-cp311-linux_x86_64.whl"
      "[triton]\n");
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->flashfit.size(), 1u);
  EXPECT_TRUE(plan->installer.empty());
  EXPECT_EQ(plan->flashfit[0].spec, "flash-attn==2.6.3");
  ASSERT_FALSE(plan->flashfit[0].notes.empty());
  EXPECT_NE(plan->flashfit[0].notes[0].find("[triton]"), std::string::npos);
}

}  // namespace
}  // namespace flashfit::workflow
