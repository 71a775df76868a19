#include "util/strings.hpp"

#include <gtest/gtest.h>

#include <vector>

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

TEST(Strings, ValidUtf8IsRfc3629) {
  EXPECT_TRUE(valid_utf8(""));
  EXPECT_TRUE(valid_utf8("flash_attn-2.8.3+cu12"));
  EXPECT_TRUE(valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5 \xf4\x8f\xbf\xbf"));
  const std::vector<std::string> bad = {
      "\xc1",              // a lead byte alone, and an overlong one
      "\xc0\xaf",          // overlong '/'
      "\xe0\x80\xaf",      // overlong, three bytes
      "\xed\xa0\x80",      // a surrogate (U+D800)
      "\xf4\x90\x80\x80",  // above U+10FFFF
      "\xf5\x80\x80\x80",  // no such lead byte
      "\xe2\x82",          // cut short
      "ok\x80",            // a continuation byte alone
      "\xc3\x28",          // a lead byte without its continuation
  };
  for (const auto& text : bad) EXPECT_FALSE(valid_utf8(text)) << printable(text);
}

TEST(Strings, NameHashIsFnv1a64InSixteenHexDigits) {
  // FNV-1a's published 64-bit test values.
  EXPECT_EQ(name_hash_hex(""), "cbf29ce484222325");
  EXPECT_EQ(name_hash_hex("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(name_hash_hex("foobar"), "85944171f73967e8");
  // Leading zero digits are kept, every byte counts (NUL, high bytes), and
  // neighbouring paths differ.
  EXPECT_EQ(name_hash_hex("p6500"), "00d4d0185f34cc9a");
  EXPECT_NE(name_hash_hex(std::string("a\0", 2)), name_hash_hex("a"));
  EXPECT_NE(name_hash_hex("/usr/bin/python3"), name_hash_hex("/usr/bin/python3.11"));
  EXPECT_NE(name_hash_hex("\xff"), name_hash_hex("\x7f"));
}
