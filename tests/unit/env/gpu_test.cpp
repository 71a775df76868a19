// The GPU probe through the real dlopen path: gpu_probe_driver runs in a
// child process whose LD_LIBRARY_PATH points at stub libraries exporting the
// real NVML and CUDA driver symbols (tests/fixtures/gpu_stubs), configured
// through FLASHFIT_STUB_* variables.

#include "env/gpu.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "util/process.hpp"

namespace fs = std::filesystem;
using flashfit::util::ProcessResult;
using flashfit::util::ProcessSpec;

namespace {

const std::string nvml_dir = FLASHFIT_GPU_STUB_NVML_DIR;
const std::string nvml_old_dir = FLASHFIT_GPU_STUB_NVML_OLD_DIR;
const std::string cuda_dir = FLASHFIT_GPU_STUB_CUDA_DIR;
const std::string both_dirs = nvml_dir + ":" + cuda_dir;
// Names no machine has, so "library missing" holds even where a real driver is installed.
const std::string absent_nvml = "libnvidia-ml-flashfit-absent.so.1";
const std::string absent_cuda = "libcuda-flashfit-absent.so.1";
constexpr const char* kA100 = "NVIDIA A100-SXM4-80GB:8.0:85899345920";
constexpr const char* kL4 = "NVIDIA L4:8.9:24152899584";
constexpr const char* kT4 = "Tesla T4:7.5:16106127360";

using Env = std::vector<std::pair<std::string, std::string>>;

struct Probe {
  ProcessResult process;
  std::map<std::string, std::string> facts;  // "key" -> value, as the driver printed it
  std::vector<std::string> notes;

  std::string operator[](const std::string& key) const {
    auto it = facts.find(key);
    return it == facts.end() ? "<missing " + key + ">" : it->second;
  }
  std::string dump() const { return process.out + process.err; }
};

// A temporary directory standing in for "/", removed at the end of the test.
class FakeRoot {
 public:
  FakeRoot() {
    std::string tmpl = (fs::temp_directory_path() / "flashfit-gpu-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~FakeRoot() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  FakeRoot(const FakeRoot&) = delete;
  FakeRoot& operator=(const FakeRoot&) = delete;

  FakeRoot& with_proc_version(const std::string& text) {
    fs::create_directories(path_ / "proc/driver/nvidia");
    std::ofstream(path_ / "proc/driver/nvidia/version", std::ios::binary) << text;
    return *this;
  }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

constexpr const char* kProc570 =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.06  Wed Feb 26 04:19:33 UTC 2025\n"
    "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";

Probe run_probe(const std::string& library_path, Env env, std::vector<std::string> args = {},
                const std::string& root = {}) {
  ProcessSpec spec;
  spec.argv = {FLASHFIT_GPU_PROBE_DRIVER};
  if (!root.empty()) args.insert(args.end(), {"--root", root});
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.unset_env = {"FLASHFIT_STUB_GPUS",    "FLASHFIT_STUB_DRIVER",   "FLASHFIT_STUB_CUDA",
                    "FLASHFIT_STUB_FAIL_ON", "FLASHFIT_STUB_CRASH_ON", "FLASHFIT_STUB_LOG"};
  if (library_path.empty()) {
    spec.unset_env.push_back("LD_LIBRARY_PATH");
  } else {
    spec.set_env.emplace_back("LD_LIBRARY_PATH", library_path);
  }
  spec.set_env.insert(spec.set_env.end(), env.begin(), env.end());
  spec.timeout = std::chrono::seconds(30);
  auto result = flashfit::util::run_process(spec);
  EXPECT_TRUE(result) << result.error().message;
  Probe probe;
  if (!result) return probe;
  probe.process = *result;
  std::istringstream lines(probe.process.out);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(": ");
    if (colon == std::string::npos) continue;
    const auto key = line.substr(0, colon);
    if (key == "note") {
      probe.notes.push_back(line.substr(colon + 2));
    } else {
      probe.facts.emplace(key, line.substr(colon + 2));
    }
  }
  return probe;
}

// The probe must finish normally: a stub aborts on any call flashfit should not make.
#define EXPECT_CLEAN_EXIT(probe) \
  EXPECT_TRUE((probe).process.succeeded()) << (probe).process.describe() << "\n" << (probe).dump()

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(GpuProbe, NvmlWithNoGpuSaysNoGpu) {
  FakeRoot root;
  auto p = run_probe(
      both_dirs,
      {{"FLASHFIT_STUB_GPUS", ""}, {"FLASHFIT_STUB_CRASH_ON", "cuInit,cuDriverGetVersion"}}, {},
      root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["presence"], "no-gpu");
  EXPECT_EQ(p["gpus"], "0 [NVML]");
  EXPECT_EQ(p["driver_version"], "570.124.06 [NVML]");
  EXPECT_EQ(p["driver_cuda"], "12.8 [NVML]");
  EXPECT_EQ(p["summary"], "no NVIDIA GPU visible, driver 570.124.06 (CUDA 12.8)");
}

TEST(GpuProbe, NvmlOneGpu) {
  FakeRoot root;
  auto p = run_probe(nvml_dir, {{"FLASHFIT_STUB_GPUS", kA100}}, {}, root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["presence"], "gpus-found");
  EXPECT_EQ(p["gpus"], "1 [NVML]");
  EXPECT_EQ(p["gpu0.name"], "NVIDIA A100-SXM4-80GB [NVML]");
  EXPECT_EQ(p["gpu0.capability"], "8.0 [NVML]");
  EXPECT_EQ(p["gpu0.memory"], "85899345920 [NVML]");
  EXPECT_EQ(p["summary"], "1 NVIDIA GPU, driver 570.124.06 (CUDA 12.8)");
}

TEST(GpuProbe, NvmlTwoGpusOfDifferentCapabilities) {
  FakeRoot root;
  auto p =
      run_probe(nvml_dir, {{"FLASHFIT_STUB_GPUS", std::string(kA100) + ";" + kL4}}, {}, root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["gpus"], "2 [NVML]");
  EXPECT_EQ(p["gpu0.capability"], "8.0 [NVML]");
  EXPECT_EQ(p["gpu1.name"], "NVIDIA L4 [NVML]");
  EXPECT_EQ(p["gpu1.capability"], "8.9 [NVML]");
  EXPECT_EQ(p["gpu1.memory"], "24152899584 [NVML]");
  EXPECT_EQ(p["summary"], "2 NVIDIA GPUs, driver 570.124.06 (CUDA 12.8)");
}

TEST(GpuProbe, OldDriverWithT4) {
  FakeRoot root;
  const Env env = {{"FLASHFIT_STUB_GPUS", kT4},
                   {"FLASHFIT_STUB_DRIVER", "470.82.01"},
                   {"FLASHFIT_STUB_CUDA", "11040"}};
  auto p = run_probe(nvml_dir, env, {"--check-cuda", "12.1"}, root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["driver_version"], "470.82.01 [NVML]");
  EXPECT_EQ(p["driver_cuda"], "11.4 [NVML]");
  EXPECT_EQ(p["gpu0.capability"], "7.5 [NVML]");
  EXPECT_TRUE(contains(p["runs_cuda"], "no (")) << p["runs_cuda"];
  auto p118 = run_probe(nvml_dir, env, {"--check-cuda", "11.8"}, root.str());
  EXPECT_TRUE(contains(p118["runs_cuda"], "minor-version-compat")) << p118["runs_cuda"];
}

TEST(GpuProbe, NvmlDriverNotLoadedFallsBackToTheCudaDriverApi) {
  FakeRoot root;
  root.with_proc_version(kProc570);
  // After a failed init, NVML must be left alone: no shutdown, no queries.
  auto p = run_probe(
      both_dirs,
      {{"FLASHFIT_STUB_GPUS", std::string(kL4) + ";" + kT4},
       {"FLASHFIT_STUB_FAIL_ON", "nvmlInit_v2=9"},
       {"FLASHFIT_STUB_CRASH_ON", "nvmlShutdown,nvmlDeviceGetCount_v2,nvmlSystemGetDriverVersion"}},
      {}, root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["presence"], "gpus-found");
  EXPECT_EQ(p["gpus"], "2 [CUDA driver API]");
  EXPECT_EQ(p["gpu0.name"], "NVIDIA L4 [CUDA driver API]");
  EXPECT_EQ(p["gpu0.capability"], "8.9 [CUDA driver API]");
  EXPECT_EQ(p["gpu1.capability"], "7.5 [CUDA driver API]");
  EXPECT_EQ(p["gpu1.memory"], "16106127360 [CUDA driver API]");
  EXPECT_EQ(p["driver_cuda"], "12.8 [CUDA driver API]");
  EXPECT_EQ(p["driver_version"], "570.124.06 [/proc/driver/nvidia/version]");
  bool noted = false;
  for (const auto& n : p.notes) noted |= contains(n, "Driver Not Loaded (NVML error 9)");
  EXPECT_TRUE(noted) << p.dump();
}

TEST(GpuProbe, BothSourcesFailingLeavesFactsUnknownWithTheirErrors) {
  FakeRoot root;
  auto p = run_probe(both_dirs,
                     {{"FLASHFIT_STUB_GPUS", kA100},
                      {"FLASHFIT_STUB_FAIL_ON", "nvmlInit_v2=999,cuInit=999,cuDriverGetVersion=3"},
                      {"FLASHFIT_STUB_CRASH_ON", "nvmlShutdown,cuDeviceGetCount"}},
                     {}, root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["presence"], "unknown");
  EXPECT_TRUE(contains(p["gpus"], "unknown (")) << p["gpus"];
  EXPECT_TRUE(contains(p["gpus"], "nvmlInit_v2: Unknown Error (NVML error 999)")) << p["gpus"];
  EXPECT_TRUE(contains(p["gpus"], "cuInit: CUDA_ERROR_UNKNOWN: unknown error (CUDA error 999)"))
      << p["gpus"];
  EXPECT_TRUE(contains(p["driver_cuda"], "CUDA_ERROR_NOT_INITIALIZED")) << p["driver_cuda"];
  EXPECT_TRUE(contains(p["driver_version"], "unknown (")) << p["driver_version"];
  EXPECT_TRUE(contains(p["summary"], "NVIDIA GPUs unknown")) << p["summary"];
}

TEST(GpuProbe, OnlyTheProcFileGivesTheDriverVersion) {
  FakeRoot root;
  root.with_proc_version(kProc570);
  auto p = run_probe("", {}, {"--nvml-lib", absent_nvml, "--cuda-lib", absent_cuda}, root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["driver_version"], "570.124.06 [/proc/driver/nvidia/version]");
  EXPECT_EQ(p["presence"], "unknown");  // a kernel module without its libraries
  EXPECT_TRUE(contains(p["gpus"], "cannot load " + absent_nvml)) << p["gpus"];
  EXPECT_TRUE(contains(p["driver_cuda"], "unknown (")) << p["driver_cuda"];
}

TEST(GpuProbe, NothingAtAllIsNoNvidiaDriver) {
  FakeRoot root;
  auto p = run_probe("", {},
                     {"--nvml-lib", absent_nvml, "--cuda-lib", absent_cuda, "--check-cuda", "12.8"},
                     root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["presence"], "no-driver");
  EXPECT_EQ(p["summary"], "no NVIDIA driver");
  EXPECT_EQ(p["gpus"], "0 [no NVIDIA driver]");
  EXPECT_TRUE(contains(p["driver_version"], "unknown (no NVIDIA driver")) << p["driver_version"];
  EXPECT_TRUE(contains(p["runs_cuda"], "no (no NVIDIA driver")) << p["runs_cuda"];
}

TEST(GpuProbe, NvmlSaysDriverNotLoadedAndNothingElseIsThere) {
  FakeRoot root;
  auto p = run_probe(nvml_dir, {{"FLASHFIT_STUB_FAIL_ON", "nvmlInit_v2=9"}},
                     {"--cuda-lib", absent_cuda}, root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["presence"], "no-driver");
}

TEST(GpuProbe, CudaDriverApiWithNoDeviceSaysNoGpu) {
  FakeRoot root;
  root.with_proc_version(kProc570);
  auto p =
      run_probe(cuda_dir, {{"FLASHFIT_STUB_GPUS", ""}}, {"--nvml-lib", absent_nvml}, root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["presence"], "no-gpu");
  EXPECT_EQ(p["gpus"], "0 [CUDA driver API]");
  EXPECT_EQ(p["driver_version"], "570.124.06 [/proc/driver/nvidia/version]");
}

TEST(GpuProbe, NvmlSuccessNeverTouchesLibcuda) {
  FakeRoot root;
  auto p = run_probe(
      both_dirs,
      {{"FLASHFIT_STUB_GPUS", kA100},
       {"FLASHFIT_STUB_CRASH_ON", "cuInit,cuDriverGetVersion,cuDeviceGetCount,cuDeviceGet"}},
      {}, root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["gpu0.capability"], "8.0 [NVML]");
}

TEST(GpuProbe, CrashOnIsLiveSoTheGuardsAboveMeanSomething) {
  FakeRoot root;
  auto p = run_probe(
      nvml_dir, {{"FLASHFIT_STUB_GPUS", kA100}, {"FLASHFIT_STUB_CRASH_ON", "nvmlDeviceGetName"}},
      {}, root.str());
  EXPECT_EQ(p.process.term_signal, SIGABRT) << p.process.describe();
  EXPECT_TRUE(contains(p.process.err, "forbidden call: nvmlDeviceGetName")) << p.dump();
}

TEST(GpuProbe, InitAndShutdownAreBalanced) {
  FakeRoot root;
  const auto log = fs::path(root.str()) / "calls.log";
  auto p = run_probe(nvml_dir, {{"FLASHFIT_STUB_GPUS", kA100}, {"FLASHFIT_STUB_LOG", log.string()}},
                     {}, root.str());
  EXPECT_CLEAN_EXIT(p);
  std::ifstream in(log);
  std::vector<std::string> calls;
  for (std::string line; std::getline(in, line);) calls.push_back(line);
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.front(), "nvmlInit_v2");
  EXPECT_EQ(calls.back(), "nvmlShutdown");
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "nvmlShutdown"), 1);
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "nvmlInit_v2"), 1);
}

TEST(GpuProbe, PerDeviceErrorsStayWithTheirFact) {
  FakeRoot root;
  auto p = run_probe(
      nvml_dir,
      {{"FLASHFIT_STUB_GPUS", kA100}, {"FLASHFIT_STUB_FAIL_ON", "nvmlDeviceGetMemoryInfo=3"}}, {},
      root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["presence"], "gpus-found");
  EXPECT_EQ(p["gpu0.capability"], "8.0 [NVML]");
  EXPECT_EQ(p["gpu0.memory"],
            "unknown (nvmlDeviceGetMemoryInfo: Not Supported (NVML error 3)) [NVML]");
}

TEST(GpuProbe, NvmlDeviceCountFailureFallsBackForGpusOnly) {
  FakeRoot root;
  auto p = run_probe(
      both_dirs,
      {{"FLASHFIT_STUB_GPUS", kL4}, {"FLASHFIT_STUB_FAIL_ON", "nvmlDeviceGetCount_v2=15"}}, {},
      root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["driver_version"], "570.124.06 [NVML]");
  EXPECT_EQ(p["driver_cuda"], "12.8 [NVML]");
  EXPECT_EQ(p["gpus"], "1 [CUDA driver API]");
  EXPECT_EQ(p["gpu0.capability"], "8.9 [CUDA driver API]");
}

TEST(GpuProbe, OlderNvmlWithoutV2SymbolsIsNotCalledBlindly) {
  FakeRoot root;
  auto p = run_probe(nvml_old_dir, {{"FLASHFIT_STUB_GPUS", kA100}, {"FLASHFIT_STUB_CUDA", "12040"}},
                     {"--cuda-lib", absent_cuda}, root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["driver_cuda"], "12.4 [NVML]");  // from the unversioned call
  EXPECT_EQ(p["gpu0.capability"], "8.0 [NVML]");
  EXPECT_TRUE(contains(p["gpu0.memory"], "does not export nvmlDeviceGetMemoryInfo"))
      << p["gpu0.memory"];
}

TEST(GpuProbe, GarbledAnswersAreUnknownNotGuesses) {
  FakeRoot root;
  auto p = run_probe(both_dirs,
                     {{"FLASHFIT_STUB_GPUS", "Weird GPU:0.0:1"},
                      {"FLASHFIT_STUB_DRIVER", "not-a-version"},
                      {"FLASHFIT_STUB_CUDA", "12085"}},
                     {}, root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_TRUE(contains(p["driver_version"], "answered 'not-a-version'")) << p["driver_version"];
  EXPECT_TRUE(contains(p["driver_cuda"], "answered 12085")) << p["driver_cuda"];
  EXPECT_TRUE(contains(p["gpu0.capability"], "unknown (")) << p["gpu0.capability"];
}

TEST(GpuProbe, GarbledProcVersionFile) {
  FakeRoot root;
  root.with_proc_version(std::string("garbage\n\x01\xff\x00 NVRM", 16));
  auto p = run_probe("", {}, {"--nvml-lib", absent_nvml, "--cuda-lib", absent_cuda}, root.str());
  EXPECT_CLEAN_EXIT(p);
  EXPECT_TRUE(contains(p["driver_version"], "no 'NVRM version:' line")) << p["driver_version"];
  EXPECT_EQ(p["presence"], "unknown");  // the file is there, so a module is loaded
}

TEST(GpuProbe, ThisMachineWithoutStubsHasNoNvidiaDriver) {
  if (fs::exists("/proc/driver/nvidia/version")) {
    GTEST_SKIP() << "this machine has an NVIDIA kernel module";
  }
  auto p = run_probe("", {});
  EXPECT_CLEAN_EXIT(p);
  EXPECT_EQ(p["presence"], "no-driver") << p.dump();
  EXPECT_EQ(p["summary"], "no NVIDIA driver");
}

TEST(GpuProbe, ValuesBuiltDirectlyNeedNoProbe) {
  // What-if environments construct GpuFacts by hand; the verdict then needs no driver.
  flashfit::env::GpuFacts facts;
  facts.presence = flashfit::env::GpuPresence::gpus_found;
  facts.driver_cuda =
      flashfit::env::Fact<flashfit::pkg::CudaVersion>::overridden_by({12, 4}, "--driver-cuda");
  flashfit::pkg::CudaVersion build{12, 8};
  EXPECT_EQ(flashfit::env::driver_runs_cuda(facts, build).support,
            flashfit::env::DriverSupport::minor_version_compat);
  EXPECT_EQ(flashfit::env::to_string(flashfit::env::GpuPresence::no_driver), "no-driver");
}
