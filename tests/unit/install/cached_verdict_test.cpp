// The cached inspect verdict's key (issue 13 item 9): every input the checks
// read is in it, so changing any one of them never reuses a stale verdict.
#include "install/cached_verdict.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "../temp_dir.hpp"

namespace flashfit::install {
namespace {
namespace fs = std::filesystem;

struct Host {
  test::TempDir dir{"verdict-key"};
  env::Environment environment;
  binary::LoadHost host;

  Host() {
    fs::create_directories(dir.path() / "torch/lib");
    std::ofstream(dir.path() / "torch/lib/libc10.so") << "libc10 v1";
    environment.torch.library_dir = env::Fact<fs::path>::of(dir.path() / "torch/lib", "test");
    environment.machine.libc = env::Fact<env::LibcInfo>::of(env::LibcInfo{"glibc", "2.36"}, "test");
    host.arch = "x86_64";
    host.interpreter = "CPython 3.11.2 (/usr/bin/python3)";
    host.tags = pkg::SupportedTags({pkg::Tag{"cp311", "cp311", "manylinux_2_36_x86_64"}});
    host.ext_suffix = ".cpython-311-x86_64-linux-gnu.so";
    host.torch_installed = true;
    host.torch_version = "2.8.0+cu128";
    host.torch_abi = binary::CxxAbi::cxx11;
    host.torch = binary::TorchLibrarySet{};
    host.torch->libraries = {"libc10.so"};
    host.gpus = std::vector<binary::GpuTarget>{{"GPU 0", 8, 9}};
    host.driver_cuda = binary::CudaVersion{12, 8};
    host.search.ld_cache = {{"libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6", 0x303, 0}};
  }
  std::string key() const { return environment_key(environment, host); }
};

TEST(VerdictKey, ChangesWithEveryInputTheChecksRead) {
  const std::vector<std::pair<const char*, std::function<void(Host&)>>> changes = {
      {"driver CUDA",
       [](Host& h) {
         h.host.driver_cuda = binary::CudaVersion{12, 4};
       }},
      {"no driver", [](Host& h) { h.host.driver_cuda.reset(); }},
      {"glibc",
       [](Host& h) {
         h.environment.machine.libc = env::Fact<env::LibcInfo>::of({"glibc", "2.31"}, "t");
       }},
      {"--glibc", [](Host& h) { h.host.glibc_override = "2.28"; }},
      {"arch", [](Host& h) { h.host.arch = "aarch64"; }},
      {"ld.so.cache",
       [](Host& h) {
         h.host.search.ld_cache.push_back({"libz.so.1", "/lib/libz.so.1", 0x303, 0});
       }},
      {"LD_LIBRARY_PATH", [](Host& h) { h.host.search.ld_library_path = {"/opt/lib"}; }},
      {"tags",
       [](Host& h) {
         h.host.tags = pkg::SupportedTags({pkg::Tag{"cp311", "cp311", "linux_x86_64"}});
       }},
      {"module suffix", [](Host& h) { h.host.ext_suffix = ".cpython-311d-x86_64-linux-gnu.so"; }},
      {"torch ABI", [](Host& h) { h.host.torch_abi = binary::CxxAbi::pre_cxx11; }},
      {"pybind11 id", [](Host& h) { h.host.torch_pybind11_id = "__pybind11_internals_v4_x__"; }},
      {"a torch library added",
       [](Host& h) { std::ofstream(h.dir.path() / "torch/lib/libtorch.so") << "libtorch"; }},
      {"torch not installed", [](Host& h) { h.host.torch_installed = false; }},
      {"a torch library rebuilt in place",
       [](Host& h) {
         std::ofstream(h.dir.path() / "torch/lib/libc10.so") << "libc10 v2, another build";
       }},
      {"GPU",
       [](Host& h) {
         h.host.gpus = std::vector<binary::GpuTarget>{{"GPU 0", 9, 0}};
       }},
      {"GPU unknown", [](Host& h) { h.host.gpus.reset(); }},
  };
  for (const auto& [what, change] : changes) {
    Host h;
    const std::string before = h.key();
    EXPECT_EQ(before, h.key()) << "stable";
    change(h);
    EXPECT_NE(h.key(), before) << what;
  }
}

// The key is known before torch's libraries are read (a reused verdict never
// needs them): what was read from them is not in it, their files' identity is.
TEST(VerdictKey, TheSameWhetherTorchsLibrariesWereReadOrNot) {
  Host h;
  const std::string read = h.key();
  h.host.torch.reset();
  EXPECT_EQ(h.key(), read);
  h.host.torch = binary::TorchLibrarySet{};
  h.host.torch->libraries = {"libc10.so", "libtorch_cpu.so"};
  EXPECT_EQ(h.key(), read);
}

TEST(VerdictKey, AStaleVerdictIsNotReused) {
  test::TempDir root("verdict-cache");
  auto cache = store::WheelCache::open(root.path());
  ASSERT_TRUE(cache) << cache.error().message;
  Host h;
  store::CacheEntry entry;
  entry.filename = "x-1.0-cp311-cp311-linux_x86_64.whl";
  entry.path = root.path() / "absent.whl";  // read only if the verdict is not reused
  entry.inspections.push_back({h.key(), true, "compatible", "2026-01-01T00:00:00Z", false});
  auto same = inspect_cached(*cache, entry, h.environment, h.host, root.path());
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_TRUE(same->reused);
  h.host.driver_cuda = binary::CudaVersion{11, 8};  // an older driver now
  auto other = inspect_cached(*cache, entry, h.environment, h.host, root.path());
  ASSERT_FALSE(other);  // it went to read the wheel: the verdict was not reused
  EXPECT_NE(other.error().context.find("absent.whl"), std::string::npos)
      << other.error().message << " / " << other.error().context;
}

}  // namespace
}  // namespace flashfit::install
