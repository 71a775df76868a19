#include "util/utc_time.hpp"

#include <gtest/gtest.h>

using namespace flashfit::util;

TEST(UtcTime, ParseReadsBackWhatFormatWrites) {
  for (const std::time_t when : {std::time_t{0}, std::time_t{1'800'000'000}, std::time(nullptr)}) {
    const auto parsed = parse_utc(format_utc(when));
    ASSERT_TRUE(parsed) << format_utc(when);
    EXPECT_EQ(*parsed, when);
  }
  EXPECT_EQ(parse_utc("2026-11-27T20:33:39Z"), std::time_t{1'795'811'619});
}

TEST(UtcTime, ParseTakesOnlyThatForm) {
  for (const char* bad :
       {"", "2026-11-27", "2026-11-27T20:33:39", "2026-11-27T20:33:39+00:00",
        "2026-11-27 20:33:39Z", "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z",
        "2026-1-27T20:33:39ZZ", "2026-11-27T24:00:00Z", "2026-11-27T20:33:39Z\n", "x"}) {
    EXPECT_FALSE(parse_utc(bad)) << bad;
  }
}
