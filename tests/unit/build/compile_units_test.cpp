// find_compile_units on trees shaped like flash-attn 2.8.3, causal-conv1d and
// mamba-ssm (setup.py with the literal unit list, plus everything a default
// build never compiles), the fallbacks, and the real PyPI sdists when
// scripts/pydeps/sdists.sh has fetched them.
#include "build/compile_units.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "../temp_dir.hpp"
#include "build_environment.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace test_env;

void touch(const fs::path& file, const std::string& text = "// unit\n") {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

// flash-attn v2.8.3's unit names (docs/background.md §11.1): fwd, fwd_split and
// bwd over head dims x dtypes x causal.
std::vector<std::string> fa2_units() {
  std::vector<std::string> out;
  for (const char* kind : {"fwd", "fwd_split", "bwd"}) {
    for (int hdim : {32, 64, 96, 128, 192, 256}) {
      for (const char* dtype : {"fp16", "bf16"}) {
        for (const char* causal : {"", "_causal"}) {
          out.push_back(fmt::format("csrc/flash_attn/src/flash_{}_hdim{}_{}{}_sm80.cu", kind, hdim,
                                    dtype, causal));
        }
      }
    }
  }
  return out;
}

// The tree: setup.py listing flash_api.cpp and the 72 units for CUDA, a
// computed list for ROCm, and hopper/ (FA3, 453 .cu), composable_kernel,
// layer_norm, cutlass examples that a default build never compiles.
void write_fa2_tree(const fs::path& root, bool literal = true) {
  std::string list = "                \"csrc/flash_attn/flash_api.cpp\",\n";
  for (const std::string& unit : fa2_units()) list += "                \"" + unit + "\",\n";
  touch(root / "setup.py", fmt::format(R"(import glob
PACKAGE_NAME = "flash_attn"
ext_modules = []
if not SKIP_CUDA_BUILD and not IS_ROCM:
    ext_modules.append(
        CUDAExtension(
            name="flash_attn_2_cuda",
            sources={},
        )
    )
elif not SKIP_CUDA_BUILD and IS_ROCM:
    renamed_sources = ["csrc/flash_attn_ck/flash_api.cu"] + glob.glob(f"build/fmha_*wd*.cu")
    ext_modules.append(CUDAExtension(name="flash_attn_2_cuda", sources=renamed_sources))
setup(name=PACKAGE_NAME, ext_modules=ext_modules, setup_requires=["packaging", "psutil", "ninja"])
)",
                                       literal ? "[\n" + list + "            ]"
                                               : "glob.glob(\"csrc/flash_attn/src/*.cu\")"));
  touch(root / "csrc/flash_attn/flash_api.cpp");
  for (const std::string& unit : fa2_units()) touch(root / unit);
  for (int i = 0; i < 453; ++i)
    touch(root / fmt::format("hopper/instantiations/flash_fwd_hdim{}_sm90.cu", i));
  for (int i = 0; i < 40; ++i)
    touch(root / fmt::format("csrc/composable_kernel/example/k{}.cpp", i));
  for (int i = 0; i < 56; ++i) touch(root / fmt::format("csrc/layer_norm/ln_fwd_{}.cu", i));
  for (int i = 0; i < 20; ++i) touch(root / fmt::format("csrc/cutlass/examples/e{}.cu", i));
}

TEST(CompileUnits, Fa2TreeCountsTheLiteralSeventyTwoUnits) {
  test::TempDir dir("fa2");
  write_fa2_tree(dir.path());
  const SourceScan scan = scan_source_tree(dir.path());
  EXPECT_EQ(scan.cuda_files, 72U + 453U + 56U + 20U);  // what the old plan counted
  const CompileUnits units = find_compile_units(dir.path(), &flash_attn(), scan);
  EXPECT_EQ(units.basis, UnitsBasis::setup_py);
  EXPECT_EQ(units.cuda_count, 72U);
  EXPECT_EQ(units.cxx_count, 1U);
  EXPECT_THAT(units.cxx, ElementsAre("csrc/flash_attn/flash_api.cpp"));
  EXPECT_EQ(units.detail, "CUDAExtension flash_attn_2_cuda, setup.py line 6");
  EXPECT_TRUE(units.notes.empty()) << units.notes.front();
  ASSERT_TRUE(units.setup_requires);
  EXPECT_THAT(*units.setup_requires, ElementsAre("packaging", "psutil", "ninja"));
  EXPECT_STREQ(describe(units.basis), "counted from setup.py");
}

TEST(CompileUnits, ComputedListFallsBackToTheRecipeGlobsThenTheTree) {
  test::TempDir dir("fa2");
  write_fa2_tree(dir.path(), false);
  const SourceScan scan = scan_source_tree(dir.path());
  CompileUnits units = find_compile_units(dir.path(), &flash_attn(), scan);
  EXPECT_EQ(units.basis, UnitsBasis::recipe);
  EXPECT_EQ(units.cuda_count, 72U);
  EXPECT_EQ(units.cxx_count, 1U);
  ASSERT_FALSE(units.notes.empty());
  EXPECT_THAT(units.notes[0],
              HasSubstr("flash_attn_2_cuda sources (line 8) is not a literal list"));
  EXPECT_STREQ(describe(units.basis), "from the recipe");

  resolve::Recipe no_globs = flash_attn();
  no_globs.build.source_globs.clear();
  units = find_compile_units(dir.path(), &no_globs, scan);
  EXPECT_EQ(units.basis, UnitsBasis::tree);
  EXPECT_EQ(units.cuda_count, scan.cuda_files);
  EXPECT_STREQ(describe(units.basis), "estimated from the tree");

  resolve::Recipe globs_miss = flash_attn();
  globs_miss.build.source_globs = {"nowhere/*.cu"};
  units = find_compile_units(dir.path(), &globs_miss, scan);
  EXPECT_EQ(units.basis, UnitsBasis::tree);
  EXPECT_THAT(units.notes, ::testing::Contains(HasSubstr("match no file")));
}

TEST(CompileUnits, CausalConv1dAndMambaLayouts) {
  test::TempDir dir("units");
  const fs::path cc = dir.path() / "causal_conv1d";
  touch(cc / "setup.py", R"(ext_modules.append(
    CUDAExtension(
        name="causal_conv1d_cuda",
        sources=[
            "csrc/causal_conv1d.cpp",
            "csrc/causal_conv1d_fwd.cu",
            "csrc/causal_conv1d_bwd.cu",
            "csrc/causal_conv1d_update.cu",
        ],
    )
)
)");
  for (const char* f :
       {"csrc/causal_conv1d.cpp", "csrc/causal_conv1d_fwd.cu", "csrc/causal_conv1d_bwd.cu",
        "csrc/causal_conv1d_update.cu", "tests/bench_helper.cu"})
    touch(cc / f);
  CompileUnits units = find_compile_units(cc, &built_in("causal-conv1d"), scan_source_tree(cc));
  EXPECT_EQ(units.basis, UnitsBasis::setup_py);
  EXPECT_EQ(units.cuda_count, 3U);
  EXPECT_EQ(units.cxx_count, 1U);

  const fs::path mamba = dir.path() / "mamba";
  std::string list = "\"csrc/selective_scan/selective_scan.cpp\",";
  std::vector<std::string> cu;
  for (const char* d : {"fp32", "fp16", "bf16"})
    cu.push_back(fmt::format("csrc/selective_scan/selective_scan_fwd_{}.cu", d));
  for (const char* d : {"fp32", "fp16", "bf16"})
    for (const char* k : {"real", "complex"})
      cu.push_back(fmt::format("csrc/selective_scan/selective_scan_bwd_{}_{}.cu", d, k));
  for (const std::string& f : cu) list += "\"" + f + "\",";
  touch(mamba / "setup.py",
        "CUDAExtension(name=\"selective_scan_cuda\", sources=[" + list + "])\n");
  touch(mamba / "csrc/selective_scan/selective_scan.cpp");
  for (const std::string& f : cu) touch(mamba / f);
  units = find_compile_units(mamba, &built_in("mamba-ssm"), scan_source_tree(mamba));
  EXPECT_EQ(units.basis, UnitsBasis::setup_py);
  EXPECT_EQ(units.cuda_count, 9U);
  EXPECT_EQ(units.cxx_count, 1U);
}

TEST(CompileUnits, ListedFilesMissingFromTheTreeAreSaid) {
  test::TempDir dir("units");
  touch(dir.path() / "setup.py",
        "CUDAExtension(name='causal_conv1d_cuda', sources=['a.cpp', 'gone.cu', 'x.h'])\n");
  touch(dir.path() / "a.cpp");
  touch(dir.path() / "x.h");
  const CompileUnits units =
      find_compile_units(dir.path(), &built_in("causal-conv1d"), scan_source_tree(dir.path()));
  EXPECT_EQ(units.basis, UnitsBasis::setup_py);
  EXPECT_EQ(units.cuda_count, 1U);
  EXPECT_THAT(units.notes, ::testing::Contains(
                               HasSubstr("1 of the listed sources are not in the tree (gone.cu)")));
  EXPECT_THAT(units.notes, ::testing::Contains(HasSubstr("neither CUDA nor C++ units")));
}

TEST(CompileUnits, CxxUnitsIncludingTorchAreTheHeavyKind) {
  test::TempDir dir("units");
  touch(dir.path() / "setup.py",
        "CppExtension('m._C', ['csrc/binding.cpp', 'csrc/add.cpp', 'csrc/aten.cc'])\n");
  touch(dir.path() / "csrc/binding.cpp", "// the module\n#include <torch/extension.h>\n");
  touch(dir.path() / "csrc/add.cpp",
        "#include \"ops.h\"\nint add(int a, int b) { return a + b; }\n");
  touch(dir.path() / "csrc/aten.cc", "#include \"ATen/ATen.h\"\n");
  const CompileUnits units = find_compile_units(dir.path(), nullptr, scan_source_tree(dir.path()));
  EXPECT_EQ(units.cxx_count, 3U);
  EXPECT_EQ(units.cxx_torch, 2U);
  EXPECT_FALSE(
      units_from_scan(scan_source_tree(dir.path())).cxx_torch);  // unknown: all taken as heavy
}

TEST(CompileUnits, HostileSetupPyFallsBackAndSaysWhy) {
  test::TempDir dir("units");
  touch(dir.path() / "setup.py",
        "CUDAExtension(name='causal_conv1d_cuda', sources=['../../etc/x.cu'])\n");
  touch(dir.path() / "k.cu");
  const CompileUnits units = find_compile_units(dir.path(), nullptr, scan_source_tree(dir.path()));
  EXPECT_EQ(units.basis, UnitsBasis::tree);
  EXPECT_EQ(units.cuda_count, 1U);
  ASSERT_FALSE(units.notes.empty());
  EXPECT_THAT(
      units.notes[0],
      HasSubstr(
          "setup.py not read: setup.py line 1: source \"../../etc/x.cu\" leaves the source tree"));

  // Without a recipe, a single extension call counts; several do not.
  touch(dir.path() / "setup.py", "CppExtension('a', ['k.cu'])\nCppExtension('b', ['k.cu'])\n");
  EXPECT_THAT(
      find_compile_units(dir.path(), nullptr, scan_source_tree(dir.path())).notes,
      ::testing::Contains(HasSubstr("2 extension calls and no recipe naming the one built")));
  touch(dir.path() / "setup.py", "CppExtension('a', ['k.cu'])\n");
  EXPECT_EQ(find_compile_units(dir.path(), nullptr, scan_source_tree(dir.path())).basis,
            UnitsBasis::setup_py);
  fs::remove(dir.path() / "setup.py");
  EXPECT_THAT(find_compile_units(dir.path(), nullptr, scan_source_tree(dir.path())).notes,
              ElementsAre("no setup.py"));
}

}  // namespace
}  // namespace flashfit::build
