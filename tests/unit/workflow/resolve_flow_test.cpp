// The resolve flow's typed seams: a local wheel as the one candidate, the
// order of its refusals (before anything is probed), the suggested commands'
// context.
#include "workflow/resolve_flow.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace flashfit::workflow {
namespace {

TEST(ResolveFlowFile, AWheelFileIsItsOwnRequestAndCandidate) {
  std::optional<resolve::Candidate> candidate;
  auto request = request_for_file(
      "dist/flash_attn-2.8.3+cu12torch2.6cxx11abiFALSE-cp311-cp311-linux_x86_64.whl", candidate);
  ASSERT_TRUE(request) << request.error().message;
  EXPECT_EQ(request->name, "flash-attn");
  ASSERT_TRUE(candidate);
  EXPECT_EQ(candidate->source, "file");
  EXPECT_EQ(candidate->role, resolve::SourceRole::find_links);
  EXPECT_TRUE(std::filesystem::path(candidate->url).is_absolute());
}

TEST(ResolveFlowFile, ANameThatIsNoWheelIsAUsageError) {
  std::optional<resolve::Candidate> candidate;
  auto request = request_for_file("dist/flash_attn.tar.gz", candidate);
  ASSERT_FALSE(request);
  EXPECT_EQ(request.error().kind, util::ErrorKind::usage);
  EXPECT_NE(request.error().message.find("not a wheel file name"), std::string::npos);
  EXPECT_FALSE(candidate);
}

ResolveFlowInput input_for(const std::string& name, const resolve::SourceFlags& flags) {
  ResolveFlowInput input;
  input.request.name = name;
  input.book = resolve::RecipeBook::built_in();
  input.sources = &flags;
  input.probe = util::fail(util::ErrorKind::usage, "bad --gpu value");
  input.require_interpreter = [](const env::Environment&) -> util::Result<void> {
    ADD_FAILURE() << "nothing may be probed after a bad flag";
    return {};
  };
  return input;
}

class ResolveFlowOrder : public ::testing::Test {
 protected:
  void SetUp() override {
    // An empty cache: it knows no package.
    dir_ = std::filesystem::temp_directory_path() /
           ("flashfit-resolve-flow-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    ::setenv("FLASHFIT_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("FLASHFIT_CACHE_DIR");
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
};

TEST_F(ResolveFlowOrder, AnUnknownPackageIsRefusedBeforeABadFlag) {
  resolve::SourceFlags flags;
  auto out = resolve_flow(input_for("no-such-package", flags));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().kind, util::ErrorKind::usage);
  EXPECT_EQ(out.error().message.rfind("no recipe and no index knows 'no-such-package'", 0), 0u)
      << out.error().message;
}

TEST_F(ResolveFlowOrder, ABadFlagIsReportedBeforeAnythingIsProbed) {
  resolve::SourceFlags flags;
  auto out = resolve_flow(input_for("flash-attn", flags));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message, "bad --gpu value");
}

TEST(ResolveFlowCommandContext, NamesTheGivenPythonShellQuoted) {
  env::Environment environment;
  auto ctx = command_context(environment, std::string("/my env/bin/python"));
  EXPECT_EQ(ctx.python, "");  // none was probed
  ASSERT_EQ(ctx.flags.size(), 1u);
  EXPECT_EQ(ctx.flags[0].first, "--python");
  EXPECT_EQ(ctx.flags[0].second, "'/my env/bin/python'");
  EXPECT_TRUE(command_context(environment, std::nullopt).flags.empty());
}

}  // namespace
}  // namespace flashfit::workflow
