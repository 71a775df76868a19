#include "util/strings.hpp"

#include <gtest/gtest.h>

using namespace flashfit::util;

TEST(Strings, SplitKeepsEmptyFields) {
  auto parts = split("a--b-", '-');
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0], "a");
  EXPECT_EQ(parts[1], "");
  EXPECT_EQ(parts[2], "b");
  EXPECT_EQ(parts[3], "");
  EXPECT_EQ(split("", '-').size(), 1u);
}

TEST(Strings, LowerTrimAscii) {
  EXPECT_EQ(ascii_lower("CxX11AbiTRUE"), "cxx11abitrue");
  EXPECT_EQ(trim(" \t 2.8.3 \n"), "2.8.3");
  EXPECT_EQ(trim("   "), "");
  EXPECT_TRUE(is_ascii("flash_attn"));
  EXPECT_FALSE(is_ascii("flash\xc3\xa9"));
}

TEST(Strings, PrintableEscapesAndCuts) {
  EXPECT_EQ(printable(std::string("a\0b\n\xff", 5)), "a\\x00b\\x0a\\xff");
  const auto long_text = printable(std::string(5000, 'x'), 10);
  EXPECT_EQ(long_text, "xxxxxxxxxx... (5000 bytes)");
}

TEST(Strings, EditDistanceCountsSwapsAsOne) {
  EXPECT_EQ(edit_distance("tags", "tags"), 0u);
  EXPECT_EQ(edit_distance("tgas", "tags"), 1u);
  EXPECT_EQ(edit_distance("doctr", "doctor"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("install", "inspect"), 4u);
}
