// METADATA's Version rewritten to the file name's (upstream's local-label trap).
#include "binary/wheel_rewrite.hpp"

#include <gtest/gtest.h>

namespace flashfit::binary {
namespace {

TEST(WheelRewrite, SetsTheVersionHeaderOnly) {
  const std::string in =
      "Metadata-Version: 2.1\nName: flash_attn\nVersion: 2.8.3\nSummary: x\n\nVersion: body\n";
  auto out = with_metadata_version(in, "2.8.3+cu12torch2.8cxx11abitrue");
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(*out,
            "Metadata-Version: 2.1\nName: flash_attn\nVersion: "
            "2.8.3+cu12torch2.8cxx11abitrue\nSummary: x\n\n"
            "Version: body\n");
}

TEST(WheelRewrite, KeepsCrlfLineEnds) {
  auto out = with_metadata_version("Name: a\r\nVersion: 1\r\n\r\n", "1+x");
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, "Name: a\r\nVersion: 1+x\r\n\r\n");
}

TEST(WheelRewrite, RefusesMissingOrDuplicateVersionHeaders) {
  EXPECT_FALSE(with_metadata_version("Name: a\n\n", "1"));
  EXPECT_FALSE(with_metadata_version("Name: a\nVersion: 1\nVersion: 2\n", "1"));
  EXPECT_FALSE(with_metadata_version("", "1"));
}

}  // namespace
}  // namespace flashfit::binary
