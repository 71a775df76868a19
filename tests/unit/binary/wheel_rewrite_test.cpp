// METADATA's Version rewritten to the file name's (upstream's local-label trap).
#include "binary/wheel_rewrite.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "../temp_dir.hpp"
#include "binary/wheel.hpp"
#include "wheel_builder.hpp"

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

TEST(WheelRewrite, TheSameInputGivesTheSameBytesOnEveryRun) {
  test::TempDir tmp("rewrite");
  wheel_fixture::WheelSpec spec;
  spec.filename = "demo_pkg-1.0+cu12-cp312-cp312-linux_x86_64.whl";
  spec.files.push_back({"demo_pkg/__init__.py", "x = 1\n"});
  const auto wheel = wheel_fixture::build_wheel(tmp.path(), spec);
  std::filesystem::create_directories(tmp.path() / "one");
  std::filesystem::create_directories(tmp.path() / "two");
  const auto one_path = tmp.path() / "one" / spec.filename;
  const auto two_path = tmp.path() / "two" / spec.filename;
  ASSERT_TRUE(rewrite_metadata_version(wheel, one_path, "1.0+cu12"));
  // Zip times have a 2-second grain: a rewrite stamping the clock would differ.
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  ASSERT_TRUE(rewrite_metadata_version(wheel, two_path, "1.0+cu12"));
  const auto one = wheel_fixture::read_file(one_path);
  auto opened = open_wheel(one_path);
  ASSERT_TRUE(opened) << opened.error().message;
  auto metadata = opened->read_member("demo_pkg-1.0.dist-info/METADATA", 1 << 20);
  ASSERT_TRUE(metadata);
  EXPECT_NE(metadata->find("Version: 1.0+cu12\n"), std::string::npos);
  EXPECT_EQ(one, wheel_fixture::read_file(two_path));
}

}  // namespace
}  // namespace flashfit::binary
