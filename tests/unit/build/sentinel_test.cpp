// The build sentinel's words (build/sentinel.*): what the supervisor writes
// parses back; anything else is a usage error, never a pid it would signal.
#include "build/sentinel.hpp"

#include <gtest/gtest.h>

namespace flashfit::build {
namespace {

using std::chrono::milliseconds;

TEST(SentinelCall, TheSupervisorsArgvParsesBack) {
  const auto argv = sentinel_argv("/proc/self/exe", 4242, milliseconds{5000});
  ASSERT_EQ(argv.size(), 4u);
  EXPECT_EQ(argv[0], "/proc/self/exe");
  EXPECT_EQ(argv[1], kSentinelCommand);
  const auto call = parse_sentinel_call({argv[2], argv[3]});
  ASSERT_TRUE(call) << call.error().message;
  EXPECT_EQ(call->root, 4242);
  EXPECT_EQ(call->grace, milliseconds{5000});
}

TEST(SentinelCall, BadWordsAreUsageErrorsNamingTheWord) {
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"4242"},
      {"4242", "10", "extra"},
      {"1", "10"},  // init, or every process
      {"0", "10"},
      {"-5", "10"},
      {"4242x", "10"},
      {"", "10"},
      {"99999999999", "10"},
      {"4242", "-1"},
      {"4242", "600001"},
      {"4242", "1.5"},
  };
  for (const auto& words : bad) {
    const auto call = parse_sentinel_call(words);
    ASSERT_FALSE(call) << (words.empty() ? "(none)" : words[0]);
    EXPECT_EQ(call.error().kind, util::ErrorKind::usage);
  }
  EXPECT_NE(parse_sentinel_call({"4242x", "10"}).error().message.find("'4242x'"),
            std::string::npos);
}

TEST(SentinelCall, WithoutARegisteredExecutableThereIsNone) {
  // The test binary registers nothing: its builds run without a sentinel.
  EXPECT_FALSE(sentinel_executable());
  register_sentinel_executable("/usr/bin/flashfit");
  EXPECT_EQ(sentinel_executable(), std::filesystem::path("/usr/bin/flashfit"));
  register_sentinel_executable({});
}

}  // namespace
}  // namespace flashfit::build
