// The toolkit decision (pure) and the assembly into the cache, with a
// stand-in "python" whose `-m pip install --target DIR` lays out what NVIDIA's
// wheels hold (the real wheels are assembled in
// tests/integration/test_toolkit_provision.sh).
#include "build/toolkit_provision.hpp"

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

TEST(ToolkitFlag, Values) {
  EXPECT_EQ(parse_toolkit_flag("auto")->mode, ToolkitMode::automatic);
  EXPECT_EQ(parse_toolkit_flag("pypi")->mode, ToolkitMode::pypi);
  EXPECT_EQ(parse_toolkit_flag("machine")->mode, ToolkitMode::machine);
  auto path = parse_toolkit_flag("/usr/local/cuda-12.8/");
  ASSERT_TRUE(path);
  EXPECT_EQ(path->mode, ToolkitMode::path);
  EXPECT_EQ(path->path, fs::path("/usr/local/cuda-12.8/"));
  EXPECT_TRUE(parse_toolkit_flag("./cuda")->path.is_absolute());
  for (const char* bad : {"", "Auto", "cuda-12.8", "12.8", "pypi2"}) {
    auto r = parse_toolkit_flag(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().kind, util::ErrorKind::usage);
  }
}

TEST(ToolkitPackages, PinnedToTorchsMinorPerLayout) {
  auto cu13 = toolkit_packages({13, 0});
  ASSERT_TRUE(cu13);
  EXPECT_EQ(cu13->key, "cuda-13.0");
  EXPECT_THAT(
      cu13->requirements,
      ElementsAre("nvidia-cuda-nvcc==13.0.*", "nvidia-nvvm==13.0.*", "nvidia-cuda-crt==13.0.*",
                  "nvidia-cuda-runtime==13.0.*", "nvidia-cuda-cccl==13.0.*"));
  EXPECT_THAT(cu13->roots, ElementsAre("nvidia/cu13"));
  auto cu12 = toolkit_packages({12, 8});
  ASSERT_TRUE(cu12);
  EXPECT_THAT(cu12->requirements,
              ElementsAre("nvidia-cuda-nvcc-cu12==12.8.*", "nvidia-cuda-runtime-cu12==12.8.*",
                          "nvidia-cuda-cccl-cu12==12.8.*"));
  EXPECT_EQ(cu12->roots.size(), 3u);
  auto cu11 = toolkit_packages({11, 8});
  ASSERT_FALSE(cu11);
  EXPECT_THAT(cu11.error().message, HasSubstr("CUDA 11.8"));
}

TEST(ToolkitDecision, AutoKeepsAMatchingNvccAndAssemblesOtherwise) {
  env::Environment env = healthy();
  set_torch(env, "2.9.1+cu130", std::string("13.0"));
  set_nvcc(env, 13, 0);
  auto keep = decide_toolkit(env, ToolkitMode::automatic);
  ASSERT_TRUE(keep);
  EXPECT_FALSE(keep->assemble);
  EXPECT_THAT(keep->reason, HasSubstr("matches"));
  // nvcc 12.4 against torch's CUDA 13.0: the mismatch users hit most.
  set_nvcc(env, 12, 4);
  auto mismatch = decide_toolkit(env, ToolkitMode::automatic);
  ASSERT_TRUE(mismatch);
  ASSERT_TRUE(mismatch->assemble);
  EXPECT_EQ(*mismatch->assemble, (env::MajorMinor{13, 0}));
  EXPECT_THAT(mismatch->reason, HasSubstr("nvcc 12.4"));
  // No nvcc at all, or one without runtime headers.
  env.toolkit.nvcc = env::Fact<fs::path>::unknown("not found");
  env.toolkit.cuda_version = env::Fact<env::NvccVersion>::unknown("nvcc not found");
  EXPECT_TRUE(decide_toolkit(env, ToolkitMode::automatic)->assemble);
  set_nvcc(env, 13, 0, "/usr/local");
  env.toolkit.cuda_home =
      env::Fact<fs::path>::unknown("no cuda_runtime_api.h in /usr/local/include");
  EXPECT_TRUE(decide_toolkit(env, ToolkitMode::automatic)->assemble);
  // pypi always assembles; machine and a path never do.
  set_nvcc(env, 13, 0);
  EXPECT_TRUE(decide_toolkit(env, ToolkitMode::pypi)->assemble);
  EXPECT_FALSE(decide_toolkit(env, ToolkitMode::machine)->assemble);
  EXPECT_FALSE(decide_toolkit(env, ToolkitMode::path)->assemble);
}

TEST(ToolkitDecision, CpuOrUnknownTorchCannotPickAToolkit) {
  env::Environment env = healthy();
  set_torch(env, "2.13.0+cpu", std::nullopt);
  auto cpu = decide_toolkit(env, ToolkitMode::automatic);
  ASSERT_FALSE(cpu);
  EXPECT_THAT(cpu.error().message, HasSubstr("not a CUDA build"));
  env.torch.cuda = env::Fact<env::ToolkitBuild>::unknown("no version.py");
  auto unknown = decide_toolkit(env, ToolkitMode::pypi);
  ASSERT_FALSE(unknown);
  EXPECT_THAT(unknown.error().message, HasSubstr("no version.py"));
}

// ---- assembly, with a stand-in pip -------------------------------------------

class ToolkitAssembly : public ::testing::Test {
 protected:
  // A "python" whose `-m pip install ... --target DIR ...` writes the CUDA 13
  // layout: nvcc (a script answering --version with `release`), headers and
  // the runtime; FAKE_PIP_FAIL makes it fail like pip does.
  void SetUp() override {
    python = dir.path() / "python";
    std::ofstream(python)
        << "#!/bin/sh\n"
           "echo \"$@\" >> '"
        << (dir.path() / "calls").string()
        << "'\n"
           "[ -n \"$FAKE_PIP_FAIL\" ] && { echo 'ERROR: No matching distribution found' >&2; exit "
           "1; }\n"
           "while [ $# -gt 0 ]; do [ \"$1\" = --target ] && t=$2; shift; done\n"
           "r=$t/nvidia/cu13\n"
           "mkdir -p $r/bin $r/include/cccl/cuda $r/lib $r/nvvm/bin "
           "$t/nvidia_cuda_nvcc-13.0.88.dist-info "
           "$t/nvidia_nvvm-13.0.88.dist-info\n"
           "printf '#!/bin/sh\\necho \"Cuda compilation tools, release ${FAKE_RELEASE:-13.0}, "
           "V${FAKE_RELEASE:-13.0}.88\"\\n' > $r/bin/nvcc\n"
           "chmod +x $r/bin/nvcc\n"
           "echo '/* */' > $r/include/cuda_runtime_api.h\n"
           "echo x > $r/lib/libcudart.so.13\n";
    fs::permissions(python, fs::perms::owner_all);
    packages = *toolkit_packages({13, 0});
  }
  int calls() const {
    std::ifstream in(dir.path() / "calls");
    int n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  }
  test::TempDir dir{"toolkit"};
  fs::path python;
  ToolkitPackages packages;
};

TEST_F(ToolkitAssembly, LaysOutACudaHomeOnceAndReusesIt) {
  const fs::path cache = dir.path() / "cache";
  auto first = provision_toolkit(python.string(), cache, packages, {});
  ASSERT_TRUE(first) << first.error().message << " " << first.error().context;
  EXPECT_EQ(first->cuda_home, cache / "toolkits/cuda-13.0");
  EXPECT_FALSE(first->reused);
  EXPECT_EQ(first->nvcc_version, "13.0.88");
  EXPECT_THAT(first->packages, ElementsAre("nvidia-cuda-nvcc==13.0.88", "nvidia-nvvm==13.0.88"));
  EXPECT_TRUE(fs::is_regular_file(first->cuda_home / "include/cuda_runtime_api.h"));
  EXPECT_TRUE(
      fs::is_regular_file(first->cuda_home / "lib64/libcudart.so"));  // lib64 -> lib, .so -> .so.13
  EXPECT_EQ(fs::read_symlink(first->cuda_home / "lib/libcudart.so"), "libcudart.so.13");
  EXPECT_THAT(first->describe(), HasSubstr("nvidia-cuda-nvcc==13.0.88"));
  // The pip command: no deps, wheels only, every requirement pinned.
  std::ifstream in(dir.path() / "calls");
  std::string line;
  std::getline(in, line);
  EXPECT_THAT(line, HasSubstr("-m pip install --no-deps --only-binary :all:"));
  EXPECT_THAT(line, HasSubstr("nvidia-cuda-nvcc==13.0.*"));
  // No temp dirs left beside it.
  int entries = 0;
  for (const auto& e : fs::directory_iterator(cache / "toolkits"))
    entries += e.path().filename().string()[0] == '.';
  EXPECT_EQ(entries, 0);
  auto second = provision_toolkit(python.string(), cache, packages, {});
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->reused);
  EXPECT_EQ(second->packages, first->packages);
  EXPECT_EQ(calls(), 1);  // pip ran once
}

TEST_F(ToolkitAssembly, PipFailureCachesNothingAndSaysWhy) {
  const fs::path cache = dir.path() / "cache";
  setenv("FAKE_PIP_FAIL", "1", 1);
  auto r = provision_toolkit(python.string(), cache, packages, {});
  unsetenv("FAKE_PIP_FAIL");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("pip could not install the CUDA 13.0 toolkit wheels"));
  EXPECT_THAT(r.error().context, HasSubstr("No matching distribution"));
  EXPECT_THAT(r.error().hint, HasSubstr("--toolkit PATH"));
  EXPECT_FALSE(fs::exists(cache / "toolkits/cuda-13.0"));
}

TEST_F(ToolkitAssembly, AnNvccOfAnotherReleaseIsRefused) {
  const fs::path cache = dir.path() / "cache";
  setenv("FAKE_RELEASE", "13.1", 1);
  auto r = provision_toolkit(python.string(), cache, packages, {});
  unsetenv("FAKE_RELEASE");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("is 13.1.88, not CUDA 13.0"));
  EXPECT_FALSE(fs::exists(cache / "toolkits/cuda-13.0"));
  // A broken cached toolkit (nvcc gone) is assembled again, not trusted.
  auto good = provision_toolkit(python.string(), cache, packages, {});
  ASSERT_TRUE(good);
  fs::remove(good->cuda_home / "bin/nvcc");
  auto again = provision_toolkit(python.string(), cache, packages, {});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_FALSE(again->reused);
  EXPECT_TRUE(fs::exists(again->cuda_home / "bin/nvcc"));
}

TEST_F(ToolkitAssembly, WheelsWithoutTheExpectedLayoutAreAnError) {
  packages.roots = {"nvidia/cuda_nvcc"};  // CUDA 12's layout, absent from these wheels
  auto r = provision_toolkit(python.string(), dir.path() / "cache", packages, {});
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("no nvidia/cuda_nvcc directory"));
}

}  // namespace
}  // namespace flashfit::build
