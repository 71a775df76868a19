// kernel_for_gpu (docs/background.md §2) on images read from nvcc-built
// fixtures and on synthetic entries for targets nvcc 13 cannot check here.
#include <gtest/gtest.h>

#include <utility>

#include "binary/fatbin.hpp"
#include "fatbin_fixtures.hpp"

using namespace flashfit;
using namespace flashfit::binary;
using flashfit::binary::fixtures::read_ok;

namespace {

FatbinEntry image(FatbinKind kind, int arch, ArchVariant variant = ArchVariant::none,
                  std::optional<std::string> isa = std::nullopt) {
  FatbinEntry entry;
  entry.kind = kind;
  entry.raw_kind = kind == FatbinKind::ptx ? 1 : 2;
  entry.arch = arch;
  entry.variant = variant;
  entry.ptx_isa_version = std::move(isa);
  return entry;
}

std::string chosen(const KernelVerdict& verdict) {
  return verdict.entry ? verdict.entry->name() : "-";
}

TEST(FatbinRules, FlashAttnShapedLibrary) {
  REQUIRE_NVCC();
  const auto entries = read_ok(FLASHFIT_FATBIN_DEFAULT).entries;

  auto v86 = kernel_for_gpu(entries, 8, 6);
  EXPECT_EQ(v86.source, KernelSource::sass);
  EXPECT_EQ(chosen(v86), "sm_80");
  EXPECT_TRUE(v86.warning.empty());

  auto v90 = kernel_for_gpu(entries, 9, 0);
  EXPECT_EQ(v90.source, KernelSource::sass);
  EXPECT_EQ(chosen(v90), "sm_90");

  auto v100 = kernel_for_gpu(entries, 10, 0);
  EXPECT_EQ(v100.source, KernelSource::ptx_jit);
  EXPECT_EQ(chosen(v100), "compute_90");
  EXPECT_NE(v100.warning.find("JIT"), std::string::npos);
  EXPECT_NE(v100.warning.find("CUDA 13.0"), std::string::npos);
  EXPECT_FALSE(v100.driver_ok.has_value());  // the driver is not known: neither yes nor no

  auto old_driver = kernel_for_gpu(entries, 12, 0, CudaVersion{12, 8});
  EXPECT_EQ(old_driver.source, KernelSource::ptx_jit);
  EXPECT_EQ(old_driver.driver_ok, false);
  EXPECT_NE(old_driver.warning.find("cudaErrorUnsupportedPtxVersion"), std::string::npos);
  EXPECT_EQ(kernel_for_gpu(entries, 12, 0, CudaVersion{13, 0}).driver_ok, true);

  auto v75 = kernel_for_gpu(entries, 7, 5);
  EXPECT_EQ(v75.source, KernelSource::none);
  EXPECT_FALSE(v75.entry.has_value());
  EXPECT_NE(v75.warning.find("no kernel image"), std::string::npos);
  EXPECT_NE(v75.warning.find("sm_80, sm_90"), std::string::npos);
}

TEST(FatbinRules, ArchSpecificRunsOnlyOnExactCapability) {
  REQUIRE_NVCC();
  const auto entries = read_ok(FLASHFIT_FATBIN_SM90A).entries;
  EXPECT_EQ(kernel_for_gpu(entries, 9, 0).source, KernelSource::sass);
  EXPECT_EQ(chosen(kernel_for_gpu(entries, 9, 0)), "sm_90a");
  for (auto [major, minor] : {std::pair{8, 0}, {8, 9}, {10, 0}, {12, 0}}) {
    EXPECT_EQ(kernel_for_gpu(entries, major, minor).source, KernelSource::none) << major << minor;
  }
  // Synthetic: a hypothetical 9.1 GPU does not run sm_90a, and compute_90a is not portable PTX.
  EXPECT_EQ(kernel_for_gpu(entries, 9, 1).source, KernelSource::none);
  const std::vector<FatbinEntry> ptx_a{image(FatbinKind::ptx, 90, ArchVariant::a, "9.0")};
  EXPECT_EQ(kernel_for_gpu(ptx_a, 9, 0).source, KernelSource::ptx_jit);
  EXPECT_EQ(kernel_for_gpu(ptx_a, 10, 0).source, KernelSource::none);
}

TEST(FatbinRules, FamilySpecificRunsWithinTheFamily) {
  const std::vector<FatbinEntry> sass_f{image(FatbinKind::cubin, 100, ArchVariant::f)};
  EXPECT_EQ(kernel_for_gpu(sass_f, 10, 0).source, KernelSource::sass);
  EXPECT_EQ(kernel_for_gpu(sass_f, 10, 3).source, KernelSource::sass);
  EXPECT_EQ(kernel_for_gpu(sass_f, 11, 0).source, KernelSource::none);
  EXPECT_EQ(kernel_for_gpu(sass_f, 12, 0).source, KernelSource::none);
  const std::vector<FatbinEntry> sass_103f{image(FatbinKind::cubin, 103, ArchVariant::f)};
  EXPECT_EQ(kernel_for_gpu(sass_103f, 10, 0).source, KernelSource::none);
  const std::vector<FatbinEntry> ptx_f{image(FatbinKind::ptx, 100, ArchVariant::f, "9.0")};
  EXPECT_EQ(kernel_for_gpu(ptx_f, 10, 3).source, KernelSource::ptx_jit);
  EXPECT_EQ(kernel_for_gpu(ptx_f, 12, 0).source, KernelSource::none);
}

TEST(FatbinRules, PrefersNewestFittingSassAndDriverReadablePtx) {
  const std::vector<FatbinEntry> entries{image(FatbinKind::cubin, 80), image(FatbinKind::cubin, 86),
                                         image(FatbinKind::cubin, 89),
                                         image(FatbinKind::ptx, 80, ArchVariant::none, "7.8"),
                                         image(FatbinKind::ptx, 90, ArchVariant::none, "9.0")};
  EXPECT_EQ(chosen(kernel_for_gpu(entries, 8, 7)), "sm_86");
  EXPECT_EQ(chosen(kernel_for_gpu(entries, 8, 9)), "sm_89");
  EXPECT_EQ(chosen(kernel_for_gpu(entries, 10, 0)), "compute_90");
  // A CUDA 12.4 driver cannot JIT PTX 9.0 but can JIT PTX 7.8.
  auto verdict = kernel_for_gpu(entries, 10, 0, CudaVersion{12, 4});
  EXPECT_EQ(chosen(verdict), "compute_80");
  EXPECT_EQ(verdict.driver_ok, true);
  EXPECT_TRUE(kernel_for_gpu({}, 9, 0).source == KernelSource::none);
}

TEST(FatbinRules, PtxIsaToCuda) {
  EXPECT_EQ(cuda_for_ptx_isa("9.0"), (CudaVersion{13, 0}));
  EXPECT_EQ(cuda_for_ptx_isa("8.8"), (CudaVersion{12, 9}));
  EXPECT_EQ(cuda_for_ptx_isa("8.4"), (CudaVersion{12, 4}));
  EXPECT_EQ(cuda_for_ptx_isa("7.8"), (CudaVersion{11, 8}));
  EXPECT_EQ(cuda_for_ptx_isa("9"), std::nullopt);
  EXPECT_EQ(cuda_for_ptx_isa("x.y"), std::nullopt);
  EXPECT_EQ(cuda_for_ptx_isa("99.0"), std::nullopt);
}

}  // namespace
