// The inspect checks as pure functions: hand-built modules and hosts, plus the
// real nvcc fatbin fixtures for the kernel-image rules.

#include "binary/verdict.hpp"

#include <elf.h>
#include <gtest/gtest.h>

#include "../temp_dir.hpp"
#include "fatbin_fixtures.hpp"
#include "wheel_builder.hpp"

namespace flashfit::binary {
namespace {

ModuleReport x86_module(std::string member = "ext.cpython-311-x86_64-linux-gnu.so") {
  ModuleReport m;
  m.member = std::move(member);
  m.elf.machine = EM_X86_64;
  return m;
}

LoadHost cpython311_host() {
  LoadHost host;
  host.arch = "x86_64";
  pkg::InterpreterTagFacts facts;
  facts.implementation = "cpython";
  facts.python_major = 3;
  facts.python_minor = 11;
  facts.py_version_nodot = "311";
  facts.system = "Linux";
  facts.platform = "linux-x86_64";
  facts.glibc = pkg::LibcVersion{2, 36};
  host.tags.emplace(pkg::supported_tags(facts));
  host.interpreter = "CPython 3.11.2 (/usr/bin/python3)";
  host.ext_suffix = ".cpython-311-x86_64-linux-gnu.so";
  return host;
}

std::vector<pkg::Tag> tags_of(const char* text) {
  auto tags = pkg::parse_tag_set(text);
  EXPECT_TRUE(tags);
  return tags ? *tags : std::vector<pkg::Tag>{};
}

// ---------------------------------------------------------------- kernel images

ModuleReport fatbin_module(const char* path) {
  ModuleReport m = x86_module();
  m.fatbin = fixtures::read_ok(path).entries;
  return m;
}

LoadHost with_gpus(std::vector<std::pair<int, int>> ccs) {
  LoadHost host;
  host.gpus.emplace();
  for (auto [major, minor] : ccs) host.gpus->push_back({"what-if GPU", major, minor});
  return host;
}

TEST(KernelImages, SassPtxAndNoneAsTheIssueStates) {
  REQUIRE_NVCC();
  // sm_80 + sm_90 SASS + compute_90 PTX.
  ModuleReport m = fatbin_module(FLASHFIT_FATBIN_DEFAULT);
  EXPECT_EQ(check_kernel_images(m, with_gpus({{8, 6}, {9, 0}})).status, CheckStatus::pass);
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(m.kernels[0].verdict.entry->name(), "sm_80");
  EXPECT_EQ(m.kernels[1].verdict.entry->name(), "sm_90");

  m = fatbin_module(FLASHFIT_FATBIN_DEFAULT);
  Check jit = check_kernel_images(m, with_gpus({{10, 0}}));
  EXPECT_EQ(jit.status, CheckStatus::warn);
  EXPECT_NE(jit.summary.find("PTX JIT"), std::string::npos) << jit.summary;
  EXPECT_EQ(m.kernels[0].verdict.source, KernelSource::ptx_jit);

  m = fatbin_module(FLASHFIT_FATBIN_DEFAULT);
  Check none = check_kernel_images(m, with_gpus({{8, 6}, {7, 5}}));
  EXPECT_EQ(none.status, CheckStatus::fail);
  EXPECT_NE(none.summary.find("7.5"), std::string::npos) << none.summary;
  EXPECT_FALSE(none.fix.empty());
}

TEST(KernelImages, ArchSpecificRunsOnItsOwnGpuOnly) {
  REQUIRE_NVCC();
  ModuleReport m = fatbin_module(FLASHFIT_FATBIN_SM90A);
  EXPECT_EQ(check_kernel_images(m, with_gpus({{9, 0}})).status, CheckStatus::pass);
  for (auto cc : {std::pair{8, 9}, std::pair{10, 0}, std::pair{12, 0}}) {
    m = fatbin_module(FLASHFIT_FATBIN_SM90A);
    EXPECT_EQ(check_kernel_images(m, with_gpus({cc})).status, CheckStatus::fail) << cc.first;
  }
}

TEST(KernelImages, DriverTooOldForThePtxFails) {
  REQUIRE_NVCC();
  ModuleReport m = fatbin_module(FLASHFIT_FATBIN_DEFAULT);
  LoadHost host = with_gpus({{10, 0}});
  host.driver_cuda = CudaVersion{12, 4};  // PTX ISA 9.0 needs a CUDA 13 driver
  const Check c = check_kernel_images(m, host);
  EXPECT_EQ(c.status, CheckStatus::fail);
  // There is an image (PTX); the driver is what cannot use it, and the fix says so.
  EXPECT_EQ(c.summary.find("no kernel image"), std::string::npos) << c.summary;
  EXPECT_NE(c.summary.find("driver is too old"), std::string::npos) << c.summary;
  EXPECT_NE(c.fix.find("update the NVIDIA driver"), std::string::npos) << c.fix;
  EXPECT_EQ(m.kernels[0].verdict.driver_ok, false);
}

// The fix names no package's variable and no one package's GPU floor: the
// module may be causal-conv1d (runs on 7.5) as well as FlashAttention 2.
TEST(KernelImages, NoImageFixIsTheBuildsNotOnePackages) {
  REQUIRE_NVCC();
  ModuleReport m = fatbin_module(FLASHFIT_FATBIN_DEFAULT);
  const Check none = check_kernel_images(m, with_gpus({{7, 5}}));
  EXPECT_EQ(none.status, CheckStatus::fail);
  EXPECT_NE(none.summary.find("no kernel image for compute capability 7.5"), std::string::npos);
  EXPECT_NE(none.fix.find("--archs 7.5"), std::string::npos) << none.fix;
  EXPECT_EQ(none.fix.find("TORCH_CUDA_ARCH_LIST"), std::string::npos) << none.fix;
  EXPECT_EQ(none.fix.find("FlashAttention"), std::string::npos) << none.fix;
}

TEST(KernelImages, NoGpuWarnsUnknownSkipsCpuModuleSkips) {
  REQUIRE_NVCC();
  ModuleReport m = fatbin_module(FLASHFIT_FATBIN_DEFAULT);
  Check no_gpu = check_kernel_images(m, with_gpus({}));
  EXPECT_EQ(no_gpu.status, CheckStatus::warn);
  EXPECT_NE(no_gpu.fix.find("scaled_dot_product_attention"), std::string::npos);
  LoadHost unknown;
  unknown.gpus_unknown_reason = "NVML failed";
  Check skipped = check_kernel_images(m, unknown);
  EXPECT_EQ(skipped.status, CheckStatus::skip);
  EXPECT_NE(skipped.summary.find("NVML failed"), std::string::npos);
  ModuleReport cpu = x86_module();
  EXPECT_EQ(check_kernel_images(cpu, with_gpus({{9, 0}})).status, CheckStatus::skip);
}

// ---------------------------------------------------------------- tags, platform

TEST(WheelTags, FitsOrNamesWhatTheInterpreterTakes) {
  const LoadHost host = cpython311_host();
  EXPECT_EQ(check_wheel_tags(tags_of("cp311-cp311-linux_x86_64"), host).status, CheckStatus::pass);
  EXPECT_EQ(check_wheel_tags(tags_of("cp39-abi3-manylinux_2_28_x86_64"), host).status,
            CheckStatus::pass);
  Check wrong = check_wheel_tags(tags_of("cp312-cp312-linux_x86_64"), host);
  EXPECT_EQ(wrong.status, CheckStatus::fail);
  EXPECT_NE(wrong.details.at(0).find("cp311-cp311-manylinux_2_36_x86_64"), std::string::npos)
      << wrong.details[0];
  EXPECT_EQ(check_wheel_tags(tags_of("cp311-cp311-manylinux_2_39_x86_64"), host).status,
            CheckStatus::fail);
  LoadHost unknown;
  unknown.tags_unknown_reason = "no interpreter";
  EXPECT_EQ(check_wheel_tags(tags_of("py3-none-any"), unknown).status, CheckStatus::skip);
}

TEST(ModulePlatform, MachineAndModuleSuffix) {
  const LoadHost host = cpython311_host();
  EXPECT_EQ(check_module_platform(x86_module(), host).status, CheckStatus::pass);
  EXPECT_EQ(check_module_platform(x86_module("pkg/_C.abi3.so"), host).status, CheckStatus::pass);
  EXPECT_EQ(check_module_platform(x86_module("libfoo.so"), host).status, CheckStatus::pass);
  Check other_python =
      check_module_platform(x86_module("ext.cpython-312-x86_64-linux-gnu.so"), host);
  EXPECT_EQ(other_python.status, CheckStatus::fail);
  EXPECT_NE(other_python.summary.find(".cpython-311-x86_64-linux-gnu.so"), std::string::npos);
  ModuleReport arm = x86_module();
  arm.elf.machine = EM_AARCH64;
  Check wrong_arch = check_module_platform(arm, host);
  EXPECT_EQ(wrong_arch.status, CheckStatus::fail);
  EXPECT_NE(wrong_arch.summary.find("aarch64"), std::string::npos);
}

// ---------------------------------------------------------------- loader

TEST(SymbolVersions, MissingTagsNameTheNewestAvailable) {
  ModuleReport m = x86_module();
  m.elf.version_needs = {{"libc.so.6", {"GLIBC_2.2.5", "GLIBC_2.32", "GLIBC_PRIVATE"}},
                         {"libstdc++.so.6", {"GLIBCXX_3.4.30", "CXXABI_1.3"}},
                         {"libunresolved.so", {"X_1.0"}}};
  const std::vector<DefinedVersions> defined = {
      {"libc.so.6", {"GLIBC_2.2.5", "GLIBC_2.30", "GLIBC_2.31"}},
      {"libstdc++.so.6", {"GLIBCXX_3.4", "GLIBCXX_3.4.29", "CXXABI_1.3"}}};
  Check c = check_symbol_versions(m, defined, LoadHost{});
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_EQ(c.summary, "missing symbol versions: GLIBC_2.32, GLIBCXX_3.4.30");
  ASSERT_EQ(c.details.size(), 2u);
  EXPECT_EQ(c.details[0], "libc.so.6 lacks GLIBC_2.32 (newest it has: GLIBC_2.31)");
  EXPECT_EQ(c.details[1], "libstdc++.so.6 lacks GLIBCXX_3.4.30 (newest it has: GLIBCXX_3.4.29)");
  EXPECT_NE(c.fix.find("glibc"), std::string::npos);

  const std::vector<DefinedVersions> enough = {
      {"libc.so.6", {"GLIBC_2.2.5", "GLIBC_2.32"}},
      {"libstdc++.so.6", {"GLIBCXX_3.4.30", "CXXABI_1.3"}}};
  EXPECT_EQ(check_symbol_versions(m, enough, LoadHost{}).status, CheckStatus::pass);
}

TEST(SymbolVersions, WhatIfGlibcIsComparedNumerically) {
  ModuleReport m = x86_module();
  m.elf.version_needs = {{"libc.so.6", {"GLIBC_2.2.5", "GLIBC_2.32"}}};
  LoadHost host;
  host.glibc_override = "2.31";
  Check c = check_symbol_versions(m, {}, host);
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NE(c.details.at(0).find("--glibc"), std::string::npos);
  host.glibc_override = "2.32";
  EXPECT_EQ(check_symbol_versions(m, {}, host).status, CheckStatus::pass);
}

TEST(NeededLibraries, MissingTorchLibrariesSayInstallTorch) {
  ModuleReport m = x86_module();
  m.resolved = {{"libc.so.6", FoundVia::ld_cache, "/lib/x86_64-linux-gnu/libc.so.6", ""},
                {"libc10.so", FoundVia::not_found, std::nullopt, ""}};
  Check c = check_needed_libraries(m, LoadHost{});
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_EQ(c.summary, "1 of 2 NEEDED libraries not found: libc10.so");
  EXPECT_NE(c.fix.find("install torch"), std::string::npos);
  m.resolved.pop_back();
  EXPECT_EQ(check_needed_libraries(m, LoadHost{}).status, CheckStatus::pass);
}

// A CUDA extension against a CPU torch: libc10.so is found, libc10_cuda.so
// is not (a CPU build has none): the fix is a CUDA torch, not "install torch".
TEST(NeededLibraries, OnlyTorchsCudaLibrariesMissingSayCudaTorch) {
  ModuleReport m = x86_module();
  m.resolved = {{"libc10.so", FoundVia::preloaded, "/t/torch/lib/libc10.so", ""},
                {"libc10_cuda.so", FoundVia::not_found, std::nullopt, ""},
                {"libtorch_cuda.so", FoundVia::not_found, std::nullopt, ""}};
  Check c = check_needed_libraries(m, LoadHost{});
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NE(c.fix.find("install a CUDA build of torch"), std::string::npos) << c.fix;
  EXPECT_EQ(c.fix.find("install torch in this environment"), std::string::npos) << c.fix;
}

// torch 2.14.1+cu130's libcaffe2_nvrtc.so on a machine without a driver: the
// CUDA runtime is there (nvidia/cu13/lib), libcuda.so.1 is not, and no CUDA
// torch or toolkit would bring it.
TEST(NeededLibraries, MissingLibcudaSaysInstallTheDriver) {
  ModuleReport m = x86_module();
  m.resolved = {{"libnvrtc.so.13", FoundVia::preloaded,
                 "/venv/site-packages/nvidia/cu13/lib/libnvrtc.so.13", ""},
                {"libcuda.so.1", FoundVia::not_found, std::nullopt, ""}};
  Check c = check_needed_libraries(m, LoadHost{});
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NE(c.fix.find("NVIDIA driver"), std::string::npos) << c.fix;
  EXPECT_EQ(c.fix.find("install a CUDA build of torch"), std::string::npos) << c.fix;
  m.resolved.back().name = "libcudart.so.13";
  EXPECT_NE(check_needed_libraries(m, LoadHost{}).fix.find("CUDA build of torch"),
            std::string::npos);
}

// ---------------------------------------------------------------- torch

TEST(TorchCheck, NoTorchUseNoTorchAndWhatIfAbi) {
  ModuleReport plain = x86_module();
  plain.elf.undefined_symbols = SymbolNames({"memcpy"});
  EXPECT_EQ(check_torch(plain, LoadHost{}).status, CheckStatus::skip);

  ModuleReport old_abi = x86_module();
  old_abi.elf.undefined_symbols = SymbolNames({torch_symbols::kCheckFailPreCxx11});
  old_abi.abi = classify_cxx_abi(old_abi.elf.undefined_symbols);
  LoadHost no_torch;
  no_torch.torch_unknown_reason = "torch is not installed in /venv";
  Check missing = check_torch(old_abi, no_torch);
  EXPECT_EQ(missing.status, CheckStatus::fail);
  EXPECT_NE(missing.summary.find("not installed"), std::string::npos);

  LoadHost what_if;  // --torch 2.8.0 --cxx11-abi TRUE: no libraries, a label
  what_if.torch_installed = true;
  what_if.torch_abi = CxxAbi::cxx11;
  what_if.torch_unknown_reason = "given by --torch";
  Check label = check_torch(old_abi, what_if);
  EXPECT_EQ(label.status, CheckStatus::fail);
  EXPECT_NE(label.fix.find("cxx11abiTRUE"), std::string::npos);
  what_if.torch_abi = CxxAbi::pre_cxx11;
  EXPECT_EQ(check_torch(old_abi, what_if).status, CheckStatus::skip);
}

// ---------------------------------------------------------------- wheel

TEST(RecordCheck, ProblemsFail) {
  EXPECT_EQ(check_record({}).status, CheckStatus::pass);
  Check c = check_record({{RecordProblem::Kind::hash_mismatch, "a/b.so", "RECORD says x"}});
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_EQ(c.details.at(0), "a/b.so: RECORD says x");
}

TEST(WheelContents, FlashAttnWithoutItsModuleFails) {
  test::TempDir dir;
  wheel_fixture::WheelSpec spec;
  spec.filename = "flash_attn-2.8.3-py3-none-any.whl";
  spec.dist_info = "flash_attn-2.8.3.dist-info";
  spec.wheel_tags = "py3-none-any";
  spec.metadata_version = "2.8.3";
  spec.purelib = true;
  spec.files = {{"flash_attn/__init__.py", "import flash_attn_2_cuda\n"}};
  auto wheel = open_wheel(wheel_fixture::build_wheel(dir.path(), spec));
  ASSERT_TRUE(wheel) << wheel.error().message;
  // The names come from the recipes (resolve::required_modules); binary/ knows no package.
  const std::vector<RequiredModule> required = {{"flash-attn", "flash_attn_2_cuda"},
                                                {"flash-attn-3", "flash_attn_3._C"}};
  EXPECT_EQ(check_wheel_contents(*wheel, {}).status,
            CheckStatus::pass);  // nothing required: nothing to miss
  Check c = check_wheel_contents(*wheel, required);
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NE(c.details.at(0).find("flash_attn_2_cuda"), std::string::npos);

  spec.filename = "flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl";
  spec.wheel_tags = "cp311-cp311-linux_x86_64";
  spec.purelib = false;
  spec.files.push_back({"flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so",
                        "\x7f"
                        "ELF"});
  auto binary = open_wheel(wheel_fixture::build_wheel(dir.path(), spec));
  ASSERT_TRUE(binary) << binary.error().message;
  EXPECT_EQ(check_wheel_contents(*binary, required).status, CheckStatus::pass);

  // FlashAttention-3's module sits in its package: flash_attn_3/_C.abi3.so.
  wheel_fixture::WheelSpec fa3;
  fa3.filename = "flash_attn_3-3.0.0-py3-none-any.whl";
  fa3.dist_info = "flash_attn_3-3.0.0.dist-info";
  fa3.wheel_tags = "py3-none-any";
  fa3.metadata_version = "3.0.0";
  fa3.purelib = true;
  fa3.files = {{"flash_attn_interface.py", "import flash_attn_3._C\n"}};
  auto pure3 = open_wheel(wheel_fixture::build_wheel(dir.path(), fa3));
  ASSERT_TRUE(pure3) << pure3.error().message;
  Check c3 = check_wheel_contents(*pure3, required);
  EXPECT_EQ(c3.status, CheckStatus::fail);
  EXPECT_NE(c3.details.at(0).find("flash_attn_3._C"), std::string::npos);
  fa3.filename = "flash_attn_3-3.0.0-cp39-abi3-linux_x86_64.whl";
  fa3.wheel_tags = "cp39-abi3-linux_x86_64";
  fa3.purelib = false;
  fa3.files.push_back({"flash_attn_3/_C.abi3.so",
                       "\x7f"
                       "ELF"});
  auto binary3 = open_wheel(wheel_fixture::build_wheel(dir.path(), fa3));
  ASSERT_TRUE(binary3) << binary3.error().message;
  EXPECT_EQ(check_wheel_contents(*binary3, required).status, CheckStatus::pass);
}

TEST(Report, CompatibleMeansNoFailAnywhere) {
  InspectReport report;
  EXPECT_TRUE(report.compatible());
  report.checks.push_back({"tags", CheckStatus::warn, "", {}, ""});
  ModuleReport m = x86_module();
  m.checks.push_back({"kernel-images", CheckStatus::skip, "", {}, ""});
  report.modules.push_back(m);
  EXPECT_TRUE(report.compatible());
  report.modules[0].checks.push_back({"torch-symbols", CheckStatus::fail, "", {}, ""});
  EXPECT_FALSE(report.compatible());
}

}  // namespace
}  // namespace flashfit::binary
