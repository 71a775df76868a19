// A ROCm build of torch (torch.version.hip, or a +rocm label): it has no
// CUDA, so CUDA wheels are rejected as needing one, in words that say ROCm,
// never "a CPU build"; a ROCm wheel fits the ROCm major.minor it was built
// for and no other.
#include <gtest/gtest.h>

#include "resolve/recipe.hpp"
#include "resolve/rules.hpp"
#include "targets.hpp"

namespace flashfit::resolve {
namespace {
using testing::make_target;

ResolveTarget rocm_torch(std::optional<env::MajorMinor> hip) {
  ResolveTarget t = make_target({.python = "3.11",
                                 .torch = "2.5.1+rocm6.2",
                                 .cuda = "none",
                                 .abi = false,
                                 .gpus = std::vector<std::string>{}});
  t.torch_rocm = true;
  t.torch_hip = hip;
  return t;
}

Candidate wheel(const std::string& filename) {
  return testing::wheel_from(filename);
}

std::string cuda_reason(const Judged& j) {
  for (const Reason& r : j.reasons)
    if (r.code == ReasonCode::cuda) return r.message;
  return {};
}

TEST(RocmTorch, CudaWheelsNeedACudaTorchAndSaySoInRocmWords) {
  RecipeBook book = RecipeBook::built_in();
  const Recipe* fa = book.find("flash-attn");
  const Request request{"flash-attn", {}, "flash-attn"};
  auto j = judge(wheel("flash_attn-2.8.3+cu12torch2.5cxx11abiFALSE-cp311-cp311-linux_x86_64.whl"),
                 request, fa, rocm_torch(env::MajorMinor{6, 2}));
  ASSERT_TRUE(j);
  EXPECT_EQ(cuda_reason(*j), "built for CUDA 12.x; torch 2.5.1+rocm6.2 is a ROCm build");
  // A CPU torch keeps its own words.
  auto cpu = judge(wheel("flash_attn-2.8.3+cu12torch2.5cxx11abiFALSE-cp311-cp311-linux_x86_64.whl"),
                   request, fa,
                   make_target({.python = "3.11",
                                .torch = "2.5.1+cpu",
                                .cuda = "none",
                                .abi = false,
                                .gpus = std::vector<std::string>{}}));
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cuda_reason(*cpu), "built for CUDA 12.x; torch 2.5.1+cpu is a CPU build");
}

TEST(RocmTorch, ARocmWheelFitsItsOwnRocmVersionOnly) {
  RecipeBook book = RecipeBook::built_in();
  const Recipe* fa = book.find("flash-attn");
  const Request request{"flash-attn", {}, "flash-attn"};
  const auto rocm62 =
      wheel("flash_attn-2.8.3+rocm62torch2.5cxx11abiFALSE-cp311-cp311-linux_x86_64.whl");
  auto same = judge(rocm62, request, fa, rocm_torch(env::MajorMinor{6, 2}));
  ASSERT_TRUE(same);
  EXPECT_EQ(cuda_reason(*same), "");
  auto other = judge(rocm62, request, fa, rocm_torch(env::MajorMinor{6, 1}));
  ASSERT_TRUE(other);
  EXPECT_EQ(cuda_reason(*other), "a ROCm 6.2 build; torch 2.5.1+rocm6.2 uses ROCm 6.1");
  auto unread = judge(rocm62, request, fa, rocm_torch(std::nullopt));
  ASSERT_TRUE(unread);
  EXPECT_EQ(cuda_reason(*unread),
            "a ROCm 6.2 build; torch 2.5.1+rocm6.2 uses ROCm of a version not read");
  // On a CUDA torch it is rejected as before.
  auto cuda =
      judge(rocm62, request, fa,
            make_target({.python = "3.11", .torch = "2.5.1+cu124", .cuda = "12.4", .abi = false}));
  ASSERT_TRUE(cuda);
  EXPECT_EQ(cuda_reason(*cuda), "a ROCm 6.2 build; torch here uses CUDA 12.4");
}

}  // namespace
}  // namespace flashfit::resolve
