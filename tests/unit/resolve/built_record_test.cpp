// A wheel `flashfit build` made has a plain name (no variant label); the
// record of what it was built against (cache entry -> Candidate::built_*)
// must drive the torch, CUDA, C++11-ABI and GPU-arch rules exactly as a label
// would, or a build for one torch would be installed on another.
#include <gtest/gtest.h>

#include "resolve/rules.hpp"
#include "targets.hpp"

namespace flashfit::resolve {
namespace {
using testing::make_target;
using testing::TargetSpec;

Candidate built(const std::string& torch, std::optional<pkg::CudaVersion> cuda, bool abi,
                std::vector<std::string> archs, const std::string& filename) {
  Candidate c;
  c.filename = filename;
  c.url = "/cache/" + filename;
  c.source = "cache";
  c.role = SourceRole::cache;
  pkg::VariantLabel v;
  auto dot = torch.find('.');
  v.torch = pkg::TorchVersion{std::stoi(torch.substr(0, dot)), std::stoi(torch.substr(dot + 1))};
  v.cuda = cuda;
  v.cpu_only = !cuda;
  v.cxx11_abi = abi;
  c.built_variant = v;
  c.built_archs = std::move(archs);
  return c;
}

bool has(const Judged& j, ReasonCode code) {
  return j.has(code);
}

TEST(BuiltRecord, FlashAttnBuiltForTheTorchHereFits) {
  RecipeBook book = RecipeBook::built_in();
  const Recipe* fa = book.find("flash-attn");
  Candidate c = built("2.9", pkg::CudaVersion{12, 8}, true, {"sm_80"},
                      "flash_attn-2.8.3-cp312-cp312-linux_x86_64.whl");
  auto j = judge(c, Request{"flash-attn", {}, "flash-attn"}, fa, make_target(TargetSpec{}));
  ASSERT_TRUE(j);
  EXPECT_TRUE(j->compatible()) << (j->reasons.empty() ? "" : j->reasons.front().message);
  EXPECT_EQ(j->abi_basis, "recorded by flashfit build");
}

TEST(BuiltRecord, OtherTorchOtherAbiOtherCudaAreRejected) {
  RecipeBook book = RecipeBook::built_in();
  const Recipe* fa = book.find("flash-attn");
  const std::string file = "flash_attn-2.8.3-cp312-cp312-linux_x86_64.whl";
  Request request{"flash-attn", {}, "flash-attn"};
  auto torch28 = judge(built("2.8", pkg::CudaVersion{12, 8}, true, {"sm_80"}, file), request, fa,
                       make_target({}));
  EXPECT_TRUE(has(*torch28, ReasonCode::torch));
  auto old_abi = judge(built("2.9", pkg::CudaVersion{12, 8}, false, {"sm_80"}, file), request, fa,
                       make_target({}));
  EXPECT_TRUE(has(*old_abi, ReasonCode::cxx11_abi));
  auto cu13 = judge(built("2.9", pkg::CudaVersion{13, 0}, true, {"sm_80"}, file), request, fa,
                    make_target({}));
  EXPECT_TRUE(has(*cu13, ReasonCode::cuda));
}

TEST(BuiltRecord, ArchsBuiltDecideGpuCoverage) {
  RecipeBook book = RecipeBook::built_in();
  const Recipe* fa = book.find("flash-attn");
  const std::string file = "flash_attn-2.8.3-cp312-cp312-linux_x86_64.whl";
  Request request{"flash-attn", {}, "flash-attn"};
  TargetSpec h100;
  h100.gpus = std::vector<std::string>{"9.0"};
  // Built for an L4 (sm_80 only): an H100 has no kernel image in it, although
  // the release's upstream wheels carry sm_90.
  auto j = judge(built("2.9", pkg::CudaVersion{12, 8}, true, {"sm_80"}, file), request, fa,
                 make_target(h100));
  ASSERT_TRUE(j);
  EXPECT_TRUE(has(*j, ReasonCode::gpu_arch));
  auto both = judge(
      built("2.9", pkg::CudaVersion{12, 8}, true, {"sm_80", "sm_90", "garbage", "sm_9x"}, file),
      request, fa, make_target(h100));
  EXPECT_FALSE(has(*both, ReasonCode::gpu_arch));
}

TEST(BuiltRecord, CpuBuildOfAPlainExtensionFitsACpuTorchOfTheSameMinorOnly) {
  const std::string file = "ffbuild-1.0.0-cp311-cp311-linux_x86_64.whl";
  Request request{"ffbuild", {}, "ffbuild"};
  TargetSpec cpu;
  cpu.python = "3.11";
  cpu.torch = "1.13.1";
  cpu.cuda = "none";
  cpu.gpus = std::vector<std::string>{};
  auto same =
      judge(built("1.13", std::nullopt, true, {}, file), request, nullptr, make_target(cpu));
  ASSERT_TRUE(same);
  EXPECT_TRUE(same->compatible()) << (same->reasons.empty() ? "" : same->reasons.front().message);
  TargetSpec newer = cpu;
  newer.torch = "2.1.0";
  auto other =
      judge(built("1.13", std::nullopt, true, {}, file), request, nullptr, make_target(newer));
  EXPECT_TRUE(has(*other, ReasonCode::torch));
}

}  // namespace
}  // namespace flashfit::resolve
