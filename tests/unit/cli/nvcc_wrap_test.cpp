// flashfit nvcc-wrap's hand parser: what reaches nvcc is everything after --,
// untouched; anything else is a usage error.

#include "cli/nvcc_wrap.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace flashfit::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(NvccWrapParse, FlagsThenNvccsArguments) {
  auto call = parse_nvcc_wrap({"--archs", "80,90", "--max-threads", "2", "--nvcc",
                               "/usr/local/cuda/bin/nvcc", "--", "-c", "--archs", "x", "--"});
  ASSERT_TRUE(call) << call.error().message;
  EXPECT_THAT(call->archs, ElementsAre("80,90"));
  EXPECT_EQ(call->max_threads, 2U);
  EXPECT_EQ(call->nvcc, "/usr/local/cuda/bin/nvcc");
  EXPECT_THAT(call->args, ElementsAre("-c", "--archs", "x", "--"));

  call = parse_nvcc_wrap({"--nvcc", "/n", "--archs", "80", "--"});
  ASSERT_TRUE(call) << call.error().message;
  EXPECT_EQ(call->max_threads, 1U);
  EXPECT_TRUE(call->args.empty());
}

TEST(NvccWrapParse, BadInputIsAUsageError) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "--archs is required"},
      {{"--archs", "80", "--"}, "--nvcc is required"},
      {{"--archs", "80", "--nvcc", "nvcc", "--"}, "absolute path"},
      {{"--archs", "80", "--nvcc", "/n"}, "-- and nvcc's arguments are required"},
      {{"--archs", "80", "--archs", "90", "--nvcc", "/n", "--"}, "--archs given twice"},
      {{"--archs"}, "--archs has no value"},
      {{"--archs", "80", "--max-threads", "0", "--nvcc", "/n", "--"}, "not a count"},
      {{"--archs", "80", "--max-threads", "-1", "--nvcc", "/n", "--"}, "not a count"},
      {{"--archs", "80", "--max-threads", "99999", "--nvcc", "/n", "--"}, "not a count"},
      {{"-c", "--archs", "80", "--nvcc", "/n", "--"}, "unknown argument -c"},
  };
  for (const auto& [words, message] : cases) {
    auto call = parse_nvcc_wrap(words);
    ASSERT_FALSE(call) << message;
    EXPECT_EQ(call.error().kind, util::ErrorKind::usage);
    EXPECT_THAT(call.error().message, HasSubstr(message));
  }
}

}  // namespace
}  // namespace flashfit::cli
