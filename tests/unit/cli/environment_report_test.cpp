#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/environment_json.hpp"
#include "cli/environment_text.hpp"
#include "env/environment.hpp"
#include "env/findings.hpp"

namespace flashfit::cli {
namespace {

using env::Fact;
using nlohmann::json;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

env::Interpreter debian_python() {
  env::Interpreter i;
  i.choice = {"/usr/bin/python3", "--python"};
  i.executable = "/usr/bin/python3";
  i.realpath = "/usr/bin/python3.11";
  i.implementation = "cpython";
  i.major = 3;
  i.minor = 11;
  i.micro = 2;
  i.release_level = "final";
  i.soabi = "cpython-311-x86_64-linux-gnu";
  i.prefix = i.base_prefix = "/usr";
  i.site_dirs = {"/usr/lib/python3/dist-packages"};
  i.has_pip = true;
  i.tag_facts.implementation = "cpython";
  i.tag_facts.python_minor = 11;
  i.tag_facts.platform = "linux-x86_64";
  return i;
}

// A small machine: some facts known, some unknown with reasons, no what-if.
env::Environment probed() {
  env::Environment e;
  e.machine.os = Fact<std::string>::of("Debian GNU/Linux 12 (bookworm)", "/etc/os-release");
  e.machine.kernel = Fact<std::string>::of("6.1.0-18-amd64", "uname");
  e.machine.arch = Fact<std::string>::of("x86_64", "uname");
  e.machine.libc = Fact<env::LibcInfo>::of(env::LibcInfo{"glibc", "2.36"}, "gnu_get_libc_version");
  e.machine.cpu_count = Fact<unsigned>::of(16, "sched_getaffinity");
  e.machine.memory_total_bytes = Fact<std::uint64_t>::of(std::uint64_t{128} << 30, "/proc/meminfo");
  e.machine.memory_available_bytes =
      Fact<std::uint64_t>::unknown("no MemAvailable line in /proc/meminfo", "/proc/meminfo");
  e.machine.disks.push_back(
      {"/root/.cache/flashfit",
       Fact<env::DiskSpace>::of(
           env::DiskSpace{"/root", std::uint64_t{100} << 30, std::uint64_t{200} << 30},
           "statvfs")});

  e.python.interpreter = Fact<env::Interpreter>::of(debian_python(), "--python");
  e.python.version = Fact<env::MajorMinor>::of(env::MajorMinor{3, 11}, "--python");
  e.python.uv = Fact<std::filesystem::path>::unknown("uv is not on PATH");

  const std::string site = "/usr/lib/python3/dist-packages";
  e.torch.package_dir = Fact<std::filesystem::path>::of(site + "/torch", site);
  e.torch.version_text = Fact<std::string>::of("2.8.0+cu128", "torch/version.py");
  e.torch.version = Fact<pkg::Version>::of(*pkg::Version::parse("2.8.0+cu128"), "torch/version.py");
  e.torch.cuda = Fact<env::ToolkitBuild>::of(env::ToolkitBuild::of("12.8"), "torch/version.py");
  e.torch.hip = Fact<env::ToolkitBuild>::of(env::ToolkitBuild::none_built(), "torch/version.py");
  e.torch.library_dir = Fact<std::filesystem::path>::of(site + "/torch/lib", site);
  e.torch.cxx11_abi = Fact<bool>::of(true, "libc10.so symbols");
  e.torch.pybind11_internals_id = Fact<std::string>::unknown("no libtorch_python.so");
  e.torch.cuda_runtime_packages = Fact<std::vector<env::CudaRuntimePackage>>::of(
      {{"nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime-cu12==12.8.90"}}, "METADATA");

  e.gpu.presence = env::GpuPresence::no_driver;
  e.gpu.summary = "no NVIDIA driver";
  e.gpu.driver_version =
      Fact<std::string>::unknown("libnvidia-ml.so.1: cannot open shared object file", "NVML");
  e.gpu.driver_cuda = Fact<pkg::CudaVersion>::unknown("no driver", "NVML");
  e.gpu.gpus = Fact<std::vector<env::GpuDevice>>::of({}, "NVML");

  e.toolkit.nvcc = Fact<std::filesystem::path>::of("/usr/local/cuda/bin/nvcc", "/usr/local/cuda");
  e.toolkit.cuda_home =
      Fact<std::filesystem::path>::of("/usr/local/cuda", "nvcc's grandparent (as torch guesses)");
  e.toolkit.cuda_version = Fact<env::NvccVersion>::of(env::NvccVersion{12, 8, 93, "12.8.93"},
                                                      "/usr/local/cuda/bin/nvcc --version");
  e.toolkit.host_compiler = Fact<std::filesystem::path>::of("/usr/bin/g++", "PATH (g++)");
  e.toolkit.host_compiler_id = Fact<env::CompilerId>::of(
      env::CompilerId{env::CompilerKind::gcc, 12, 2, "12.2.0"}, "/usr/bin/g++ --version");
  e.toolkit.host_compiler_max_major = Fact<int>::of(14, "nvcc 12.8.93 host_config.h limits");
  e.toolkit.host_compiler_check = {env::HostCompilerVerdict::ok, "this nvcc accepts GCC up to 14"};
  e.toolkit.ninja =
      Fact<std::filesystem::path>::unknown("neither ninja nor ninja-build is on PATH");
  e.toolkit.ninja_version = Fact<std::string>::unknown("no ninja");
  return e;
}

env::WhatIf what_if(const env::WhatIfOptions& options) {
  auto w = env::parse_what_if(options);
  EXPECT_TRUE(w) << (w ? "" : w.error().message);
  return w ? *w : env::WhatIf{};
}

env::Environment with_what_if() {
  env::Environment e = probed();
  env::WhatIfOptions o;
  o.torch = "2.9.0+cu130";
  o.gpu = "8.0,9.0";
  o.driver = "580.65.06";
  env::apply_what_if(e, what_if(o));
  return e;
}

// Visits every object that looks like a fact (has "overridden").
void for_each_fact(const json& j, const std::string& path,
                   const std::function<void(const std::string&, const json&)>& visit) {
  if (j.is_object()) {
    if (j.contains("overridden")) visit(path, j);
    for (const auto& [key, value] : j.items()) {
      std::string child = path;
      child.append("/").append(key);
      for_each_fact(value, child, visit);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      for_each_fact(j[i], path + "/" + std::to_string(i), visit);
  }
}

// ---- environment_json ----------------------------------------------------

TEST(EnvironmentJson, TopLevelSections) {
  const json j = environment_json(probed());
  for (const char* key :
       {"flashfit_version", "what_if", "machine", "python", "torch", "gpu", "toolkit"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_TRUE(j["what_if"].is_array());
  EXPECT_TRUE(j["what_if"].empty());
}

TEST(EnvironmentJson, EveryFactHasValueSourceAndOverridden) {
  const json j = environment_json(with_what_if());
  int facts = 0;
  for_each_fact(j, "", [&](const std::string& path, const json& f) {
    ++facts;
    EXPECT_TRUE(f.contains("value")) << path;
    ASSERT_TRUE(f.contains("source")) << path;
    EXPECT_TRUE(f["source"].is_string()) << path;
    EXPECT_TRUE(f["overridden"].is_boolean()) << path;
    if (f["value"].is_null()) {
      ASSERT_TRUE(f.contains("unknown_reason")) << path;
      EXPECT_TRUE(f["unknown_reason"].is_string()) << path;
      EXPECT_FALSE(f["unknown_reason"].get<std::string>().empty()) << path;
    } else {
      EXPECT_FALSE(f.contains("unknown_reason")) << path << ": a known fact has no reason";
    }
  });
  EXPECT_GE(facts, 30);
  // The facts the reports rely on, by path.
  for (const char* pointer : {"/machine/os",
                              "/machine/kernel",
                              "/machine/arch",
                              "/machine/libc",
                              "/machine/cpu_count",
                              "/machine/memory_total_bytes",
                              "/machine/memory_available_bytes",
                              "/machine/disks/0/space",
                              "/python/interpreter",
                              "/python/version",
                              "/python/uv",
                              "/torch/package_dir",
                              "/torch/version",
                              "/torch/cuda",
                              "/torch/hip",
                              "/torch/cxx11_abi",
                              "/torch/pybind11_internals_id",
                              "/torch/cuda_runtime_packages",
                              "/torch/library_dir",
                              "/gpu/driver_version",
                              "/gpu/driver_cuda",
                              "/gpu/gpus",
                              "/gpu/gpus/value/0/name",
                              "/gpu/gpus/value/0/compute_capability",
                              "/gpu/gpus/value/0/memory_bytes",
                              "/toolkit/nvcc",
                              "/toolkit/cuda_home",
                              "/toolkit/cuda_version",
                              "/toolkit/host_compiler",
                              "/toolkit/host_compiler_version",
                              "/toolkit/host_compiler_max_major",
                              "/toolkit/ninja",
                              "/toolkit/ninja_version"}) {
    ASSERT_TRUE(j.contains(json::json_pointer(pointer))) << pointer;
    EXPECT_TRUE(j[json::json_pointer(pointer)].contains("overridden")) << pointer;
  }
}

TEST(EnvironmentJson, KnownFactValues) {
  const json j = environment_json(probed());
  EXPECT_EQ(j["machine"]["os"]["value"], "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(j["machine"]["os"]["source"], "/etc/os-release");
  EXPECT_EQ(j["machine"]["os"]["overridden"], false);
  EXPECT_EQ(j["machine"]["libc"]["value"], (json{{"name", "glibc"}, {"version", "2.36"}}));
  EXPECT_EQ(j["machine"]["cpu_count"]["value"], 16);
  EXPECT_EQ(j["machine"]["memory_total_bytes"]["value"], std::uint64_t{128} << 30);
  EXPECT_EQ(j["machine"]["disks"][0]["dir"], "/root/.cache/flashfit");
  EXPECT_EQ(j["machine"]["disks"][0]["space"]["value"]["free_bytes"], std::uint64_t{100} << 30);
  EXPECT_EQ(j["python"]["interpreter"]["value"]["executable"], "/usr/bin/python3");
  EXPECT_EQ(j["python"]["interpreter"]["value"]["version"], "3.11.2");
  EXPECT_EQ(j["python"]["interpreter"]["value"]["found_by"], "--python");
  EXPECT_EQ(j["python"]["interpreter"]["value"]["has_pip"], true);
  EXPECT_EQ(j["python"]["interpreter"]["value"]["ext_suffix"], nullptr);
  EXPECT_EQ(j["python"]["version"]["value"], "3.11");
  EXPECT_EQ(j["torch"]["version"]["value"], "2.8.0+cu128");
  EXPECT_EQ(j["torch"]["cuda"]["value"], "12.8");
  EXPECT_EQ(j["torch"]["hip"]["value"], "none") << "None in version.py is a known 'none'";
  EXPECT_EQ(j["torch"]["cxx11_abi"]["value"], true);
  EXPECT_EQ(j["torch"]["cuda_runtime_packages"]["value"],
            json::array({"nvidia-cuda-runtime-cu12==12.8.90"}));
  EXPECT_EQ(j["gpu"]["presence"], "no-driver");
  EXPECT_EQ(j["gpu"]["summary"], "no NVIDIA driver");
  EXPECT_EQ(j["gpu"]["gpus"]["value"], json::array());
  EXPECT_EQ(j["toolkit"]["cuda_version"]["value"], "12.8.93");
  EXPECT_EQ(j["toolkit"]["host_compiler_version"]["value"],
            (json{{"kind", "gcc"}, {"version", "12.2.0"}}));
  EXPECT_EQ(j["toolkit"]["host_compiler_check"]["verdict"], "ok");
}

TEST(EnvironmentJson, UnknownFactsAreNullWithTheirReason) {
  const json j = environment_json(probed());
  const auto& mem = j["machine"]["memory_available_bytes"];
  EXPECT_TRUE(mem["value"].is_null());
  EXPECT_EQ(mem["unknown_reason"], "no MemAvailable line in /proc/meminfo");
  EXPECT_EQ(mem["source"], "/proc/meminfo");
  EXPECT_EQ(mem["overridden"], false);
  EXPECT_TRUE(j["gpu"]["driver_version"]["value"].is_null());
  EXPECT_EQ(j["gpu"]["driver_version"]["unknown_reason"],
            "libnvidia-ml.so.1: cannot open shared object file");
  EXPECT_EQ(j["python"]["uv"]["unknown_reason"], "uv is not on PATH");
  EXPECT_EQ(j["toolkit"]["ninja"]["unknown_reason"], "neither ninja nor ninja-build is on PATH");
}

TEST(EnvironmentJson, WhatIfFlagsAndOverriddenFacts) {
  const json j = environment_json(with_what_if());
  // The CUDA implied by the --torch label is a fact, not a flag the user gave.
  EXPECT_EQ(j["what_if"],
            json::array({"--torch 2.9.0+cu130", "--gpu 8.0,9.0", "--driver 580.65.06"}));
  EXPECT_EQ(j["torch"]["version"]["value"], "2.9.0+cu130");
  EXPECT_EQ(j["torch"]["version"]["source"], "--torch");
  EXPECT_EQ(j["torch"]["version"]["overridden"], true);
  EXPECT_EQ(j["torch"]["cuda"]["value"], "13.0");
  EXPECT_EQ(j["torch"]["cuda"]["source"], "--torch");
  EXPECT_EQ(j["torch"]["cxx11_abi"]["overridden"], false);
  EXPECT_EQ(j["gpu"]["presence"], "gpus-found");
  EXPECT_EQ(j["gpu"]["driver_version"]["value"], "580.65.06");
  EXPECT_EQ(j["gpu"]["driver_version"]["overridden"], true);
  EXPECT_EQ(j["gpu"]["driver_cuda"]["value"], "13.0");
  EXPECT_EQ(j["gpu"]["gpus"]["overridden"], true);
  ASSERT_EQ(j["gpu"]["gpus"]["value"].size(), 2u);
  EXPECT_EQ(j["gpu"]["gpus"]["value"][1]["index"], 1);
  EXPECT_EQ(j["gpu"]["gpus"]["value"][1]["compute_capability"]["value"], "9.0");
  EXPECT_EQ(j["gpu"]["gpus"]["value"][1]["compute_capability"]["source"], "--gpu");
  EXPECT_TRUE(j["gpu"]["gpus"]["value"][1]["memory_bytes"]["value"].is_null());
  EXPECT_EQ(j["machine"]["os"]["overridden"], false);
}

TEST(EnvironmentJson, GpuPresenceStrings) {
  env::Environment e = probed();
  const std::pair<env::GpuPresence, const char*> cases[] = {
      {env::GpuPresence::unknown, "unknown"},
      {env::GpuPresence::no_driver, "no-driver"},
      {env::GpuPresence::no_gpu, "no-gpu"},
      {env::GpuPresence::gpus_found, "gpus-found"}};
  for (const auto& [presence, text] : cases) {
    e.gpu.presence = presence;
    EXPECT_EQ(environment_json(e)["gpu"]["presence"], text);
  }
}

TEST(EnvironmentJson, AnEmptyEnvironmentIsAllUnknown) {
  const json j = environment_json(env::Environment{});
  for_each_fact(j, "", [](const std::string& path, const json& f) {
    EXPECT_TRUE(f["value"].is_null()) << path;
    EXPECT_TRUE(f.contains("unknown_reason")) << path;
  });
  EXPECT_EQ(j["gpu"]["presence"], "unknown");
  EXPECT_NO_THROW((void)j.dump());
}

// ---- findings_json -------------------------------------------------------

std::vector<env::Finding> two_findings() {
  return {
      {"cpu-only-torch", env::Severity::problem,
       "torch 2.8.0+cpu is a CPU-only build; flash-attn needs a CUDA build of torch",
       "/usr/bin/python3 -m pip install torch --index-url https://download.pytorch.org/whl/cu128"},
      {"nvcc-minor-mismatch", env::Severity::note,
       "nvcc is CUDA 12.6, torch is built for CUDA 12.8: torch only warns about a minor difference",
       ""}};
}

TEST(FindingsJson, Shape) {
  EXPECT_EQ(findings_json({}), json::array());
  const json j = findings_json(two_findings());
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0], (json{{"id", "cpu-only-torch"},
                        {"severity", "problem"},
                        {"message", two_findings()[0].message},
                        {"fix", two_findings()[0].fix}}));
  EXPECT_EQ(j[1]["severity"], "note");
  EXPECT_EQ(j[1]["fix"], "") << "an empty fix stays a string";
}

TEST(FindingsJson, FromDiagnose) {
  const json j = findings_json(env::diagnose(probed()));
  ASSERT_TRUE(j.is_array());
  std::vector<std::string> ids;
  for (const auto& f : j) ids.push_back(f["id"]);
  EXPECT_THAT(ids, ElementsAre("no-gpu", "no-ninja"));
}

// ---- environment_text ----------------------------------------------------

TEST(EnvironmentText, SectionsAndKnownFacts) {
  const std::string text = environment_text(probed());
  for (const char* section :
       {"machine\n", "python\n", "torch\n", "GPU and driver\n", "toolkit\n"}) {
    EXPECT_THAT(text, HasSubstr(section));
  }
  EXPECT_THAT(text, HasSubstr("Debian GNU/Linux 12 (bookworm)  (/etc/os-release)"));
  EXPECT_THAT(text, HasSubstr("glibc 2.36"));
  EXPECT_THAT(text, HasSubstr("128.0 GiB"));
  EXPECT_THAT(text, HasSubstr("/usr/bin/python3 (cpython 3.11.2)"));
  EXPECT_THAT(text, HasSubstr("2.8.0+cu128"));
  EXPECT_THAT(text, HasSubstr("TRUE"));
  EXPECT_THAT(text, HasSubstr("nvidia-cuda-runtime-cu12"));
  EXPECT_THAT(text, HasSubstr("no NVIDIA driver"));
  EXPECT_THAT(text, HasSubstr("gcc 12.2.0 (ok: this nvcc accepts GCC up to 14)"));
  EXPECT_THAT(text, Not(HasSubstr("what-if"))) << "nothing was overridden";
}

TEST(EnvironmentText, UnknownFactsSayWhy) {
  const std::string text = environment_text(probed());
  EXPECT_THAT(text, HasSubstr("unknown: no MemAvailable line in /proc/meminfo"));
  EXPECT_THAT(text, HasSubstr("unknown: libnvidia-ml.so.1: cannot open shared object file"));
  EXPECT_THAT(text, HasSubstr("unknown: uv is not on PATH"));
  EXPECT_THAT(text, HasSubstr("unknown: neither ninja nor ninja-build is on PATH"));
  EXPECT_THAT(text, HasSubstr("unknown: no libtorch_python.so"));
}

TEST(EnvironmentText, OverriddenFactsAreMarked) {
  const std::string text = environment_text(with_what_if());
  EXPECT_THAT(text, HasSubstr("what-if: --torch 2.9.0+cu130 --gpu 8.0,9.0 --driver 580.65.06\n"));
  EXPECT_THAT(text, HasSubstr("2.9.0+cu130  [what-if --torch]"));
  EXPECT_THAT(text, HasSubstr("13.0  [what-if --torch]"));
  EXPECT_THAT(text, HasSubstr("580.65.06  [what-if --driver]"));
  EXPECT_THAT(text, HasSubstr("compute capability 8.0)  [what-if --gpu]"));
  EXPECT_THAT(text, HasSubstr("compute capability 9.0)  [what-if --gpu]"));
  // Probed facts are not marked.
  EXPECT_THAT(text, HasSubstr("Debian GNU/Linux 12 (bookworm)  (/etc/os-release)"));
  EXPECT_THAT(text, Not(HasSubstr("bookworm)  [what-if")));
}

TEST(EnvironmentText, ANotInstalledTorchSaysWhy) {
  env::Environment e = probed();
  e.torch = {};
  e.torch.package_dir = Fact<std::filesystem::path>::unknown("no interpreter to look in");
  const std::string text = environment_text(e);
  EXPECT_THAT(text, HasSubstr("not installed: no interpreter to look in"));
}

TEST(EnvironmentText, AWhatIfTorchIsShownEvenWhenNoneIsInstalled) {
  env::Environment e = probed();
  e.torch = {};
  e.torch.package_dir = Fact<std::filesystem::path>::unknown("no torch/ in the site dirs");
  env::WhatIfOptions o;
  o.torch = "2.8.0+cpu";
  env::apply_what_if(e, what_if(o));
  const std::string text = environment_text(e);
  EXPECT_THAT(text, Not(HasSubstr("not installed")));
  EXPECT_THAT(text, HasSubstr("2.8.0+cpu  [what-if --torch]"));
  EXPECT_THAT(text, HasSubstr("none (CPU build)  [what-if --torch]"));
}

// ---- findings_text -------------------------------------------------------

TEST(FindingsText, None) {
  EXPECT_EQ(findings_text({}),
            "findings\n  none: this environment is ready for flash-attn wheels\n");
}

TEST(FindingsText, TwoFindings) {
  const auto findings = two_findings();
  const std::string text = findings_text(findings);
  EXPECT_EQ(text,
            "findings\n"
            "  problem  cpu-only-torch: " +
                findings[0].message + "\n" + "           fix: " + findings[0].fix + "\n" +
                "  note     nvcc-minor-mismatch: " + findings[1].message + "\n");
  EXPECT_EQ(text.find("fix:"), text.rfind("fix:")) << "no fix line for an empty fix";
}

// ---- hostile strings -----------------------------------------------------

std::string hostile_string() {
  std::string s = "evil\n\t\r\b\f\"\\/";
  for (int c = 0; c < 0x20; ++c) s.push_back(static_cast<char>(c));
  s.push_back('\x7f');
  s += "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80";  // valid multi-byte UTF-8: é 中 😀
  s += std::string(std::size_t{10} * 1024, 'A');
  return s;
}

env::Environment hostile_environment(const std::string& s) {
  env::Environment e = probed();
  e.machine.os = Fact<std::string>::of(s, s);
  e.machine.kernel = Fact<std::string>::unknown(s, s);
  e.machine.warnings = {s};
  e.machine.disks.push_back({s, Fact<env::DiskSpace>::unknown(s)});
  auto py = debian_python();
  py.executable = s;
  py.site_dirs = {s, s};
  py.soabi = s;
  e.python.interpreter = Fact<env::Interpreter>::of(py, s);
  e.torch.version_text = Fact<std::string>::of(s, s);
  e.torch.cuda = Fact<env::ToolkitBuild>::of(env::ToolkitBuild::of(s), s);
  e.torch.pybind11_internals_id = Fact<std::string>::of(s, s);
  e.gpu.summary = s;
  e.gpu.driver_version = Fact<std::string>::of(s, s);
  env::GpuDevice device;
  device.name = Fact<std::string>::of(s, s);
  device.capability = Fact<env::ComputeCapability>::unknown(s, s);
  e.gpu.gpus = Fact<std::vector<env::GpuDevice>>::of({device}, s);
  e.gpu.presence = env::GpuPresence::gpus_found;
  e.toolkit.host_compiler_check.reason = s;
  e.toolkit.ninja_version = Fact<std::string>::of(s, s);
  return e;
}

TEST(HostileStrings, ControlCharactersAndLongStringsRoundTrip) {
  const std::string s = hostile_string();
  const json j = environment_json(hostile_environment(s));
  std::string text;
  ASSERT_NO_THROW(text = j.dump());
  EXPECT_EQ(text.find('\n'), std::string::npos) << "control characters are escaped";
  EXPECT_THAT(text, HasSubstr("\\u0000"));
  EXPECT_THAT(text, HasSubstr("\\u001f"));
  const json back = json::parse(text);
  EXPECT_EQ(back, j);
  EXPECT_EQ(back["machine"]["os"]["value"], s);
  EXPECT_EQ(back["machine"]["kernel"]["unknown_reason"], s);
  EXPECT_EQ(back["python"]["interpreter"]["value"]["executable"], s);
  EXPECT_EQ(back["gpu"]["gpus"]["value"][0]["name"]["value"], s);
  ASSERT_NO_THROW(text = j.dump(2));
  EXPECT_EQ(json::parse(text), j);

  const std::vector<env::Finding> findings = {{s, env::Severity::warning, s, s}};
  const json f = findings_json(findings);
  ASSERT_NO_THROW(text = f.dump());
  EXPECT_EQ(json::parse(text), f);
  EXPECT_EQ(json::parse(text)[0]["message"], s);
}

TEST(HostileStrings, TextReportsDoNotThrow) {
  const std::string s = hostile_string();
  std::string text;
  ASSERT_NO_THROW(text = environment_text(hostile_environment(s)));
  // Control bytes are escaped (nothing can drive the terminal) and long values cut.
  EXPECT_THAT(text, HasSubstr("evil\\x0a\\x09"));
  EXPECT_THAT(text, HasSubstr(" bytes)"));
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    EXPECT_TRUE(c == '\n' || (byte >= 0x20 && byte < 0x7f)) << "raw byte " << int(byte);
    if (!(c == '\n' || (byte >= 0x20 && byte < 0x7f))) break;
  }
  ASSERT_NO_THROW(text = findings_text({{s, env::Severity::note, s, s}}));
}

// Bytes that are not UTF-8 reach the facts from file contents (os-release),
// paths and driver strings; the JSON report must still be written.
TEST(HostileStrings, InvalidUtf8StillDumps) {
  const std::string s = std::string("bad \xff\xfe bytes \xc3 and \xe2\x82 cut ") + "\xed\xa0\x80";
  const json j = environment_json(hostile_environment(s));
  std::string text;
  ASSERT_NO_THROW(text = j.dump()) << "environment_json must hold only valid UTF-8";
  json back;
  ASSERT_NO_THROW(back = json::parse(text));
  const std::string os = back["machine"]["os"]["value"];
  EXPECT_THAT(os, AllOf(HasSubstr("bad "), HasSubstr(" bytes "), HasSubstr(" cut ")));

  const json f = findings_json({{"x", env::Severity::note, s, s}});
  ASSERT_NO_THROW(text = f.dump());
  EXPECT_THAT(json::parse(text)[0]["message"].get<std::string>(), HasSubstr("bad "));
}

}  // namespace
}  // namespace flashfit::cli
