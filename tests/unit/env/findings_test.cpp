#include "env/findings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "sample_environment.hpp"

namespace flashfit::env {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

constexpr const char* kPython = "/opt/venv/bin/python";
constexpr const char* kIndex = "https://download.pytorch.org/whl/";

Interpreter venv_python() {
  Interpreter i;
  i.choice = {kPython, "$VIRTUAL_ENV"};
  i.executable = kPython;
  i.realpath = "/usr/bin/python3.11";
  i.implementation = "cpython";
  i.major = 3;
  i.minor = 11;
  i.micro = 2;
  i.release_level = "final";
  i.prefix = "/opt/venv";
  i.base_prefix = "/usr";
  i.in_venv = true;
  i.site_dirs = {"/opt/venv/lib/python3.11/site-packages"};
  i.has_pip = true;
  i.tag_facts.implementation = "cpython";
  i.tag_facts.python_minor = 11;
  i.tag_facts.py_version_nodot = "311";
  i.tag_facts.system = "Linux";
  i.tag_facts.platform = "linux-x86_64";
  i.tag_facts.glibc = pkg::LibcVersion{2, 36};
  return i;
}

GpuDevice gpu(unsigned index, const std::string& name, int major, int minor) {
  GpuDevice d;
  d.index = index;
  d.name = Fact<std::string>::of(name, "NVML");
  d.capability = Fact<ComputeCapability>::of(ComputeCapability{major, minor}, "NVML");
  d.total_memory = Fact<std::uint64_t>::of(std::uint64_t{80} << 30, "NVML");
  return d;
}

// Everything flash-attn wants: a CUDA 12.8 torch with the C++11 ABI, a driver
// for CUDA 12.8, one Ampere GPU, a matching nvcc with an accepted gcc, ninja,
// plenty of memory and a glibc new enough for the official wheels.
Environment healthy() {
  Environment env;
  env.machine = sample::debian_machine();

  env.python.interpreter = Fact<Interpreter>::of(venv_python(), "$VIRTUAL_ENV");
  env.python.version = Fact<MajorMinor>::of(MajorMinor{3, 11}, "$VIRTUAL_ENV");
  env.python.uv = Fact<std::filesystem::path>::unknown("uv is not on PATH");

  const std::string site = "/opt/venv/lib/python3.11/site-packages";
  env.torch = sample::cuda_torch(site);

  env.gpu.presence = GpuPresence::gpus_found;
  env.gpu.summary = "1 NVIDIA GPU, driver 570.124.06";
  env.gpu.driver_version = Fact<std::string>::of("570.124.06", "NVML");
  env.gpu.driver_cuda = Fact<pkg::CudaVersion>::of(pkg::CudaVersion{12, 8}, "NVML");
  env.gpu.gpus = Fact<std::vector<GpuDevice>>::of({gpu(0, "NVIDIA A100-SXM4-80GB", 8, 0)}, "NVML");

  env.toolkit.nvcc = Fact<std::filesystem::path>::of("/usr/local/cuda/bin/nvcc", "/usr/local/cuda");
  env.toolkit.cuda_version = Fact<NvccVersion>::of(NvccVersion{12, 8, 93, "12.8.93"},
                                                   "/usr/local/cuda/bin/nvcc --version");
  env.toolkit.host_compiler = Fact<std::filesystem::path>::of("/usr/bin/g++", "PATH (g++)");
  env.toolkit.host_compiler_id = Fact<CompilerId>::of(
      CompilerId{CompilerKind::gcc, 12, 2, "12.2.0"}, "/usr/bin/g++ --version");
  env.toolkit.host_compiler_max_major = Fact<int>::of(14, "nvcc 12.8.93 host_config.h limits");
  env.toolkit.host_compiler_check = {HostCompilerVerdict::ok, "this nvcc accepts GCC up to 14"};
  env.toolkit.ninja = Fact<std::filesystem::path>::of("/usr/bin/ninja", "PATH (ninja)");
  env.toolkit.ninja_version = Fact<std::string>::of("1.11.1", "/usr/bin/ninja --version");
  return env;
}

std::vector<std::string> ids(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  out.reserve(findings.size());
  for (const auto& f : findings) out.push_back(f.id);
  return out;
}

std::string describe(const std::vector<Finding>& findings) {
  std::string out;
  for (const auto& f : findings) {
    out += std::string(to_string(f.severity)) + " " + f.id + ": " + f.message + " / fix: " + f.fix +
           "\n";
  }
  return out.empty() ? "(none)" : out;
}

// The environment must produce exactly one finding, and it is `id`.
Finding only(const Environment& env, const std::string& id) {
  const auto findings = diagnose(env);
  EXPECT_EQ(ids(findings), std::vector<std::string>{id}) << describe(findings);
  for (const auto& f : findings) {
    if (f.id == id) return f;
  }
  return {};
}

bool has(const Environment& env, const std::string& id) {
  const auto all = ids(diagnose(env));
  return std::find(all.begin(), all.end(), id) != all.end();
}

void set_driver(Environment& env, const std::string& version, pkg::CudaVersion cuda) {
  env.gpu.driver_version = Fact<std::string>::of(version, "NVML");
  env.gpu.driver_cuda = Fact<pkg::CudaVersion>::of(cuda, "NVML");
  env.gpu.summary = "1 NVIDIA GPU, driver " + version;
}

void set_torch(Environment& env, const std::string& version,
               const std::optional<std::string>& cuda) {
  env.torch.version_text = Fact<std::string>::of(version, "torch/version.py");
  env.torch.version = Fact<pkg::Version>::of(*pkg::Version::parse(version), "torch/version.py");
  env.torch.cuda = Fact<ToolkitBuild>::of(
      cuda ? ToolkitBuild::of(*cuda) : ToolkitBuild::none_built(), "torch/version.py");
}

void remove_torch(Environment& env) {
  const std::string reason = "no torch/ package in /opt/venv/lib/python3.11/site-packages";
  env.torch = {};
  env.torch.package_dir = Fact<std::filesystem::path>::unknown(reason);
  env.torch.version_text = Fact<std::string>::unknown(reason);
  env.torch.version = Fact<pkg::Version>::unknown(reason);
  env.torch.cuda = Fact<ToolkitBuild>::unknown(reason);
  env.torch.hip = Fact<ToolkitBuild>::unknown(reason);
  env.torch.cxx11_abi = Fact<bool>::unknown(reason);
}

void set_nvcc(Environment& env, int major, int minor, const std::string& text) {
  env.toolkit.cuda_version = Fact<NvccVersion>::of(NvccVersion{major, minor, std::nullopt, text},
                                                   "/usr/local/cuda/bin/nvcc --version");
}

// ---- the healthy environment ----------------------------------------------

TEST(Diagnose, AHealthyEnvironmentHasNoFindings) {
  const auto findings = diagnose(healthy());
  EXPECT_THAT(findings, IsEmpty()) << describe(findings);
}

TEST(Diagnose, UvAloneIsEnoughOfAnInstaller) {
  Environment env = healthy();
  env.python.interpreter.value->has_pip = false;
  env.python.uv = Fact<std::filesystem::path>::of("/usr/local/bin/uv", "PATH");
  EXPECT_THAT(diagnose(env), IsEmpty()) << describe(diagnose(env));
}

TEST(Diagnose, ANewerDriverIsFine) {
  Environment env = healthy();
  set_driver(env, "580.82.07", {13, 0});
  EXPECT_THAT(diagnose(env), IsEmpty()) << describe(diagnose(env));
}

// ---- python ---------------------------------------------------------------

TEST(Diagnose, NoInterpreter) {
  Environment env = healthy();
  env.python.interpreter =
      Fact<Interpreter>::unknown("no executable interpreter at '/nonexistent'");
  env.python.version = Fact<MajorMinor>::unknown("no interpreter");
  remove_torch(env);
  const auto f = only(env, "no-interpreter");
  EXPECT_EQ(f.severity, Severity::problem);
  EXPECT_THAT(f.message, HasSubstr("no executable interpreter at '/nonexistent'"));
  EXPECT_THAT(f.fix, HasSubstr("--python /path/to/python"));
}

TEST(Diagnose, PythonVersionWithoutAnInterpreterIsNotMissingOne) {
  Environment env = healthy();
  env.python.interpreter =
      Fact<Interpreter>::unknown("no executable interpreter at '/nonexistent'");
  env.python.version = Fact<MajorMinor>::overridden_by(MajorMinor{3, 12}, "--python-version");
  // A what-if torch: nothing installed, nothing to complain about.
  remove_torch(env);
  env.torch.version =
      Fact<pkg::Version>::overridden_by(*pkg::Version::parse("2.8.0+cu128"), "--torch");
  env.torch.cuda = Fact<ToolkitBuild>::overridden_by(ToolkitBuild::of("12.8"), "--torch");
  // Not a problem, but the user should know no real interpreter (or torch) was probed.
  const auto f = only(env, "no-interpreter");
  EXPECT_EQ(f.severity, Severity::note);
  EXPECT_THAT(f.message, AllOf(HasSubstr("/nonexistent"), HasSubstr("--python-version")));
  EXPECT_THAT(f.fix, HasSubstr("--python"));
}

TEST(Diagnose, NoInstaller) {
  Environment env = healthy();
  env.python.interpreter.value->has_pip = false;
  const auto f = only(env, "no-installer");
  EXPECT_EQ(f.severity, Severity::warning);
  EXPECT_THAT(f.message, AllOf(HasSubstr("pip"), HasSubstr("uv"), HasSubstr(kPython)));
  EXPECT_EQ(f.fix, std::string(kPython) + " -m ensurepip, or install uv");
}

// ---- torch ----------------------------------------------------------------

TEST(Diagnose, NoTorchPointsAtTheIndexTheDriverRuns) {
  Environment env = healthy();
  remove_torch(env);
  auto f = only(env, "no-torch");
  EXPECT_EQ(f.severity, Severity::problem);
  EXPECT_THAT(f.message, HasSubstr(kPython));
  EXPECT_EQ(f.fix, std::string(kPython) + " -m pip install torch --index-url " + kIndex + "cu128");

  set_driver(env, "560.35.03", {12, 6});
  f = only(env, "no-torch");
  EXPECT_EQ(f.fix, std::string(kPython) + " -m pip install torch --index-url " + kIndex + "cu126");
}

TEST(Diagnose, NoTorchWithAnUnknownDriverStillGivesACommand) {
  Environment env = healthy();
  remove_torch(env);
  env.gpu.driver_cuda = Fact<pkg::CudaVersion>::unknown("NVML failed");
  const auto f = only(env, "no-torch");
  EXPECT_THAT(f.fix,
              StartsWith(std::string(kPython) + " -m pip install torch --index-url " + kIndex));
  EXPECT_THAT(f.fix, HasSubstr("nvidia-smi"));
}

TEST(Diagnose, NoTorchIsNotReportedWithoutAnInterpreterToInstallInto) {
  Environment env = healthy();
  env.python.interpreter = Fact<Interpreter>::unknown("none");
  env.python.version = Fact<MajorMinor>::unknown("no interpreter");
  remove_torch(env);
  EXPECT_FALSE(has(env, "no-torch"));
}

TEST(Diagnose, RocmTorch) {
  Environment env = healthy();
  set_torch(env, "2.8.0+rocm6.3", std::nullopt);
  env.torch.hip = Fact<ToolkitBuild>::of(ToolkitBuild::of("6.3.42131"), "torch/version.py");
  const auto f = only(env, "rocm-torch");
  EXPECT_EQ(f.severity, Severity::note);
  EXPECT_THAT(f.message, HasSubstr("HIP 6.3.42131"));
  EXPECT_THAT(f.fix, IsEmpty()) << "a note without a fix";
}

TEST(Diagnose, CpuOnlyTorch) {
  Environment env = healthy();
  set_torch(env, "2.8.0+cpu", std::nullopt);
  const auto f = only(env, "cpu-only-torch");
  EXPECT_EQ(f.severity, Severity::problem);
  EXPECT_THAT(f.message, HasSubstr("torch 2.8.0+cpu"));
  // Pinned with the index's label: the installed 2.8.0+cpu satisfies a bare `torch`.
  EXPECT_EQ(f.fix, "(torch 2.8.0, CUDA 12.8) " + std::string(kPython) +
                       " -m pip install torch==2.8.0+cu128 --index-url " + kIndex + "cu128");
}

// Debian's interpreter (PEP 668): pip refuses outside a venv, so the fix
// makes one; a path with a space is quoted.
TEST(Diagnose, FixesRunPipWhereItInstalls) {
  Environment env = healthy();
  remove_torch(env);
  env.python.externally_managed = true;
  auto f = only(env, "no-torch");
  EXPECT_THAT(f.fix, StartsWith(std::string(kPython) +
                                " -m venv --system-site-packages .venv && .venv/bin/python -m pip "
                                "install torch --index-url "));
  env.python.externally_managed = false;
  Interpreter spaced = *env.python.interpreter;
  spaced.executable = "/home/u/my env/bin/python";
  env.python.interpreter = Fact<Interpreter>::of(spaced, "--python");
  f = only(env, "no-torch");
  EXPECT_THAT(f.fix, StartsWith("'/home/u/my env/bin/python' -m pip install torch"));
}

TEST(Diagnose, CpuOnlyWhatIfTorch) {
  Environment env = healthy();
  remove_torch(env);
  env.torch.version_text = Fact<std::string>::overridden_by("2.9.0+cpu", "--torch");
  env.torch.version =
      Fact<pkg::Version>::overridden_by(*pkg::Version::parse("2.9.0+cpu"), "--torch");
  env.torch.cuda = Fact<ToolkitBuild>::overridden_by(ToolkitBuild::none_built(), "--torch");
  const auto f = only(env, "cpu-only-torch");
  EXPECT_THAT(f.message, HasSubstr("2.9.0+cpu"));
}

TEST(Diagnose, TorchAbiUnknown) {
  Environment env = healthy();
  env.torch.cxx11_abi =
      Fact<bool>::unknown("no libc10.so in /opt/venv/lib/python3.11/site-packages/torch/lib");
  const auto f = only(env, "torch-abi-unknown");
  EXPECT_EQ(f.severity, Severity::note);
  EXPECT_THAT(f.message, HasSubstr("no libc10.so in /opt/venv"));
  EXPECT_THAT(f.fix, HasSubstr("--cxx11-abi TRUE|FALSE"));
}

// ---- the driver -----------------------------------------------------------

TEST(Diagnose, DriverTooOldForTheMajor) {
  Environment env = healthy();
  set_driver(env, "520.61.05", {11, 8});
  const auto f = only(env, "driver-too-old");
  EXPECT_EQ(f.severity, Severity::problem);
  EXPECT_THAT(f.message, AllOf(HasSubstr("CUDA 12.8"), HasSubstr("11.8"), HasSubstr("525.60.13")));
  // The nearest torch with a build this driver runs, pinned with its label.
  EXPECT_EQ(f.fix,
            "update the NVIDIA driver to 525.60.13 or newer, or install a torch the driver "
            "runs: (torch 2.7.1, CUDA 11.8) " +
                std::string(kPython) + " -m pip install torch==2.7.1+cu118 --index-url " + kIndex +
                "cu118");
}

// A pre-release torch (Debian's 1.13.0a0) is not on the CUDA indexes: its
// minor's release is named; under what-if flags the command is for the
// machine described, not this interpreter.
TEST(Diagnose, CpuTorchFixNamesABuildThatExists) {
  Environment env = healthy();
  set_torch(env, "1.13.0a0+gitunknown", std::nullopt);
  auto f = only(env, "cpu-only-torch");
  EXPECT_THAT(
      f.fix, HasSubstr("install torch==1.13.1+cu117 --index-url " + std::string(kIndex) + "cu117"));
  env.what_if.torch = *pkg::Version::parse("2.9.1+cpu");
  set_torch(env, "2.9.1+cpu", std::nullopt);
  f = only(env, "cpu-only-torch");
  EXPECT_EQ(f.fix,
            "(torch 2.9.1, CUDA 12.8) (on the machine described) python3 -m pip install "
            "torch==2.9.1+cu128 --index-url " +
                std::string(kIndex) + "cu128");
}

TEST(Diagnose, DriverTooOldFromItsVersionAlone) {
  Environment env = healthy();
  env.gpu.driver_version = Fact<std::string>::of("470.82.01", "/proc/driver/nvidia/version");
  env.gpu.driver_cuda = Fact<pkg::CudaVersion>::unknown("NVML failed");
  const auto f = only(env, "driver-too-old");
  EXPECT_THAT(f.message, AllOf(HasSubstr("12.8"), HasSubstr("470.82.01"), HasSubstr("525.60.13")));
  EXPECT_EQ(f.fix, "update the NVIDIA driver to 525.60.13 or newer");
}

TEST(Diagnose, DriverTooOldForCuda13) {
  Environment env = healthy();
  set_torch(env, "2.9.0+cu130", "13.0");
  set_nvcc(env, 13, 0, "13.0.88");
  const auto f = only(env, "driver-too-old");
  EXPECT_THAT(f.message, AllOf(HasSubstr("CUDA 13.0"), HasSubstr("12.8"), HasSubstr("580")));
  EXPECT_THAT(f.fix, AllOf(StartsWith("update the NVIDIA driver to 580 or newer"),
                           HasSubstr(std::string(kIndex) + "cu128")));
}

TEST(Diagnose, DriverOlderMinor) {
  Environment env = healthy();
  set_driver(env, "550.54.14", {12, 4});
  const auto f = only(env, "driver-older-minor");
  EXPECT_EQ(f.severity, Severity::warning);
  EXPECT_THAT(f.message, AllOf(HasSubstr("CUDA 12.8"), HasSubstr("12.4"), HasSubstr("PTX")));
  // The driver already meets CUDA 12's floor (525.60.13), so naming that floor
  // fixes nothing: the fix asks for a driver that supports CUDA 12.8.
  EXPECT_THAT(f.fix, Not(HasSubstr("525.60.13")));
  EXPECT_THAT(f.fix, AllOf(StartsWith("update the NVIDIA driver"), HasSubstr("CUDA 12.8")));
}

TEST(Diagnose, NoDriverMeansNoGpuNotAnOldDriver) {
  Environment env = healthy();
  env.gpu.presence = GpuPresence::no_driver;
  env.gpu.summary = "no NVIDIA driver";
  env.gpu.driver_version = Fact<std::string>::unknown("no driver");
  env.gpu.driver_cuda = Fact<pkg::CudaVersion>::unknown("no driver");
  env.gpu.gpus = Fact<std::vector<GpuDevice>>::of({}, "NVML");
  const auto f = only(env, "no-gpu");
  EXPECT_EQ(f.severity, Severity::warning);
  EXPECT_THAT(f.message, HasSubstr("no NVIDIA driver"));
}

// ---- GPUs -----------------------------------------------------------------

TEST(Diagnose, NoGpu) {
  Environment env = healthy();
  env.gpu.presence = GpuPresence::no_gpu;
  env.gpu.summary = "no NVIDIA GPU visible, driver 570.124.06";
  env.gpu.gpus = Fact<std::vector<GpuDevice>>::of({}, "NVML");
  const auto f = only(env, "no-gpu");
  EXPECT_EQ(f.severity, Severity::warning);
  EXPECT_THAT(f.message, HasSubstr("no NVIDIA GPU visible, driver 570.124.06"));
  EXPECT_THAT(f.fix, AllOf(HasSubstr("attn_implementation=\"sdpa\""), HasSubstr("--gpu X.Y"),
                           HasSubstr("flashfit fallback")));
}

TEST(Diagnose, GpuTooOldNamesTheGpuAndItsCapability) {
  Environment env = healthy();
  env.gpu.gpus = Fact<std::vector<GpuDevice>>::of(
      {gpu(0, "NVIDIA A100-SXM4-80GB", 8, 0), gpu(1, "Tesla T4", 7, 5)}, "NVML");
  const auto f = only(env, "gpu-too-old");
  EXPECT_EQ(f.severity, Severity::problem);
  EXPECT_THAT(f.message,
              AllOf(HasSubstr("GPU 1"), HasSubstr("Tesla T4"), HasSubstr("7.5"), HasSubstr("8.0")));
  EXPECT_THAT(f.fix,
              AllOf(HasSubstr("scaled_dot_product_attention"), HasSubstr("flashfit fallback")));
}

// torch 1.x has no scaled_dot_product_attention: the advice says so and
// names the plain-PyTorch path instead of a function that is not there.
TEST(Diagnose, NoGpuWithTorch1AdvisesNoSdpa) {
  Environment env = healthy();
  env.torch.version = Fact<pkg::Version>::of(*pkg::Version::parse("1.13.1+cpu"), "version.py");
  env.gpu.presence = GpuPresence::no_gpu;
  env.gpu.summary = "no NVIDIA GPU visible";
  env.gpu.gpus = Fact<std::vector<GpuDevice>>::of({}, "NVML");
  const auto f = only(env, "no-gpu");
  EXPECT_THAT(f.fix, AllOf(HasSubstr("torch 1.13.1 has no scaled_dot_product_attention"),
                           HasSubstr("flashfit fallback")));
  EXPECT_THAT(f.fix, Not(HasSubstr("attn_implementation")));
}

TEST(Diagnose, GpuTooOldOncePerOldGpu) {
  Environment env = healthy();
  env.gpu.gpus = Fact<std::vector<GpuDevice>>::of(
      {gpu(0, "Tesla V100", 7, 0), gpu(1, "Tesla T4", 7, 5), gpu(2, "NVIDIA H100", 9, 0)}, "NVML");
  EXPECT_EQ(ids(diagnose(env)), (std::vector<std::string>{"gpu-too-old", "gpu-too-old"}));
}

// ---- the toolkit ----------------------------------------------------------

TEST(Diagnose, NoNvcc) {
  Environment env = healthy();
  env.toolkit.nvcc = Fact<std::filesystem::path>::unknown(
      "not in $CUDA_HOME, $CUDA_PATH, PATH or /usr/local/cuda");
  env.toolkit.cuda_version = Fact<NvccVersion>::unknown("no nvcc");
  const auto f = only(env, "no-nvcc");
  EXPECT_EQ(f.severity, Severity::note);
  EXPECT_THAT(f.message, HasSubstr("not in $CUDA_HOME, $CUDA_PATH, PATH or /usr/local/cuda"));
  EXPECT_EQ(f.fix, "install the CUDA 12.x toolkit and set CUDA_HOME");
}

TEST(Diagnose, NvccMajorMismatch) {
  Environment env = healthy();
  set_nvcc(env, 13, 0, "13.0.88");
  const auto f = only(env, "nvcc-major-mismatch");
  EXPECT_EQ(f.severity, Severity::warning);
  EXPECT_THAT(f.message, AllOf(HasSubstr("CUDA 13.0.88"), HasSubstr("CUDA 12.8")));
  EXPECT_EQ(f.fix, "install the CUDA 12.x toolkit and point CUDA_HOME at it");
}

TEST(Diagnose, NvccMinorMismatch) {
  Environment env = healthy();
  set_nvcc(env, 12, 6, "12.6.85");
  const auto f = only(env, "nvcc-minor-mismatch");
  EXPECT_EQ(f.severity, Severity::note);
  EXPECT_THAT(f.message, AllOf(HasSubstr("CUDA 12.6.85"), HasSubstr("CUDA 12.8")));
  EXPECT_THAT(f.fix, IsEmpty()) << "torch only warns: nothing to do";
}

TEST(Diagnose, HostCompilerTooNew) {
  Environment env = healthy();
  env.toolkit.host_compiler_id = Fact<CompilerId>::of(
      CompilerId{CompilerKind::gcc, 15, 1, "15.1.0"}, "/usr/bin/g++ --version");
  env.toolkit.host_compiler_check =
      check_host_compiler(nvcc_host_compiler_limits(12, 8, 93), CompilerKind::gcc, 15, 1);
  ASSERT_EQ(env.toolkit.host_compiler_check.verdict, HostCompilerVerdict::too_new);
  const auto f = only(env, "host-compiler-too-new");
  EXPECT_EQ(f.severity, Severity::warning);
  EXPECT_THAT(f.message, AllOf(HasSubstr("14"), HasSubstr("15")));
  EXPECT_EQ(f.fix,
            "install g++-14 and set CUDAHOSTCXX=/usr/bin/g++-14 (and CC/CXX) for source builds");
}

// With clang as the host compiler the limit is clang's (19 for nvcc 12.8):
// "install g++-19" would name a GCC that does not exist.
TEST(Diagnose, HostCompilerTooNewClangSuggestsARealCompiler) {
  Environment env = healthy();
  env.toolkit.host_compiler = Fact<std::filesystem::path>::of("/usr/bin/clang++-20", "CXX");
  env.toolkit.host_compiler_id = Fact<CompilerId>::of(
      CompilerId{CompilerKind::clang, 20, 1, "20.1.8"}, "/usr/bin/clang++-20 --version");
  env.toolkit.host_compiler_max_major = Fact<int>::of(19, "nvcc 12.8.93 host_config.h limits");
  env.toolkit.host_compiler_check =
      check_host_compiler(nvcc_host_compiler_limits(12, 8, 93), CompilerKind::clang, 20, 1);
  ASSERT_EQ(env.toolkit.host_compiler_check.verdict, HostCompilerVerdict::too_new);
  const auto f = only(env, "host-compiler-too-new");
  EXPECT_THAT(f.message, AllOf(HasSubstr("clang"), HasSubstr("19"), HasSubstr("20")));
  EXPECT_THAT(f.fix, Not(HasSubstr("g++-19")));
  EXPECT_THAT(f.fix, HasSubstr("CUDAHOSTCXX=/usr/bin/g++-14"));
}

// nvcc 11.5 takes GCC 11 only below 11.2: g++-11 (11.4 on Ubuntu 22.04) is
// the compiler being rejected, so the fix names GCC 10.
TEST(Diagnose, HostCompilerTooNewBelowAMinorLimit) {
  Environment env = healthy();
  set_torch(env, "1.12.1+cu115", "11.5");
  set_nvcc(env, 11, 5, "11.5.119");
  env.toolkit.cuda_version.value->build = 119;
  env.toolkit.host_compiler_id = Fact<CompilerId>::of(
      CompilerId{CompilerKind::gcc, 11, 4, "11.4.0"}, "/usr/bin/g++ --version");
  env.toolkit.host_compiler_max_major = Fact<int>::of(11, "nvcc 11.5.119 host_config.h limits");
  env.toolkit.host_compiler_check =
      check_host_compiler(nvcc_host_compiler_limits(11, 5, 119), CompilerKind::gcc, 11, 4);
  ASSERT_EQ(env.toolkit.host_compiler_check.verdict, HostCompilerVerdict::too_new);
  const auto f = only(env, "host-compiler-too-new");
  EXPECT_THAT(f.message, AllOf(HasSubstr("11.2"), HasSubstr("11.4")));
  EXPECT_THAT(f.fix, HasSubstr("CUDAHOSTCXX=/usr/bin/g++-10"));
}

TEST(Diagnose, NoNinja) {
  Environment env = healthy();
  env.toolkit.ninja =
      Fact<std::filesystem::path>::unknown("neither ninja nor ninja-build is on PATH");
  env.toolkit.ninja_version = Fact<std::string>::unknown("no ninja");
  const auto f = only(env, "no-ninja");
  EXPECT_EQ(f.severity, Severity::warning);
  EXPECT_THAT(f.message, HasSubstr("ninja"));
  EXPECT_EQ(f.fix, std::string(kPython) + " -m pip install ninja, or apt-get install ninja-build");
}

// ---- the machine ----------------------------------------------------------

TEST(Diagnose, LowMemoryForBuild) {
  Environment env = healthy();
  env.machine.memory_available_bytes =
      Fact<std::uint64_t>::of(std::uint64_t{6} << 30, "cgroup v2 memory.max");
  const auto f = only(env, "low-memory-for-build");
  EXPECT_EQ(f.severity, Severity::warning);
  EXPECT_THAT(f.message, AllOf(HasSubstr("6144 MiB"), HasSubstr("5-8 GB")));
  EXPECT_THAT(f.fix, HasSubstr("prebuilt wheel"));

  env.machine.memory_available_bytes =
      Fact<std::uint64_t>::of(std::uint64_t{8} << 30, "/proc/meminfo");
  EXPECT_FALSE(has(env, "low-memory-for-build")) << "8 GiB is enough";
}

TEST(Diagnose, OldGlibc) {
  Environment env = healthy();
  env.machine.libc = Fact<LibcInfo>::of(LibcInfo{"glibc", "2.31"}, "gnu_get_libc_version");
  const auto f = only(env, "old-glibc");
  EXPECT_EQ(f.severity, Severity::warning);
  EXPECT_THAT(f.message,
              AllOf(HasSubstr("glibc 2.31"), HasSubstr("2.32"), HasSubstr("2.8.0.post1")));
  EXPECT_EQ(f.fix, "use flash-attn <= 2.7.4.post1 wheels or a source build");

  env.machine.libc = Fact<LibcInfo>::overridden_by(LibcInfo{"glibc", "2.32"}, "--glibc");
  EXPECT_FALSE(has(env, "old-glibc"));
  env.machine.libc = Fact<LibcInfo>::of(LibcInfo{"musl", "1.2"}, "ldd");
  EXPECT_FALSE(has(env, "old-glibc")) << "musl is not glibc";
}

// ---- several at once, in a stable order ------------------------------------

TEST(Diagnose, ABareMachineGetsEveryApplicableFindingInOrder) {
  Environment env = healthy();
  env.python.interpreter.value->has_pip = false;
  remove_torch(env);
  env.gpu.presence = GpuPresence::no_driver;
  env.gpu.summary = "no NVIDIA driver";
  env.gpu.driver_version = Fact<std::string>::unknown("no driver");
  env.gpu.driver_cuda = Fact<pkg::CudaVersion>::unknown("no driver");
  env.gpu.gpus = Fact<std::vector<GpuDevice>>::of({}, "NVML");
  env.toolkit.nvcc = Fact<std::filesystem::path>::unknown("not found");
  env.toolkit.cuda_version = Fact<NvccVersion>::unknown("no nvcc");
  env.toolkit.ninja = Fact<std::filesystem::path>::unknown("not on PATH");
  env.machine.memory_available_bytes =
      Fact<std::uint64_t>::of(std::uint64_t{2} << 30, "/proc/meminfo");
  env.machine.libc = Fact<LibcInfo>::of(LibcInfo{"glibc", "2.28"}, "gnu_get_libc_version");
  EXPECT_EQ(ids(diagnose(env)),
            (std::vector<std::string>{"no-installer", "no-torch", "no-gpu", "no-nvcc", "no-ninja",
                                      "low-memory-for-build", "old-glibc"}));
}

TEST(Diagnose, SeverityNames) {
  EXPECT_EQ(to_string(Severity::problem), "problem");
  EXPECT_EQ(to_string(Severity::warning), "warning");
  EXPECT_EQ(to_string(Severity::note), "note");
}

// ---- torch_index_for_driver ------------------------------------------------

std::string index_for(std::optional<pkg::CudaVersion> cuda) {
  return torch_index_for_driver(cuda).value_or("nullopt");
}

TEST(TorchIndexForDriver, TheNewestIndexNotNewerThanTheDriversCuda) {
  EXPECT_EQ(index_for(pkg::CudaVersion{12, 8}), std::string(kIndex) + "cu128");
  EXPECT_EQ(index_for(pkg::CudaVersion{12, 9}), std::string(kIndex) + "cu129");
  EXPECT_EQ(index_for(pkg::CudaVersion{13, 0}), std::string(kIndex) + "cu130");
  EXPECT_EQ(index_for(pkg::CudaVersion{13, 1}), std::string(kIndex) + "cu130");
  EXPECT_EQ(index_for(pkg::CudaVersion{12, 7}), std::string(kIndex) + "cu126");
  EXPECT_EQ(index_for(pkg::CudaVersion{12, 4}), std::string(kIndex) + "cu124");
  EXPECT_EQ(index_for(pkg::CudaVersion{12, 2}), std::string(kIndex) + "cu121");
}

// A driver for CUDA 12.0 (525.60.13) has no 12.x index at or below 12.0, but
// it fully supports every 11.x: cu118 is the newest torch it runs without
// relying on minor-version compatibility.
TEST(TorchIndexForDriver, ACuda120DriverGetsCu118) {
  EXPECT_EQ(index_for(pkg::CudaVersion{12, 0}), std::string(kIndex) + "cu118");
  EXPECT_EQ(index_for(pkg::CudaVersion{11, 8}), std::string(kIndex) + "cu118");
}

// Only indexes the driver fully supports are offered: an 11.4 driver would
// run cu118 only through minor-version compatibility (with PTX that cannot
// JIT), so there is no index to name.
TEST(TorchIndexForDriver, OlderThanEveryIndexOrUnknownIsNullopt) {
  EXPECT_EQ(index_for(pkg::CudaVersion{11, 4}), "nullopt");
  EXPECT_EQ(index_for(pkg::CudaVersion{10, 2}), "nullopt");
  EXPECT_EQ(index_for(std::nullopt), "nullopt");
}

// "CUDA 12.x" (the minor unknown) is read as 12.0, the oldest it could be.
TEST(TorchIndexForDriver, AnUnknownMinorIsTheOldestOfTheMajor) {
  EXPECT_EQ(index_for(pkg::CudaVersion{12, std::nullopt}), std::string(kIndex) + "cu118");
  EXPECT_EQ(index_for(pkg::CudaVersion{13, std::nullopt}), std::string(kIndex) + "cu130");
}

}  // namespace
}  // namespace flashfit::env
