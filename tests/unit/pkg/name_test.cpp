#include "pkg/name.hpp"

#include <gtest/gtest.h>

namespace flashfit::pkg {
namespace {

TEST(Name, CanonicalizesAsPep503) {
  EXPECT_EQ(canonicalize_name("flash_attn"), "flash-attn");
  EXPECT_EQ(canonicalize_name("Flash_Attn"), "flash-attn");
  EXPECT_EQ(canonicalize_name("flash-attn"), "flash-attn");
  EXPECT_EQ(canonicalize_name("Zope.Interface"), "zope-interface");
  EXPECT_EQ(canonicalize_name("a-_.-b"), "a-b");  // a run becomes one '-'
  EXPECT_EQ(canonicalize_name("a__b..c--d"), "a-b-c-d");
  EXPECT_EQ(canonicalize_name("_leading_"), "-leading-");  // no validation here
  EXPECT_EQ(canonicalize_name(""), "");
  EXPECT_EQ(canonicalize_name("NVIDIA_CUDA_Runtime_CU12"), "nvidia-cuda-runtime-cu12");
}

TEST(Name, ValidatesAsPep508) {
  for (const char* good :
       {"a", "A1", "flash_attn", "flash-attn", "zope.interface", "9pkg", "a-_.b"}) {
    EXPECT_TRUE(is_valid_project_name(good)) << good;
  }
  for (const char* bad :
       {"", "-a", "a-", "_a", "a.", ".", "a b", "a+b", "a/b", "caf\u00e9", "a@b"}) {
    EXPECT_FALSE(is_valid_project_name(bad)) << bad;
  }
  EXPECT_FALSE(is_valid_project_name(std::string_view("a\0b", 3)));
  EXPECT_TRUE(is_valid_project_name(std::string(100000, 'a')));
}

}  // namespace
}  // namespace flashfit::pkg
