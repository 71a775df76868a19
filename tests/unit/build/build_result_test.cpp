// The result checks of the build workflow: the skip-CUDA-build trap
// (docs/background.md §15) must never reach the cache, and the build command
// must never let pip resolve, isolate or fetch anything.
#include <gtest/gtest.h>

#include <algorithm>

#include "build/build.hpp"

namespace flashfit::build {
namespace {

TEST(BuiltWheelTags, BinaryTagsPass) {
  EXPECT_TRUE(check_binary_tags("flash_attn-2.8.3-cp312-cp312-linux_x86_64.whl"));
  EXPECT_TRUE(check_binary_tags("ffbuild-1.0.0-cp311-cp311-manylinux_2_28_x86_64.whl"));
  EXPECT_TRUE(check_binary_tags("flash_attn_3-3.0.0b1-cp39-abi3-linux_x86_64.whl"));
}

TEST(BuiltWheelTags, PureWheelsAreTheTrap) {
  auto pure = check_binary_tags("flash_attn-2.8.3-py3-none-any.whl");
  ASSERT_FALSE(pure);
  EXPECT_EQ(pure.error().kind, util::ErrorKind::failed);
  EXPECT_NE(pure.error().message.find("py3-none-any"), std::string::npos);
  EXPECT_NE(pure.error().hint.find("FLASH_ATTENTION_SKIP_CUDA_BUILD"), std::string::npos);
  EXPECT_FALSE(check_binary_tags("x-1.0-py2.py3-none-any.whl"));
  EXPECT_FALSE(
      check_binary_tags("x-1.0-cp311-none-linux_x86_64.whl"));  // no ABI: no extension module
}

TEST(BuiltWheelTags, GarbageNamesAreInputErrors) {
  for (const char* name :
       {"", "x.whl", "not-a-wheel.tar.gz", "x-1.0-cp311.whl", "\x01\xff-1-a-b-c.whl"}) {
    auto r = check_binary_tags(name);
    ASSERT_FALSE(r) << name;
    EXPECT_EQ(r.error().kind, util::ErrorKind::input) << name;
  }
}

TEST(BuildCommand, NoIsolationNoDepsNoIndexVerbose) {
  auto argv = build_argv("/opt/venv/bin/python", "/src/flash-attn-2.8.3", "/tmp/b/dist");
  ASSERT_GE(argv.size(), 4u);
  EXPECT_EQ(argv[0], "/opt/venv/bin/python");
  for (const char* flag : {"--no-deps", "--no-build-isolation", "--no-index", "-v"}) {
    EXPECT_NE(std::find(argv.begin(), argv.end(), flag), argv.end()) << flag;
  }
  EXPECT_EQ(argv.back(), "/src/flash-attn-2.8.3");
  auto w = std::find(argv.begin(), argv.end(), "-w");
  ASSERT_NE(w, argv.end());
  EXPECT_EQ(*(w + 1), "/tmp/b/dist");
}

}  // namespace
}  // namespace flashfit::build
