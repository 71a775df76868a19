#include "env/environment.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "env/driver_compat.hpp"
#include "pkg/tags.hpp"
#include "sample_environment.hpp"

namespace flashfit::env {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// ---- a machine built by hand -----------------------------------------------

pkg::InterpreterTagFacts cpython311_tag_facts() {
  pkg::InterpreterTagFacts facts;
  facts.implementation = "cpython";
  facts.python_major = 3;
  facts.python_minor = 11;
  facts.py_version_nodot = "311";
  facts.py_debug = false;
  facts.with_pymalloc = true;
  facts.soabi = "cpython-311-x86_64-linux-gnu";
  facts.system = "Linux";
  facts.platform = "linux-x86_64";
  facts.glibc = pkg::LibcVersion{2, 36};
  return facts;
}

// Debian 12's /usr/bin/python3 as the probe would report it.
Interpreter debian_python() {
  Interpreter i;
  i.choice = {"/usr/bin/python3", "--python"};
  i.executable = "/usr/bin/python3";
  i.realpath = "/usr/bin/python3.11";
  i.implementation = "cpython";
  i.major = 3;
  i.minor = 11;
  i.micro = 2;
  i.release_level = "final";
  i.soabi = "cpython-311-x86_64-linux-gnu";
  i.ext_suffix = ".cpython-311-x86_64-linux-gnu.so";
  i.prefix = i.base_prefix = "/usr";
  i.site_dirs = {"/usr/local/lib/python3.11/dist-packages", "/usr/lib/python3/dist-packages"};
  i.has_pip = true;
  i.tag_facts = cpython311_tag_facts();
  return i;
}

// A fully probed-looking environment: no what-if anywhere, every source a probe's.
Environment probed() {
  Environment env;
  env.machine = sample::debian_machine();

  env.python.interpreter = Fact<Interpreter>::of(debian_python(), "--python");
  env.python.version = Fact<MajorMinor>::of(MajorMinor{3, 11}, "--python");
  env.python.uv = Fact<std::filesystem::path>::unknown("uv is not on PATH");

  const std::string site = "/usr/lib/python3/dist-packages";
  env.torch = sample::cuda_torch(site);
  env.torch.pybind11_internals_id = Fact<std::string>::unknown("no libtorch_python.so");
  env.torch.cuda_runtime_packages =
      Fact<std::vector<CudaRuntimePackage>>::of({}, "torch dist-info METADATA");

  env.gpu.presence = GpuPresence::no_driver;
  env.gpu.summary = "no NVIDIA driver";
  env.gpu.driver_version = Fact<std::string>::unknown("no driver", "NVML");
  env.gpu.driver_cuda = Fact<pkg::CudaVersion>::unknown("no driver", "NVML");
  env.gpu.gpus = Fact<std::vector<GpuDevice>>::of({}, "NVML");

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

// ---- a fingerprint of every fact, to see exactly what an override touched --

template <class T, class Show>
std::string fp(const Fact<T>& f, Show show) {
  std::string text = f.known() ? "=" + show(*f.value) : "?" + f.unknown_reason;
  return text + " | " + f.source + (f.overridden ? " | overridden" : "");
}
template <class T>
std::string fp(const Fact<T>& f) {
  return fp(f, [](const T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      return v;
    } else if constexpr (std::is_same_v<T, std::filesystem::path>) {
      return v.string();
    } else {
      return std::to_string(v);
    }
  });
}

std::string build_str(const ToolkitBuild& b) {
  return b.none() ? std::string("None") : *b.version;
}

std::map<std::string, std::string> fingerprint(const Environment& e) {
  std::map<std::string, std::string> m;
  m["machine.os"] = fp(e.machine.os);
  m["machine.kernel"] = fp(e.machine.kernel);
  m["machine.arch"] = fp(e.machine.arch);
  m["machine.libc"] =
      fp(e.machine.libc, [](const LibcInfo& l) { return l.name + " " + l.version; });
  m["machine.cpu_count"] = fp(e.machine.cpu_count);
  m["machine.memory_total"] = fp(e.machine.memory_total_bytes);
  m["machine.memory_available"] = fp(e.machine.memory_available_bytes);
  m["python.interpreter"] = fp(e.python.interpreter, [](const Interpreter& i) {
    return i.executable + " " + i.version_str() + " " + i.tag_facts.platform;
  });
  m["python.version"] = fp(e.python.version, [](const MajorMinor& v) { return v.str(); });
  m["python.uv"] = fp(e.python.uv);
  m["torch.package_dir"] = fp(e.torch.package_dir);
  m["torch.version_text"] = fp(e.torch.version_text);
  m["torch.version"] = fp(e.torch.version, [](const pkg::Version& v) { return v.str(); });
  m["torch.cuda"] = fp(e.torch.cuda, build_str);
  m["torch.hip"] = fp(e.torch.hip, build_str);
  m["torch.library_dir"] = fp(e.torch.library_dir);
  m["torch.cxx11_abi"] = fp(e.torch.cxx11_abi);
  m["torch.pybind11_internals_id"] = fp(e.torch.pybind11_internals_id);
  m["torch.cuda_runtime_packages"] =
      fp(e.torch.cuda_runtime_packages, [](const auto& ps) { return std::to_string(ps.size()); });
  m["gpu.presence"] = std::string(to_string(e.gpu.presence));
  m["gpu.summary"] = e.gpu.summary;
  m["gpu.driver_version"] = fp(e.gpu.driver_version);
  m["gpu.driver_cuda"] = fp(e.gpu.driver_cuda, [](const pkg::CudaVersion& c) { return c.str(); });
  m["gpu.gpus"] = fp(e.gpu.gpus, [](const std::vector<GpuDevice>& ds) {
    std::string text;
    for (const auto& d : ds) {
      text += std::to_string(d.index) + ":" + fp(d.name) + ":" +
              fp(d.capability, [](const ComputeCapability& c) { return c.str(); }) + ";";
    }
    return text;
  });
  m["toolkit.nvcc"] = fp(e.toolkit.nvcc);
  m["toolkit.cuda_version"] =
      fp(e.toolkit.cuda_version, [](const NvccVersion& v) { return v.text; });
  m["toolkit.host_compiler"] = fp(e.toolkit.host_compiler);
  m["toolkit.host_compiler_id"] =
      fp(e.toolkit.host_compiler_id, [](const CompilerId& c) { return c.version; });
  m["toolkit.host_compiler_max_major"] = fp(e.toolkit.host_compiler_max_major);
  m["toolkit.host_compiler_check"] = std::string(to_string(e.toolkit.host_compiler_check.verdict)) +
                                     " " + e.toolkit.host_compiler_check.reason;
  m["toolkit.ninja"] = fp(e.toolkit.ninja);
  m["toolkit.ninja_version"] = fp(e.toolkit.ninja_version);
  return m;
}

std::set<std::string> changed_facts(const Environment& before, const Environment& after) {
  const auto a = fingerprint(before);
  const auto b = fingerprint(after);
  std::set<std::string> out;
  for (const auto& [key, value] : a) {
    if (b.at(key) != value) out.insert(key);
  }
  return out;
}

WhatIf parse_ok(const WhatIfOptions& options) {
  auto w = parse_what_if(options);
  EXPECT_TRUE(w) << (w ? "" : w.error().message);
  return w ? *w : WhatIf{};
}

// Applies the overrides to a copy of probed() and returns it.
Environment with(const WhatIfOptions& options) {
  Environment env = probed();
  apply_what_if(env, parse_ok(options));
  return env;
}

using Keys = std::set<std::string>;

// ---- apply_what_if -----------------------------------------------------------

TEST(ApplyWhatIf, NoOverridesChangeNothing) {
  const Environment env = with({});
  EXPECT_THAT(changed_facts(probed(), env), IsEmpty());
  EXPECT_FALSE(env.what_if.any());
}

TEST(ApplyWhatIf, PythonVersionReplacesOnlyTheVersion) {
  WhatIfOptions o;
  o.python_version = "3.12";
  const Environment env = with(o);
  EXPECT_EQ(changed_facts(probed(), env), (Keys{"python.version"}));
  ASSERT_TRUE(env.python.version.known());
  EXPECT_EQ(env.python.version->str(), "3.12");
  EXPECT_EQ(env.python.version.source, "--python-version");
  EXPECT_TRUE(env.python.version.overridden);
  // The interpreter itself is still the probed 3.11 one.
  EXPECT_EQ(env.python.interpreter->minor, 11);
  EXPECT_FALSE(env.python.interpreter.overridden);
}

TEST(ApplyWhatIf, TorchLabelImpliesItsCudaWithTorchAsTheSource) {
  WhatIfOptions o;
  o.torch = "2.9.1+cu130";
  const Environment env = with(o);
  // A what-if torch is not the installed one: every fact read from the
  // installed torch's files is replaced.
  EXPECT_EQ(changed_facts(probed(), env),
            (Keys{"torch.cuda", "torch.cuda_runtime_packages", "torch.cxx11_abi", "torch.hip",
                  "torch.library_dir", "torch.package_dir", "torch.pybind11_internals_id",
                  "torch.version", "torch.version_text"}));
  EXPECT_EQ(env.torch.version->str(), "2.9.1+cu130");
  EXPECT_EQ(env.torch.version.source, "--torch");
  EXPECT_TRUE(env.torch.version.overridden);
  EXPECT_EQ(*env.torch.version_text, "2.9.1+cu130");
  EXPECT_EQ(env.torch.version_text.source, "--torch");
  EXPECT_TRUE(env.torch.version_text.overridden);
  ASSERT_TRUE(env.torch.cuda.known());
  EXPECT_EQ(env.torch.cuda->version, "13.0");
  EXPECT_EQ(env.torch.cuda.source, "--torch");
  EXPECT_TRUE(env.torch.cuda.overridden);
  // The installed torch's ABI and files do not describe the what-if one.
  EXPECT_FALSE(env.torch.cxx11_abi.known());
  EXPECT_NE(env.torch.cxx11_abi.unknown_reason.find("--cxx11-abi"), std::string::npos);
  EXPECT_FALSE(env.torch.library_dir.known());
  EXPECT_FALSE(env.torch.pybind11_internals_id.known());
  ASSERT_TRUE(env.torch.hip.known());
  EXPECT_TRUE(env.torch.hip->none());
}

TEST(ApplyWhatIf, TorchCpuLabelMeansNoCuda) {
  WhatIfOptions o;
  o.torch = "2.8.0+cpu";
  const Environment env = with(o);
  ASSERT_TRUE(env.torch.cuda.known());
  EXPECT_TRUE(env.torch.cuda->none());
  EXPECT_EQ(env.torch.cuda.source, "--torch");
  EXPECT_TRUE(env.torch.cuda.overridden);
}

TEST(ApplyWhatIf, TorchWithoutALabelHasAnUnknownCudaThatSaysHowToGiveIt) {
  WhatIfOptions o;
  o.torch = "2.9.1";
  const Environment env = with(o);
  EXPECT_FALSE(env.torch.cuda.known()) << "the installed torch's CUDA is not the what-if torch's";
  EXPECT_NE(env.torch.cuda.unknown_reason.find("--cuda"), std::string::npos);
}

TEST(ApplyWhatIf, ExplicitCudaIsSourcedToTheCudaFlag) {
  WhatIfOptions o;
  o.torch = "2.8.0+cu128";
  o.cuda = "12.6";
  Environment env = with(o);
  EXPECT_EQ(env.torch.cuda->version, "12.6") << "--cuda wins over the label";
  EXPECT_EQ(env.torch.cuda.source, "--cuda");
  EXPECT_TRUE(env.torch.cuda.overridden);

  o = {};
  o.cuda = "none";
  env = with(o);
  EXPECT_EQ(changed_facts(probed(), env), (Keys{"torch.cuda"}));
  EXPECT_TRUE(env.torch.cuda->none());
  EXPECT_EQ(env.torch.cuda.source, "--cuda");
  EXPECT_TRUE(env.torch.cuda.overridden);
}

TEST(ApplyWhatIf, CxxAbiReplacesOnlyTheAbi) {
  WhatIfOptions o;
  o.cxx11_abi = "FALSE";
  const Environment env = with(o);
  EXPECT_EQ(changed_facts(probed(), env), (Keys{"torch.cxx11_abi"}));
  EXPECT_EQ(env.torch.cxx11_abi.value, false);
  EXPECT_EQ(env.torch.cxx11_abi.source, "--cxx11-abi");
  EXPECT_TRUE(env.torch.cxx11_abi.overridden);
}

TEST(ApplyWhatIf, DriverSetsItsCudaAndLeavesTheGpusUnknown) {
  WhatIfOptions o;
  o.driver = "570.124.06";
  const Environment env = with(o);
  EXPECT_EQ(changed_facts(probed(), env), (Keys{"gpu.driver_cuda", "gpu.driver_version", "gpu.gpus",
                                                "gpu.presence", "gpu.summary"}));
  EXPECT_EQ(env.gpu.summary, "driver 570.124.06 (--driver), GPUs not given (--gpu X.Y)");
  // A machine with a driver was described, its GPUs were not: unknown, not "none".
  EXPECT_FALSE(env.gpu.gpus.known());
  EXPECT_NE(env.gpu.gpus.unknown_reason.find("pass --gpu X.Y"), std::string::npos);
  EXPECT_EQ(*env.gpu.driver_version, "570.124.06");
  EXPECT_EQ(env.gpu.driver_version.source, "--driver");
  EXPECT_TRUE(env.gpu.driver_version.overridden);
  ASSERT_TRUE(env.gpu.driver_cuda.known());
  EXPECT_EQ(env.gpu.driver_cuda->str(), "12.8");
  EXPECT_EQ(env.gpu.driver_cuda.source, "--driver");
  EXPECT_TRUE(env.gpu.driver_cuda.overridden);
  EXPECT_EQ(env.gpu.presence, GpuPresence::unknown);
}

TEST(ApplyWhatIf, DriverKeepsFoundGpus) {
  Environment env = probed();
  env.gpu.presence = GpuPresence::gpus_found;
  GpuDevice device;
  device.name = Fact<std::string>::of("NVIDIA A100-SXM4-80GB", "NVML");
  device.capability = Fact<ComputeCapability>::of(ComputeCapability{8, 0}, "NVML");
  env.gpu.gpus = Fact<std::vector<GpuDevice>>::of({device}, "NVML");
  const Environment before = env;
  WhatIfOptions o;
  o.driver = "575.57.08";
  apply_what_if(env, parse_ok(o));
  EXPECT_EQ(env.gpu.presence, GpuPresence::gpus_found);
  EXPECT_EQ(changed_facts(before, env), (Keys{"gpu.driver_version", "gpu.driver_cuda"}));
  EXPECT_EQ(env.gpu.driver_cuda->str(), "12.9");
}

TEST(ApplyWhatIf, DriverOlderThanEveryCudaLeavesItsCudaUnknownWithAReason) {
  WhatIfOptions o;
  o.driver = "440.33";
  const Environment env = with(o);
  EXPECT_EQ(*env.gpu.driver_version, "440.33");
  EXPECT_FALSE(env.gpu.driver_cuda.known());
  EXPECT_THAT(env.gpu.driver_cuda.unknown_reason, HasSubstr("440.33"));
  EXPECT_EQ(env.gpu.driver_cuda.source, "--driver");
}

TEST(ApplyWhatIf, GpuNoneMeansNoGpuAndAKnownEmptyList) {
  WhatIfOptions o;
  o.gpu = "none";
  const Environment env = with(o);
  EXPECT_EQ(changed_facts(probed(), env), (Keys{"gpu.presence", "gpu.summary", "gpu.gpus"}));
  EXPECT_EQ(env.gpu.presence, GpuPresence::no_gpu);
  ASSERT_TRUE(env.gpu.gpus.known());
  EXPECT_THAT(*env.gpu.gpus, IsEmpty());
  EXPECT_EQ(env.gpu.gpus.source, "--gpu");
  EXPECT_TRUE(env.gpu.gpus.overridden);
  EXPECT_THAT(env.gpu.summary, HasSubstr("--gpu none"));
}

TEST(ApplyWhatIf, GpuListMakesOneDevicePerCapability) {
  WhatIfOptions o;
  o.gpu = "8.0,8.9";
  const Environment env = with(o);
  EXPECT_EQ(changed_facts(probed(), env), (Keys{"gpu.presence", "gpu.summary", "gpu.gpus"}));
  EXPECT_EQ(env.gpu.presence, GpuPresence::gpus_found);
  ASSERT_TRUE(env.gpu.gpus.known());
  EXPECT_EQ(env.gpu.gpus.source, "--gpu");
  EXPECT_TRUE(env.gpu.gpus.overridden);
  ASSERT_EQ(env.gpu.gpus->size(), 2u);
  const auto& gpus = *env.gpu.gpus;
  EXPECT_EQ(gpus[0].index, 0u);
  EXPECT_EQ(gpus[1].index, 1u);
  EXPECT_EQ(gpus[0].capability->str(), "8.0");
  EXPECT_EQ(gpus[1].capability->str(), "8.9");
  for (const auto& gpu : gpus) {
    EXPECT_TRUE(gpu.capability.overridden);
    EXPECT_EQ(gpu.capability.source, "--gpu");
    EXPECT_FALSE(gpu.total_memory.known()) << "--gpu says nothing about memory";
  }
  EXPECT_THAT(env.gpu.summary, HasSubstr("2"));
  // The driver is not invented.
  EXPECT_FALSE(env.gpu.driver_version.known());
}

TEST(ApplyWhatIf, GlibcAndArchReplaceTheMachineFacts) {
  WhatIfOptions o;
  o.glibc = "2.28";
  o.arch = "aarch64";
  const Environment env = with(o);
  EXPECT_EQ(changed_facts(probed(), env), (Keys{"machine.libc", "machine.arch"}));
  EXPECT_EQ(env.machine.libc->name, "glibc");
  EXPECT_EQ(env.machine.libc->version, "2.28");
  EXPECT_EQ(env.machine.libc.source, "--glibc");
  EXPECT_TRUE(env.machine.libc.overridden);
  EXPECT_EQ(*env.machine.arch, "aarch64");
  EXPECT_EQ(env.machine.arch.source, "--arch");
  EXPECT_TRUE(env.machine.arch.overridden);
}

TEST(ApplyWhatIf, RemembersTheFlagsForReports) {
  WhatIfOptions o;
  o.torch = "2.8.0+cu128";
  o.gpu = "9.0";
  const Environment env = with(o);
  EXPECT_TRUE(env.what_if.any());
  EXPECT_THAT(env.what_if.describe(), ElementsAre("--torch 2.8.0+cu128", "--gpu 9.0"))
      << "a CUDA implied by the --torch label is not a flag the user gave";
}

TEST(ApplyWhatIf, EveryFlagAtOnceTouchesOnlyTheirFacts) {
  WhatIfOptions o;
  o.python_version = "3.12";
  o.torch = "2.8.0+cu128";
  o.cxx11_abi = "TRUE";
  o.gpu = "9.0";
  o.driver = "580.65.06";
  o.glibc = "2.31";
  o.arch = "x86_64";
  const Environment env = with(o);
  const Keys untouched_expected = {"machine.os",
                                   "machine.kernel",
                                   "machine.cpu_count",
                                   "machine.memory_total",
                                   "machine.memory_available",
                                   "python.interpreter",
                                   "python.uv",
                                   "toolkit.nvcc",
                                   "toolkit.cuda_version",
                                   "toolkit.host_compiler",
                                   "toolkit.host_compiler_id",
                                   "toolkit.host_compiler_max_major",
                                   "toolkit.host_compiler_check",
                                   "toolkit.ninja",
                                   "toolkit.ninja_version"};
  const auto changed = changed_facts(probed(), env);
  for (const auto& key : untouched_expected) EXPECT_EQ(changed.count(key), 0u) << key;
  // An override equal to the probed value still says where it came from.
  EXPECT_TRUE(changed.count("machine.arch")) << "--arch x86_64 is marked overridden";
  EXPECT_TRUE(changed.count("torch.cuda")) << "same 12.8, but now from --torch";
}

// ---- cuda_supported_by_driver ---------------------------------------------

std::string cuda_for(const std::string& driver) {
  const auto cuda = cuda_supported_by_driver(driver);
  return cuda ? cuda->str() : std::string("nullopt");
}

TEST(CudaSupportedByDriver, TheFirstDriverOfEachReleaseAndItsUpdates) {
  EXPECT_EQ(cuda_for("580.65.06"), "13.0");
  EXPECT_EQ(cuda_for("580.95.05"), "13.0");
  EXPECT_EQ(cuda_for("575.57.08"), "12.9");
  EXPECT_EQ(cuda_for("575.51.03"), "12.9");
  EXPECT_EQ(cuda_for("570.124.06"), "12.8");
  EXPECT_EQ(cuda_for("570.26"), "12.8");
  EXPECT_EQ(cuda_for("569.99"), "12.6") << "there is no CUDA 12.7";
  EXPECT_EQ(cuda_for("560.28.03"), "12.6");
  EXPECT_EQ(cuda_for("550.54.14"), "12.4");
  EXPECT_EQ(cuda_for("525.60.13"), "12.0");
  EXPECT_EQ(cuda_for("525.60.12"), "11.8");
  EXPECT_EQ(cuda_for("520.61.05"), "11.8");
  EXPECT_EQ(cuda_for("450.80.02"), "11.0");
}

// 470.82.01 is an R470 driver: CUDA 11.4 shipped with 470.42.01, and nvidia-smi
// on 470.82.01 prints "CUDA Version: 11.4". The table lists the 11.1-11.7
// releases, so the answer is 11.4, not 11.0.
TEST(CudaSupportedByDriver, R470DriversSupportCuda114) {
  EXPECT_EQ(cuda_for("470.82.01"), "11.4");
  EXPECT_EQ(cuda_for("470.42.01"), "11.4");
}

TEST(CudaSupportedByDriver, NewerThanTheTableIsTheNewestKnown) {
  EXPECT_EQ(cuda_for("999.1"), "13.0");
}

TEST(CudaSupportedByDriver, TooOldOrGarbledIsNullopt) {
  EXPECT_EQ(cuda_for("440.1"), "nullopt");
  EXPECT_EQ(cuda_for("450.80.01"), "nullopt");
  EXPECT_EQ(cuda_for("garbage"), "nullopt");
  EXPECT_EQ(cuda_for(""), "nullopt");
  EXPECT_EQ(cuda_for("570.124.06x"), "nullopt");
  EXPECT_EQ(cuda_for("570..06"), "nullopt");
  EXPECT_EQ(cuda_for("-570.1"), "nullopt");
}

// ---- Environment::tag_facts ------------------------------------------------

std::vector<std::string> tag_strings(const pkg::InterpreterTagFacts& facts) {
  std::vector<std::string> out;
  for (const auto& tag : pkg::supported_tags(facts)) out.push_back(tag.str());
  return out;
}

bool contains_substring(const std::vector<std::string>& tags, const std::string& part) {
  for (const auto& t : tags) {
    if (t.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(TagFacts, TheInterpretersOwnFacts) {
  const Environment env = probed();
  const auto facts = env.tag_facts();
  ASSERT_TRUE(facts);
  const auto tags = tag_strings(*facts);
  ASSERT_EQ(tags.size(), 914u);
  EXPECT_EQ(tags.front(), "cp311-cp311-manylinux_2_36_x86_64");
  EXPECT_EQ(tags.back(), "py30-none-any");
}

TEST(TagFacts, PythonVersionOverridesTheInterpreters) {
  WhatIfOptions o;
  o.python_version = "3.12";
  const Environment env = with(o);
  const auto facts = env.tag_facts();
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->python_major, 3);
  EXPECT_EQ(facts->python_minor, 12);
  EXPECT_EQ(facts->py_version_nodot, "312");
  const auto tags = tag_strings(*facts);
  EXPECT_EQ(tags.front(), "cp312-cp312-manylinux_2_36_x86_64");
  EXPECT_FALSE(contains_substring(tags, "cp311-cp311")) << "no tag of the probed 3.11 remains";
}

TEST(TagFacts, WithoutAnInterpreterACpythonOfTheGivenVersionOnThisMachine) {
  Environment env = probed();
  env.python.interpreter = Fact<Interpreter>::unknown("no executable interpreter at '/x'");
  env.python.version = Fact<MajorMinor>::unknown("no interpreter");
  env.machine.libc = Fact<LibcInfo>::of(LibcInfo{"glibc", "2.31"}, "gnu_get_libc_version");
  env.machine.arch = Fact<std::string>::of("x86_64", "uname");
  WhatIfOptions o;
  o.python_version = "3.12";
  apply_what_if(env, parse_ok(o));
  const auto facts = env.tag_facts();
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->implementation, "cpython");
  EXPECT_EQ(facts->py_version_nodot, "312");
  EXPECT_EQ(facts->platform, "linux-x86_64");
  ASSERT_TRUE(facts->glibc);
  EXPECT_EQ(*facts->glibc, (pkg::LibcVersion{2, 31}));
  const auto tags = tag_strings(*facts);
  ASSERT_FALSE(tags.empty());
  EXPECT_EQ(tags.front(), "cp312-cp312-manylinux_2_31_x86_64");
  EXPECT_TRUE(contains_substring(tags, "cp312-abi3-manylinux_2_31_x86_64"));
  EXPECT_FALSE(contains_substring(tags, "manylinux_2_32"))
      << "nothing newer than the machine's glibc";
  EXPECT_EQ(tags.back(), "py30-none-any");
}

TEST(TagFacts, GlibcAndArchOverridesMoveThePlatform) {
  WhatIfOptions o;
  o.glibc = "2.28";
  o.arch = "aarch64";
  const Environment env = with(o);
  const auto facts = env.tag_facts();
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->platform, "linux-aarch64");
  const auto tags = tag_strings(*facts);
  ASSERT_FALSE(tags.empty());
  EXPECT_EQ(tags.front(), "cp311-cp311-manylinux_2_28_aarch64");
  EXPECT_TRUE(contains_substring(tags, "manylinux2014_aarch64"));
  EXPECT_FALSE(contains_substring(tags, "manylinux1")) << "manylinux1 is x86 only";
  EXPECT_FALSE(contains_substring(tags, "x86_64"));
  EXPECT_FALSE(contains_substring(tags, "manylinux_2_29")) << "glibc 2.28 is the ceiling";
}

TEST(TagFacts, GlibcOverrideWithoutAnInterpreter) {
  Environment env = probed();
  env.python.interpreter = Fact<Interpreter>::unknown("none");
  env.python.version = Fact<MajorMinor>::unknown("no interpreter");
  WhatIfOptions o;
  o.python_version = "3.10";
  o.glibc = "2.17";
  o.arch = "aarch64";
  apply_what_if(env, parse_ok(o));
  const auto facts = env.tag_facts();
  ASSERT_TRUE(facts);
  const auto tags = tag_strings(*facts);
  ASSERT_FALSE(tags.empty());
  EXPECT_EQ(tags.front(), "cp310-cp310-manylinux_2_17_aarch64");
}

TEST(TagFacts, NothingKnownIsNullopt) {
  Environment env;
  env.python.interpreter = Fact<Interpreter>::unknown("no executable interpreter at '/x'");
  env.python.version = Fact<MajorMinor>::unknown("no interpreter");
  EXPECT_FALSE(env.tag_facts());
  EXPECT_FALSE(Environment{}.tag_facts());
  // Machine facts alone do not make an interpreter.
  env.machine.libc = Fact<LibcInfo>::of(LibcInfo{"glibc", "2.36"}, "gnu_get_libc_version");
  WhatIfOptions o;
  o.glibc = "2.31";
  o.arch = "aarch64";
  apply_what_if(env, parse_ok(o));
  EXPECT_FALSE(env.tag_facts());
}

// ---- probe_environment on this machine -------------------------------------

// The GPU part is pinned to libraries that exist nowhere and a /proc without
// the NVIDIA module, so the answer does not depend on the machine running the
// test; everything else is really probed.
ProbeOptions this_machine(const std::string& python) {
  ProbeOptions options;
  options.python_option = python;
  options.path_env = "/usr/local/bin:/usr/bin:/bin";
  options.gpu.root = std::filesystem::temp_directory_path() / "flashfit-no-such-root";
  options.gpu.nvml_library = "libflashfit-absent-nvml.so.1";
  options.gpu.cuda_library = "libflashfit-absent-cuda.so.1";
  return options;
}

TEST(ProbeEnvironment, DebianPythonWithItsTorch) {
  if (!std::filesystem::exists("/usr/bin/python3") ||
      !std::filesystem::exists("/usr/lib/python3/dist-packages/torch/version.py")) {
    GTEST_SKIP() << "no Debian python3-torch here";
  }
  const Environment env = probe_environment(this_machine("/usr/bin/python3"));
  ASSERT_TRUE(env.python.interpreter.known()) << env.python.interpreter.unknown_reason;
  EXPECT_EQ(env.python.interpreter->executable, "/usr/bin/python3");
  EXPECT_EQ(env.python.interpreter->implementation, "cpython");
  EXPECT_EQ(env.python.interpreter.source, "--python");
  EXPECT_FALSE(env.python.interpreter->from_cache) << "no cache root was given";
  ASSERT_TRUE(env.python.version.known());
  EXPECT_EQ(env.python.version->major, env.python.interpreter->major);
  EXPECT_EQ(env.python.version->minor, env.python.interpreter->minor);
  EXPECT_FALSE(env.python.version.overridden);

  ASSERT_TRUE(env.torch.installed()) << env.torch.package_dir.unknown_reason;
  EXPECT_EQ(env.torch.package_dir->string(), "/usr/lib/python3/dist-packages/torch");
  ASSERT_TRUE(env.torch.version_text.known());
  EXPECT_THAT(*env.torch.version_text, HasSubstr("1.13"));
  EXPECT_TRUE(env.torch.cxx11_abi.known()) << env.torch.cxx11_abi.unknown_reason;

  EXPECT_EQ(env.gpu.presence, GpuPresence::no_driver) << env.gpu.summary;
  ASSERT_TRUE(env.gpu.gpus.known());
  EXPECT_THAT(*env.gpu.gpus, IsEmpty());

  if (std::filesystem::exists("/usr/local/cuda/bin/nvcc")) {
    ASSERT_TRUE(env.toolkit.nvcc.known()) << env.toolkit.nvcc.unknown_reason;
    EXPECT_TRUE(env.toolkit.cuda_version.known()) << env.toolkit.cuda_version.unknown_reason;
  }
  EXPECT_TRUE(env.machine.arch.known());
  EXPECT_TRUE(env.machine.libc.known());
  EXPECT_FALSE(env.what_if.any());
  ASSERT_TRUE(env.tag_facts());
}

// A what-if torch replaces every fact of the installed one, so its files are
// not read: the answer is the same as probing them and then applying the what-if.
TEST(ProbeEnvironment, WhatIfTorchGivesWhatApplyingItToTheProbedTorchGives) {
  if (!std::filesystem::exists("/usr/lib/python3/dist-packages/torch/version.py")) {
    GTEST_SKIP() << "no Debian python3-torch here";
  }
  WhatIfOptions o;
  o.torch = "2.9.1+cu128";
  ProbeOptions options = this_machine("/usr/bin/python3");
  options.what_if = parse_ok(o);
  const Environment direct = probe_environment(options);
  Environment probed = probe_environment(this_machine("/usr/bin/python3"));
  ASSERT_TRUE(probed.torch.installed()) << "the installed torch is read without a what-if";
  apply_what_if(probed, options.what_if);
  const TorchFacts& a = direct.torch;
  const TorchFacts& b = probed.torch;
  EXPECT_EQ(a.installed(), b.installed());
  EXPECT_EQ(a.package_dir.unknown_reason, b.package_dir.unknown_reason);
  ASSERT_TRUE(a.version.known() && b.version.known());
  EXPECT_EQ(a.version->str(), b.version->str());
  EXPECT_EQ(a.version.source, b.version.source);
  EXPECT_EQ(*a.version_text, *b.version_text);
  ASSERT_TRUE(a.cuda.known() && b.cuda.known());
  EXPECT_EQ(a.cuda->version, b.cuda->version);
  EXPECT_EQ(a.cuda.source, b.cuda.source);
  EXPECT_EQ(a.cxx11_abi.known(), b.cxx11_abi.known());
  EXPECT_EQ(a.cxx11_abi.unknown_reason, b.cxx11_abi.unknown_reason);
  EXPECT_EQ(a.hip.source, b.hip.source);
  EXPECT_EQ(a.library_dir.unknown_reason, b.library_dir.unknown_reason);
  EXPECT_EQ(a.pybind11_internals_id.unknown_reason, b.pybind11_internals_id.unknown_reason);
  EXPECT_EQ(a.cuda_runtime_packages.unknown_reason, b.cuda_runtime_packages.unknown_reason);
}

TEST(ProbeEnvironment, NoInterpreterLeavesTorchUnknownWithTheReason) {
  const Environment env = probe_environment(this_machine("/nonexistent"));
  EXPECT_FALSE(env.python.interpreter.known());
  EXPECT_THAT(env.python.interpreter.unknown_reason, HasSubstr("/nonexistent"));
  EXPECT_FALSE(env.python.version.known());
  EXPECT_FALSE(env.python.version.unknown_reason.empty());
  EXPECT_FALSE(env.torch.installed());
  EXPECT_EQ(env.torch.package_dir.unknown_reason, "no interpreter to look in");
  EXPECT_EQ(env.torch.version.unknown_reason, "no interpreter to look in");
  EXPECT_EQ(env.torch.cuda.unknown_reason, "no interpreter to look in");
  EXPECT_EQ(env.torch.cxx11_abi.unknown_reason, "no interpreter to look in");
  EXPECT_FALSE(env.torch.cuda.known());
  EXPECT_FALSE(env.tag_facts());
  // The rest of the machine is still probed.
  EXPECT_TRUE(env.machine.arch.known());
}

TEST(ProbeEnvironment, WhatIfAppliesOnTopOfTheProbe) {
  ProbeOptions options = this_machine("/nonexistent");
  WhatIfOptions o;
  o.python_version = "3.12";
  o.torch = "2.8.0+cu128";
  o.gpu = "9.0";
  options.what_if = parse_ok(o);
  const Environment env = probe_environment(options);
  EXPECT_EQ(env.gpu.presence, GpuPresence::gpus_found);
  EXPECT_EQ(env.torch.cuda->version, "12.8");
  ASSERT_TRUE(env.tag_facts());
  EXPECT_EQ(pkg::supported_tags(*env.tag_facts()).front().str().substr(0, 12), "cp312-cp312-");
}

}  // namespace
}  // namespace flashfit::env
