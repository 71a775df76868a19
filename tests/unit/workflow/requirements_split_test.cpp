// Which requirements-file lines flashfit takes (recipe packages, in any
// form) and which go to the installer unchanged.
#include "workflow/requirements_split.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "net/http.hpp"

namespace flashfit::workflow {
namespace {

class NoFiles : public pkg::FileReader {
 public:
  util::Result<std::string> read(const std::string& path) override {
    return util::input_error("no such file", path);
  }
};

RequirementsSplit split(const std::string& text) {
  NoFiles reader;
  auto file = pkg::parse_requirements_file(text, "r.txt", reader);
  EXPECT_TRUE(file) << file.error().message;
  return split_requirements(*file, resolve::RecipeBook::built_in());
}

TEST(RequirementsSplit, RecipePackagesInEveryFormAreTaken) {
  const auto result = split(
      "numpy>=1.24\n"
      "flash_attn==2.8.3\n"
      "mamba-ssm @ https://h/mamba_ssm-2.2.4%2Bcu12torch2.6cxx11abiFALSE-cp310-cp310-linux_x86_64"
      ".whl\n"
      "https://h/causal_conv1d-1.5.0-cp311-cp311-linux_x86_64.whl\n"
      "./sdists/flash_attn-2.7.4.tar.gz\n"
      "requests\n");
  ASSERT_EQ(result.flashfit.size(), 4u);
  ASSERT_EQ(result.installer.size(), 2u);
  EXPECT_EQ(result.installer[0].text, "numpy>=1.24");
  EXPECT_EQ(result.installer[1].text, "requests");

  EXPECT_EQ(result.flashfit[0].recipe, "flash-attn");
  EXPECT_EQ(result.flashfit[0].form, RecipeLineForm::spec);
  EXPECT_EQ(result.flashfit[0].pin.str(), "==2.8.3");

  EXPECT_EQ(result.flashfit[1].recipe, "mamba-ssm");
  EXPECT_EQ(result.flashfit[1].form, RecipeLineForm::wheel_url);
  EXPECT_TRUE(result.flashfit[1].url.has_value());
  // The version (with its local label, %2B decoded) becomes the pin.
  EXPECT_EQ(result.flashfit[1].pin.str(), "==2.2.4+cu12torch2.6cxx11abifalse");

  EXPECT_EQ(result.flashfit[2].recipe, "causal-conv1d");
  EXPECT_EQ(result.flashfit[2].pin.str(), "==1.5.0");

  EXPECT_EQ(result.flashfit[3].form, RecipeLineForm::sdist);
  EXPECT_EQ(result.flashfit[3].pin.str(), "==2.7.4");
}

TEST(RequirementsSplit, ConstraintsAndUnreadableArchivesGoToTheInstaller) {
  const auto result = split("./x/not-a-wheel.whl\nhttps://h/flash-attn.tar.gz\n");
  EXPECT_TRUE(result.flashfit.empty());
  EXPECT_EQ(result.installer.size(), 2u);
}

TEST(RequirementsSplit, APathsExtrasDoNotHideItsWheel) {
  // pip strips a path's [extras] and installs that wheel, so flashfit must
  // recognise it too (and keep the extras on the line).
  const auto result = split(
      "./wh/flash_attn-2.6.3+cu123torch2.4cxx11abiTRUE-cp311-cp311-linux_x86_64.whl[triton]\n");
  ASSERT_EQ(result.flashfit.size(), 1u);
  EXPECT_EQ(result.flashfit[0].recipe, "flash-attn");
  EXPECT_EQ(result.flashfit[0].form, RecipeLineForm::wheel_url);
  EXPECT_EQ(result.flashfit[0].line.extras, (std::vector<std::string>{"triton"}));
  EXPECT_EQ(result.flashfit[0].pin.str(), "==2.6.3+cu123torch2.4cxx11abitrue");
}

TEST(RequirementsSplit, LegacySpecifiersGoToTheInstallerUnlessTheyNameARecipe) {
  const auto result = split("six>=1.0.*\nflash-attn>=2.0.*\n");
  ASSERT_EQ(result.installer.size(), 1u);
  EXPECT_EQ(result.installer[0].text, "six>=1.0.*");
  EXPECT_TRUE(result.flashfit.empty());
  ASSERT_EQ(result.refused.size(), 1u);
  EXPECT_EQ(result.refused[0].line, 2u);
}

// Named wheels and sdists are read by net::url_file_name: fully %XX-decoded.
TEST(RequirementsSplit, ArchiveFileNamesAreFullyPercentDecoded) {
  EXPECT_EQ(net::url_file_name("https://h/d/flash_attn-2.7.4%2bcu12torch2.6cxx11abiFALSE-cp311-"
                               "cp311-linux_x86_64.whl?x=1#y"),
            "flash_attn-2.7.4+cu12torch2.6cxx11abiFALSE-cp311-cp311-linux_x86_64.whl");
  EXPECT_EQ(net::url_file_name("./a%20b-1.0.tar.gz"), "a b-1.0.tar.gz");
}

}  // namespace
}  // namespace flashfit::workflow
