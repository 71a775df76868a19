#include "env/toolkit.hpp"

#include <gtest/gtest.h>

#include "temp_tree.hpp"
#include "util/files.hpp"

using namespace std::chrono_literals;
using flashfit::env::CompilerKind;
using flashfit::env::HostCompilerVerdict;
using flashfit::env::parse_compiler_version;
using flashfit::env::parse_nvcc_top;
using flashfit::env::parse_nvcc_version;
using flashfit::env::probe_toolkit;
using flashfit::env::ToolkitFacts;
using flashfit::env::ToolkitProbeOptions;
using flashfit::env::testing::TempTree;

namespace {

std::string nvcc_banner(const std::string& release, const std::string& build) {
  return "nvcc: NVIDIA (R) Cuda compiler driver\n"
         "Copyright (c) 2005-2025 NVIDIA Corporation\n"
         "Cuda compilation tools, release " +
         release + ", V" + build +
         "\n"
         "Build cuda_" +
         release + ".r" + release + "/compiler.0_0\n";
}

constexpr const char* kGcc12 =
    "g++ (Debian 12.2.0-14+deb12u1) 12.2.0\n"
    "Copyright (C) 2022 Free Software Foundation, Inc.\n";

// Fake tools are shell scripts printing a chosen `--version`; PATH holds only
// the fake bin dir, and the default CUDA root points into the tree, so nothing
// from the real machine leaks in.
class ToolkitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bin = tree.mkdir("bin");
    options.path = bin.string();
    options.default_cuda_root = tree.root() / "usr-local-cuda";
    options.timeout = 5000ms;
  }

  void fake(const std::string& relative, const std::string& output) const {
    tree.script(relative, "cat <<'EOF'\n" + output + "EOF");
  }

  ToolkitFacts probe() const { return probe_toolkit(options); }

  TempTree tree;
  std::filesystem::path bin;
  ToolkitProbeOptions options;
};

TEST_F(ToolkitTest, OldNvccWithGcc12IsTooNew) {
  fake("cuda-11.8/bin/nvcc", nvcc_banner("11.8", "11.8.89"));
  fake("bin/g++", kGcc12);
  options.cuda_home = (tree.root() / "cuda-11.8").string();
  const auto f = probe();
  ASSERT_TRUE(f.nvcc.known());
  EXPECT_EQ(f.nvcc.source, "CUDA_HOME");
  EXPECT_EQ(f.nvcc_origin, flashfit::env::NvccOrigin::cuda_home);
  ASSERT_TRUE(f.cuda_version.known()) << f.cuda_version.unknown_reason;
  EXPECT_EQ(f.cuda_version->major, 11);
  EXPECT_EQ(f.cuda_version->minor, 8);
  EXPECT_EQ(f.cuda_version->build, 89);
  ASSERT_TRUE(f.host_compiler_id.known()) << f.host_compiler_id.unknown_reason;
  EXPECT_EQ(f.host_compiler_id->kind, CompilerKind::gcc);
  EXPECT_EQ(f.host_compiler_id->version, "12.2.0");
  EXPECT_EQ(f.host_compiler.source, "PATH (g++)");
  ASSERT_TRUE(f.host_compiler_max_major.known());
  EXPECT_EQ(*f.host_compiler_max_major, 11);
  EXPECT_EQ(f.host_compiler_check.verdict, HostCompilerVerdict::too_new);
  EXPECT_NE(f.host_compiler_check.reason.find("11"), std::string::npos);
}

TEST_F(ToolkitTest, ClangAsCudaHostCxx) {
  fake("bin/nvcc", nvcc_banner("13.0", "13.0.88"));
  fake("bin/clang++", "Ubuntu clang version 19.1.1 (1ubuntu1)\nTarget: x86_64-pc-linux-gnu\n");
  fake("bin/g++", kGcc12);
  options.cudahostcxx = "clang++";
  const auto f = probe();
  EXPECT_EQ(f.nvcc.source, "PATH");
  EXPECT_EQ(f.nvcc_origin, flashfit::env::NvccOrigin::path);
  EXPECT_EQ(f.host_compiler.source, "CUDAHOSTCXX");
  ASSERT_TRUE(f.host_compiler_id.known());
  EXPECT_EQ(f.host_compiler_id->kind, CompilerKind::clang);
  EXPECT_EQ(f.host_compiler_id->major, 19);
  EXPECT_EQ(*f.host_compiler_max_major, 20);
  EXPECT_EQ(f.host_compiler_check.verdict, HostCompilerVerdict::ok);
}

TEST_F(ToolkitTest, CudaHostCxxBeatsCxxAndCxxBeatsPath) {
  fake("bin/nvcc", nvcc_banner("12.4", "12.4.131"));
  fake("bin/g++", kGcc12);
  fake("bin/g++-14", "g++-14 (Debian 14.2.0-1) 14.2.0\n");
  fake("other/g++-13", "g++-13 (Ubuntu 13.1.0-8ubuntu1) 13.1.0\n");
  options.cudahostcxx = (tree.root() / "other/g++-13").string();
  options.cxx = "g++-14";
  auto f = probe();
  EXPECT_EQ(f.host_compiler.source, "CUDAHOSTCXX");
  EXPECT_EQ(f.host_compiler_id->major, 13);
  EXPECT_EQ(f.host_compiler_check.verdict, HostCompilerVerdict::ok);
  options.cudahostcxx.reset();
  f = probe();
  EXPECT_EQ(f.host_compiler.source, "CXX");
  EXPECT_EQ(f.host_compiler_id->major, 14);
  EXPECT_EQ(f.host_compiler_check.verdict, HostCompilerVerdict::too_new);  // 12.4 accepts <= 13
  options.cxx = "ccache g++-14";  // a launcher in CXX: the compiler is the next word
  f = probe();
  EXPECT_EQ(*f.host_compiler, bin / "g++-14");
  options.cxx.reset();
  f = probe();
  EXPECT_EQ(f.host_compiler.source, "PATH (g++)");
  EXPECT_EQ(f.host_compiler_id->major, 12);
}

TEST_F(ToolkitTest, ExplicitCompilerThatIsMissingDoesNotFallBack) {
  fake("bin/g++", kGcc12);
  options.cudahostcxx = "no-such-compiler";
  const auto f = probe();
  EXPECT_FALSE(f.host_compiler.known());
  EXPECT_EQ(f.host_compiler.source, "CUDAHOSTCXX");
  EXPECT_NE(f.host_compiler.unknown_reason.find("not found"), std::string::npos);
  EXPECT_NE(f.host_compiler.unknown_reason.find("no-such-compiler"), std::string::npos);
  EXPECT_EQ(f.host_compiler_check.verdict, HostCompilerVerdict::unknown);
}

TEST_F(ToolkitTest, NvccPrecedenceCudaHomeCudaPathPathDefault) {
  fake("home/bin/nvcc", nvcc_banner("12.8", "12.8.93"));
  fake("cpath/bin/nvcc", nvcc_banner("12.6", "12.6.85"));
  fake("bin/nvcc", nvcc_banner("12.4", "12.4.131"));
  fake("usr-local-cuda/bin/nvcc", nvcc_banner("12.1", "12.1.105"));
  options.cuda_home = (tree.root() / "home").string();
  options.cuda_path = (tree.root() / "cpath").string();
  auto f = probe();
  EXPECT_EQ(f.nvcc.source, "CUDA_HOME");
  EXPECT_EQ(f.nvcc_origin, flashfit::env::NvccOrigin::cuda_home);
  EXPECT_EQ(f.cuda_version->minor, 8);
  options.cuda_home = (tree.root() / "empty-cuda-home").string();  // set, but has no nvcc
  f = probe();
  EXPECT_EQ(f.nvcc.source, "CUDA_PATH");
  EXPECT_EQ(f.nvcc_origin, flashfit::env::NvccOrigin::cuda_path);
  EXPECT_EQ(f.cuda_version->minor, 6);
  options.cuda_path = "";  // set but empty counts as unset
  f = probe();
  EXPECT_EQ(f.nvcc.source, "PATH");
  EXPECT_EQ(f.nvcc_origin, flashfit::env::NvccOrigin::path);
  EXPECT_EQ(f.cuda_version->minor, 4);
  std::filesystem::remove(bin / "nvcc");
  f = probe();
  EXPECT_EQ(f.nvcc.source, options.default_cuda_root.string());
  EXPECT_EQ(f.cuda_version->minor, 1);
}

TEST_F(ToolkitTest, MissingToolsAreUnknownWithWhereItLooked) {
  options.cuda_home = "/nonexistent/cuda";
  const auto f = probe();
  EXPECT_FALSE(f.nvcc.known());
  EXPECT_NE(f.nvcc.unknown_reason.find("not found (looked in"), std::string::npos);
  EXPECT_NE(f.nvcc.unknown_reason.find("/nonexistent/cuda/bin/nvcc"), std::string::npos);
  EXPECT_NE(f.nvcc.unknown_reason.find("usr-local-cuda/bin/nvcc"), std::string::npos);
  EXPECT_FALSE(f.cuda_version.known());
  EXPECT_FALSE(f.host_compiler.known());
  EXPECT_NE(f.host_compiler.unknown_reason.find("not found"), std::string::npos);
  EXPECT_FALSE(f.ninja.known());
  EXPECT_NE(f.ninja.unknown_reason.find("not found"), std::string::npos);
  EXPECT_FALSE(f.ninja_version.known());
  EXPECT_EQ(f.host_compiler_check.verdict, HostCompilerVerdict::unknown);
  EXPECT_FALSE(f.host_compiler_max_major.known());
}

TEST_F(ToolkitTest, GarbageVersionOutputIsUnknownWithReason) {
  fake("bin/nvcc", "hello, I am definitely nvcc\n");
  fake("bin/g++", "something 1\n");
  fake("bin/ninja", "ninja version unknown\n");
  const auto f = probe();
  ASSERT_TRUE(f.nvcc.known());
  EXPECT_FALSE(f.cuda_version.known());
  EXPECT_NE(f.cuda_version.unknown_reason.find("release"), std::string::npos);
  EXPECT_NE(f.cuda_version.unknown_reason.find("definitely nvcc"), std::string::npos);
  ASSERT_TRUE(f.host_compiler.known());
  EXPECT_FALSE(f.host_compiler_id.known());
  EXPECT_NE(f.host_compiler_id.unknown_reason.find("unrecognised"), std::string::npos);
  ASSERT_TRUE(f.ninja.known());
  EXPECT_FALSE(f.ninja_version.known());
  EXPECT_EQ(f.host_compiler_check.verdict, HostCompilerVerdict::unknown);
}

TEST_F(ToolkitTest, ToolThatExitsNonZeroIsUnknown) {
  tree.script("bin/nvcc", "echo 'Cuda compilation tools, release 13.0, V13.0.88'\nexit 1");
  const auto f = probe();
  EXPECT_FALSE(f.cuda_version.known());
  EXPECT_NE(f.cuda_version.unknown_reason.find("exited with status 1"), std::string::npos)
      << f.cuda_version.unknown_reason;
}

TEST_F(ToolkitTest, HangingToolIsBoundedByTimeout) {
  tree.script("bin/nvcc", "exec sleep 30");
  options.timeout = 200ms;
  const auto f = probe();
  ASSERT_TRUE(f.nvcc.known());
  EXPECT_FALSE(f.cuda_version.known());
  EXPECT_NE(f.cuda_version.unknown_reason.find("timed out"), std::string::npos)
      << f.cuda_version.unknown_reason;
}

TEST_F(ToolkitTest, NinjaBuildIsAcceptedWhenNinjaIsAbsent) {
  fake("bin/ninja-build", "1.10.2\n");
  auto f = probe();
  ASSERT_TRUE(f.ninja.known());
  EXPECT_EQ(f.ninja.source, "PATH (ninja-build)");
  EXPECT_EQ(*f.ninja_version, "1.10.2");
  fake("bin/ninja", "1.11.1\n");
  f = probe();
  EXPECT_EQ(f.ninja.source, "PATH (ninja)");
  EXPECT_EQ(*f.ninja_version, "1.11.1");
}

// ---- CUDA_HOME: the root with the runtime headers ----------------------------

// A toolkit root whose nvcc answers --version and, for a dry run, prints its
// TOP the way nvcc 13 does (on stderr).
void fake_toolkit(const TempTree& tree, const std::string& root, bool headers) {
  const std::string top = (tree.root() / root).string();
  tree.script(root + "/bin/nvcc",
              "if [ \"$1\" = --version ]; then cat <<'EOF'\n" + nvcc_banner("13.0", "13.0.88") +
                  "EOF\nelse echo '#$ _NVVM_BRANCH_=nvvm' >&2; echo '#$ TOP=" + top +
                  "/bin/..' >&2; fi");
  if (headers) tree.write(root + "/include/cuda_runtime_api.h", "/* fake */\n");
}

TEST_F(ToolkitTest, CudaHomeIsNvccsGrandparentWhenItHasTheHeaders) {
  fake_toolkit(tree, "cuda-13.0", true);
  options.cuda_home = (tree.root() / "cuda-13.0").string();
  auto f = probe();
  ASSERT_TRUE(f.cuda_home.known()) << f.cuda_home.unknown_reason;
  EXPECT_EQ(*f.cuda_home, tree.root() / "cuda-13.0");
  EXPECT_EQ(f.cuda_home.source, "CUDA_HOME");
}

// This machine's /usr/local/bin/nvcc is a two-line script exec'ing
// /usr/local/cuda-13.0/bin/nvcc: torch's guess (/usr/local) has no headers.
TEST_F(ToolkitTest, WrapperScriptOnPathGetsTheRootNvccReallyUses) {
  fake_toolkit(tree, "cuda-13.0", true);
  tree.script("bin/nvcc", "exec '" + (tree.root() / "cuda-13.0/bin/nvcc").string() + "' \"$@\"");
  auto f = probe();
  ASSERT_EQ(f.nvcc.source, "PATH");
  ASSERT_TRUE(f.cuda_home.known()) << f.cuda_home.unknown_reason;
  EXPECT_EQ(*f.cuda_home, tree.root() / "cuda-13.0");
  EXPECT_NE(f.cuda_home.source.find("-dryrun"), std::string::npos) << f.cuda_home.source;
}

TEST_F(ToolkitTest, SymlinkOnPathFollowsToTheRealRoot) {
  fake_toolkit(tree, "cuda-13.0", true);
  std::filesystem::create_symlink(tree.root() / "cuda-13.0/bin/nvcc", bin / "nvcc");
  auto f = probe();
  ASSERT_TRUE(f.cuda_home.known()) << f.cuda_home.unknown_reason;
  EXPECT_EQ(*f.cuda_home, tree.root() / "cuda-13.0");
  EXPECT_NE(f.cuda_home.source.find(" -> "), std::string::npos) << f.cuda_home.source;
}

TEST_F(ToolkitTest, NoHeadersAnywhereIsUnknownAndAnExplicitCudaHomeIsNeverReplaced) {
  fake_toolkit(tree, "bare", false);
  tree.script("bin/nvcc", "exec '" + (tree.root() / "bare/bin/nvcc").string() + "' \"$@\"");
  auto f = probe();
  ASSERT_TRUE(f.nvcc.known());
  EXPECT_FALSE(f.cuda_home.known());
  EXPECT_NE(f.cuda_home.unknown_reason.find("cuda_runtime_api.h"), std::string::npos);
  EXPECT_NE(f.cuda_home.unknown_reason.find((tree.root() / "bare/include").string()),
            std::string::npos)
      << f.cuda_home.unknown_reason;
  // CUDA_HOME is what the build gets: a root without headers stays unknown
  // even when another toolkit on PATH has them.
  fake_toolkit(tree, "good", true);
  options.cuda_home = (tree.root() / "bare").string();
  std::filesystem::remove(bin / "nvcc");
  std::filesystem::create_symlink(tree.root() / "good/bin/nvcc", bin / "nvcc");
  f = probe();
  EXPECT_EQ(f.nvcc.source, "CUDA_HOME");
  EXPECT_EQ(f.nvcc_origin, flashfit::env::NvccOrigin::cuda_home);
  EXPECT_FALSE(f.cuda_home.known());
  // An nvcc that prints nothing for a dry run leaves it unknown too.
  options.cuda_home.reset();
  std::filesystem::remove(bin / "nvcc");
  fake("bin/nvcc", nvcc_banner("13.0", "13.0.88"));
  f = probe();
  EXPECT_EQ(f.nvcc.source, "PATH");
  EXPECT_EQ(f.nvcc_origin, flashfit::env::NvccOrigin::path);
  EXPECT_FALSE(f.cuda_home.known());
}

TEST(ToolkitParseNvccTop, Lines) {
  EXPECT_EQ(
      parse_nvcc_top(
          "#$ _NVVM_BRANCH_=nvvm\n#$ TOP=/usr/local/cuda-13.0/bin/..\n#$ NVVMIR_LIBRARY_DIR=x\n"),
      std::filesystem::path("/usr/local/cuda-13.0"));
  EXPECT_EQ(parse_nvcc_top("#$ TOP=\"/opt/cuda/bin/..\"\r\n"), std::filesystem::path("/opt/cuda"));
  EXPECT_EQ(parse_nvcc_top("#$ TOP=/\n"), std::filesystem::path("/"));
  EXPECT_FALSE(parse_nvcc_top(""));
  EXPECT_FALSE(parse_nvcc_top("nvcc fatal   : Unknown option '-dryrun'\n"));
  EXPECT_FALSE(parse_nvcc_top("#$ TOP=\n"));
  EXPECT_FALSE(parse_nvcc_top("#$ TOP=relative/bin/..\n"));
  EXPECT_FALSE(parse_nvcc_top(std::string("#$ TOP=\0/x", 10)));
}

// The machine this project is developed on has CUDA 13.0 in /usr/local/cuda,
// Debian's g++ 12 and ninja; elsewhere there is nothing to check.
TEST(ToolkitReal, RealNvcc13AndGcc12AreCompatible) {
  if (!flashfit::util::is_executable_file("/usr/local/cuda/bin/nvcc") ||
      !flashfit::util::is_executable_file("/usr/bin/g++"))
    GTEST_SKIP() << "no /usr/local/cuda/bin/nvcc or /usr/bin/g++ here";
  ToolkitProbeOptions options;
  options.path = "/usr/bin:/bin";
  const auto f = probe_toolkit(options);
  ASSERT_TRUE(f.nvcc.known()) << f.nvcc.unknown_reason;
  EXPECT_EQ(*f.nvcc, "/usr/local/cuda/bin/nvcc");
  EXPECT_EQ(f.nvcc.source, "/usr/local/cuda");
  ASSERT_TRUE(f.cuda_version.known()) << f.cuda_version.unknown_reason;
  EXPECT_EQ(f.cuda_version->major, 13);
  EXPECT_EQ(f.cuda_version->minor, 0);
  ASSERT_TRUE(f.cuda_home.known()) << f.cuda_home.unknown_reason;
  EXPECT_EQ(*f.cuda_home, "/usr/local/cuda");
  ASSERT_TRUE(f.host_compiler_id.known()) << f.host_compiler_id.unknown_reason;
  EXPECT_EQ(f.host_compiler_id->kind, CompilerKind::gcc);
  EXPECT_EQ(f.host_compiler_id->major, 12);
  EXPECT_EQ(*f.host_compiler_max_major, 15);
  EXPECT_EQ(f.host_compiler_check.verdict, HostCompilerVerdict::ok);
  ASSERT_TRUE(f.ninja.known());
  EXPECT_TRUE(f.ninja_version.known()) << f.ninja_version.unknown_reason;
}

// /usr/local/bin/nvcc here is a script exec'ing /usr/local/cuda-13.0/bin/nvcc;
// torch alone would take CUDA_HOME=/usr/local and fail on cuda_runtime_api.h.
TEST(ToolkitReal, WrapperOnPathFindsTheRealRoot) {
  if (!flashfit::util::is_executable_file("/usr/local/bin/nvcc") ||
      std::filesystem::exists("/usr/local/include/cuda_runtime_api.h"))
    GTEST_SKIP() << "no /usr/local/bin/nvcc wrapper here";
  ToolkitProbeOptions options;
  options.path = "/usr/local/bin:/usr/bin:/bin";
  options.default_cuda_root = "/nonexistent";
  const auto f = probe_toolkit(options);
  ASSERT_TRUE(f.cuda_home.known()) << f.cuda_home.unknown_reason;
  EXPECT_TRUE(std::filesystem::exists(*f.cuda_home / "include/cuda_runtime_api.h")) << *f.cuda_home;
  EXPECT_NE(*f.cuda_home, "/usr/local");
}

TEST(ToolkitParseNvccVersion, Outputs) {
  auto v = parse_nvcc_version(nvcc_banner("13.0", "13.0.88"));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 13);
  EXPECT_EQ(v->minor, 0);
  EXPECT_EQ(v->build, 88);
  EXPECT_EQ(v->text, "13.0.88");
  v = parse_nvcc_version("Cuda compilation tools, release 11.4\n");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->build, std::nullopt);
  EXPECT_EQ(v->text, "11.4");
  EXPECT_FALSE(parse_nvcc_version(""));
  EXPECT_FALSE(parse_nvcc_version("release notes"));
  EXPECT_FALSE(parse_nvcc_version("release 13"));
}

TEST(ToolkitParseCompilerVersion, GccClangAndOthers) {
  auto id = parse_compiler_version(kGcc12);
  ASSERT_TRUE(id);
  EXPECT_EQ(id->kind, CompilerKind::gcc);
  EXPECT_EQ(id->version, "12.2.0");
  id = parse_compiler_version("gcc (GCC) 13.2.1 20230801\n");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->kind, CompilerKind::gcc);
  EXPECT_EQ(id->major, 13);
  EXPECT_EQ(id->minor, 2);
  id = parse_compiler_version("Debian clang version 14.0.6\nTarget: x86_64-pc-linux-gnu\n");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->kind, CompilerKind::clang);
  EXPECT_EQ(id->version, "14.0.6");
  id = parse_compiler_version("Intel(R) oneAPI DPC++/C++ Compiler 2024.0.0 (2024.0.0.20231017)\n");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->kind, CompilerKind::other);
  EXPECT_FALSE(parse_compiler_version("garbage"));
  EXPECT_FALSE(parse_compiler_version("clang version x"));
}

}  // namespace
