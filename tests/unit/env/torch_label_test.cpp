// What a --torch label says of the what-if torch: its CUDA, and for a ROCm
// build its HIP (env/what_if.cpp).
#include <gtest/gtest.h>

#include "env/environment.hpp"
#include "sample_environment.hpp"

namespace flashfit::env {
namespace {

// A probed CUDA torch, then the what-if flags of `options` over it.
Environment with(const WhatIfOptions& options) {
  Environment env;
  env.torch = sample::cuda_torch("/usr/lib/python3/dist-packages");
  auto w = parse_what_if(options);
  EXPECT_TRUE(w) << (w ? "" : w.error().message);
  if (w) apply_what_if(env, *w);
  return env;
}

// download.pytorch.org's ROCm and XPU builds have no CUDA; a ROCm label
// names its HIP version (torch.version.hip). A label flashfit cannot read
// leaves the CUDA unknown.
TEST(ApplyWhatIf, TorchRocmAndXpuLabelsMeanNoCudaAndRocmNamesItsHip) {
  WhatIfOptions o;
  o.torch = "2.5.1+rocm6.2";
  Environment env = with(o);
  ASSERT_TRUE(env.torch.cuda.known());
  EXPECT_TRUE(env.torch.cuda->none());
  ASSERT_TRUE(env.torch.hip.known());
  ASSERT_FALSE(env.torch.hip->none());
  EXPECT_EQ(*env.torch.hip->version, "6.2");
  EXPECT_EQ(env.torch.hip.source, "--torch");
  o.torch = "2.6.0+rocm6.2.4";
  env = with(o);
  ASSERT_TRUE(env.torch.hip.known() && !env.torch.hip->none());
  EXPECT_EQ(*env.torch.hip->version, "6.2.4");
  o.torch = "2.7.0+xpu";
  env = with(o);
  ASSERT_TRUE(env.torch.cuda.known());
  EXPECT_TRUE(env.torch.cuda->none());
  EXPECT_TRUE(env.torch.hip->none());
  for (const char* odd : {"2.5.1+rocm", "2.5.1+rocm.6", "2.5.1+rocmx6.2", "2.5.1+rocm6.2x"}) {
    o.torch = odd;
    env = with(o);
    EXPECT_FALSE(env.torch.cuda.known()) << odd;
    EXPECT_TRUE(env.torch.hip->none()) << odd;
  }
  // An explicit --cuda still wins over the label.
  o.torch = "2.5.1+rocm6.2";
  o.cuda = "12.4";
  env = with(o);
  ASSERT_TRUE(env.torch.cuda.known());
  EXPECT_EQ(*env.torch.cuda->version, "12.4");
}

}  // namespace
}  // namespace flashfit::env
