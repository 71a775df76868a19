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

// One JudgeCache over wheels that share a file name's version but not its
// facts: another source, another CUDA from a build record. Each is judged as
// with a cache of its own, in either order.
TEST(BuiltRecord, ASharedCacheKeepsFactsApartBySourceAndCuda) {
  Recipe recipe;
  recipe.name = "ffcache";
  recipe.needs_cuda = true;
  ReleaseFacts only_a;  // source "a": a Python this target does not have
  only_a.sources = {"a"};
  only_a.python = *pkg::SpecifierSet::parse(">=3.13");
  ReleaseFacts cuda124;  // CUDA 12.4 builds: compute capability 9.0 and newer
  cuda124.cuda = *pkg::SpecifierSet::parse("==12.4");
  cuda124.min_compute_capability = "9.0";
  recipe.releases = {only_a, cuda124};
  const std::string file = "ffcache-1.0+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl";
  Candidate from_a, from_b;
  from_a.filename = from_b.filename = file;
  from_a.source = "a";
  from_b.source = "b";
  Candidate built124 = built("2.9", pkg::CudaVersion{12, 4}, true, {"sm_80", "sm_90"}, file);
  const Request request{"ffcache", {}, "ffcache"};
  const ResolveTarget target = make_target({});
  const auto codes = [](const std::optional<Judged>& j) {
    std::string out;
    for (const Reason& r : j->reasons) out += std::string(to_string(r.code)) + " ";
    return out;
  };
  const std::vector<const Candidate*> order = {&from_a, &from_b, &built124};
  for (int reversed = 0; reversed < 2; ++reversed) {
    JudgeCache cache;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const Candidate& c = *order[reversed ? order.size() - 1 - i : i];
      EXPECT_EQ(codes(judge(c, request, &recipe, target, {false, &cache})),
                codes(judge(c, request, &recipe, target, {false, nullptr})))
          << c.source;
    }
    EXPECT_EQ(codes(judge(from_a, request, &recipe, target, {false, &cache})), "python ");
    EXPECT_EQ(codes(judge(from_b, request, &recipe, target, {false, &cache})), "");
    EXPECT_EQ(codes(judge(built124, request, &recipe, target, {false, &cache})),
              "compute-capability ");
  }
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
