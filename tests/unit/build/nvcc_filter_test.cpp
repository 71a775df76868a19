// filter_nvcc_args: the targets of the requested archs kept, --threads
// capped, and bad or emptied argument lists refused.
#include "build/nvcc_filter.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace flashfit::build {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// What causal-conv1d 1.7.0's setup.py passes nvcc 13 (abridged: 3 of 9 targets).
const std::vector<std::string> kCausal = {"-O3",
                                          "-gencode",
                                          "arch=compute_75,code=sm_75",
                                          "-gencode",
                                          "arch=compute_80,code=sm_80",
                                          "-gencode=arch=compute_90,code=sm_90",
                                          "--threads",
                                          "4",
                                          "-c",
                                          "x.cu"};

TEST(NvccFilter, KeepsOnlyTheRequestedArchsAndCapsThreads) {
  auto r = filter_nvcc_args(kCausal, {{80}, 2});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_THAT(r->args, ElementsAre("-O3", "-gencode", "arch=compute_80,code=sm_80", "--threads",
                                   "2", "-c", "x.cu"));
  EXPECT_THAT(r->dropped, ElementsAre("arch=compute_75,code=sm_75", "arch=compute_90,code=sm_90"));
  r = filter_nvcc_args({"-arch=sm_90a", "-arch", "sm_80", "--threads=0", "-t", "1"}, {{80, 90}, 3});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_THAT(r->args,
              ElementsAre("-arch", "sm_90a", "-arch", "sm_80", "--threads", "3", "--threads", "1"));
}

TEST(NvccFilter, BadOrEmptiedArgumentsAreRefused) {
  auto r = filter_nvcc_args(kCausal, {{100}, 2});
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("none of the targets"));
  EXPECT_FALSE(filter_nvcc_args({"-gencode"}, {{80}, 1}));
  EXPECT_FALSE(filter_nvcc_args({"-gencode", "arch=compute_8,code=sm_8"}, {{80}, 1}));
  EXPECT_FALSE(filter_nvcc_args({"-gencode", "arch=compute_80;rm,code=sm_80"}, {{80}, 1}));
  EXPECT_FALSE(filter_nvcc_args({"--threads", "four"}, {{80}, 1}));
  // No targets at all: nothing to filter, passed through.
  r = filter_nvcc_args({"-c", "x.cpp"}, {{80}, 1});
  ASSERT_TRUE(r);
  EXPECT_THAT(r->args, ElementsAre("-c", "x.cpp"));
}

}  // namespace
}  // namespace flashfit::build
