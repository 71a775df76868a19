// Preflight against hand-built environments: every failure and its fix, and
// the two probes (importable modules, installed host compilers) against real
// processes.
#include "build/preflight.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "../temp_dir.hpp"
#include "build_environment.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace test_env;

const char* kIds[] = {"torch",         "torch-cuda", "nvcc",  "nvcc-cuda-major",
                      "host-compiler", "archs",      "ninja", "python-headers",
                      "disk",          "build-deps"};

SourceScan fa_scan() {
  SourceScan scan;
  scan.cuda_files = 73;
  scan.cpp_files = 1;
  return scan;
}

SourceScan cxx_scan() {
  SourceScan scan;
  scan.cpp_files = 2;
  return scan;
}

// A healthy environment whose include dir really holds Python.h.
class Preflight : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(include_.path() / "Python.h") << "/* test */\n";
    env_ = healthy(include_.path().string());
    for (const std::string& m : required_build_modules(&flash_attn())) facts_.importable[m] = true;
    facts_.free_disk_bytes = 200 * kGiB;
    facts_.build_dir = "/tmp/flashfit-build";
  }

  PreflightReport run(const resolve::Recipe* recipe = &flash_attn(),
                      const SourceScan& scan = fa_scan()) {
    auto plan = plan_build(env_, recipe, scan, {});
    EXPECT_TRUE(plan) << (plan ? "" : plan.error().message);
    plan_ = plan ? *plan : BuildPlan{};
    return preflight(env_, recipe, plan_, facts_);
  }

  static const PreflightCheck& get(const PreflightReport& report, const std::string& id) {
    for (const PreflightCheck& c : report.checks)
      if (c.id == id) return c;
    static const PreflightCheck none{"missing", CheckStatus::failed, "no such check", ""};
    ADD_FAILURE() << "no check " << id;
    return none;
  }

  test::TempDir include_{"preflight-include"};
  env::Environment env_;
  PreflightFacts facts_;
  BuildPlan plan_;
};

TEST_F(Preflight, HealthyEnvironmentPasses) {
  const PreflightReport report = run();
  ASSERT_EQ(report.checks.size(), std::size(kIds));
  for (std::size_t i = 0; i < report.checks.size(); ++i) {
    EXPECT_EQ(report.checks[i].id, kIds[i]);
    EXPECT_EQ(report.checks[i].status, CheckStatus::ok)
        << report.checks[i].id << ": " << report.checks[i].message;
    EXPECT_TRUE(report.checks[i].fix.empty()) << report.checks[i].id;
  }
  EXPECT_TRUE(report.passed());
  EXPECT_EQ(report.first_failure(), nullptr);
  EXPECT_THAT(get(report, "archs").message, HasSubstr("FLASH_ATTN_CUDA_ARCHS=80 (sm_80)"));
  EXPECT_THAT(get(report, "nvcc-cuda-major").message,
              HasSubstr("nvcc 12.8 matches torch's CUDA 12.8"));
}

// Under what-if flags (a plan for another machine) the fix does not name
// this interpreter's pip.
TEST_F(Preflight, UnderWhatIfTheTorchCommandIsForTheMachineDescribed) {
  set_torch(env_, "1.13.1", std::nullopt);
  set_nvcc(env_, 13, 0);
  set_host_gcc(env_, "/usr/bin/g++", 12, 2);
  env_.what_if.torch = *pkg::Version::parse("1.13.1");
  const PreflightReport report = run();
  const PreflightCheck& check = get(report, "torch-cuda");
  EXPECT_EQ(check.fix, std::string("install a CUDA build of torch: (on the machine described) ") +
                           "python3 -m pip install torch==2.10.0+cu130 --index-url "
                           "https://download.pytorch.org/whl/cu130");
}

TEST_F(Preflight, CpuTorchFailsWithTheCudaTorchCommand) {
  // Debian's torch 1.13.1 is a CPU build; nvcc 13.0 is installed.
  set_torch(env_, "1.13.1", std::nullopt);
  set_nvcc(env_, 13, 0);
  set_host_gcc(env_, "/usr/bin/g++", 12, 2);
  const PreflightReport report = run();
  const PreflightCheck& check = get(report, "torch-cuda");
  EXPECT_EQ(check.status, CheckStatus::failed);
  EXPECT_EQ(check.message, "torch 1.13.1 is a CPU build; flash-attn needs a CUDA torch");
  // torch 1.13 has no CUDA 13 build: the newest torch with one, for Python 3.11.
  EXPECT_EQ(
      check.fix,
      std::string("install a CUDA build of torch: ") + kPython +
          " -m pip install torch==2.10.0+cu130 --index-url https://download.pytorch.org/whl/cu130");
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.first_failure()->id, "torch-cuda");
  EXPECT_EQ(get(report, "nvcc-cuda-major").status, CheckStatus::skipped);
}

TEST_F(Preflight, TorchMissing) {
  env_.torch = env::TorchFacts{};
  env_.torch.package_dir = env::Fact<fs::path>::unknown("no torch/ in the site directories");
  const PreflightReport report = run();
  const PreflightCheck& check = get(report, "torch");
  EXPECT_EQ(check.status, CheckStatus::failed);
  EXPECT_THAT(check.message, HasSubstr("torch is not installed for /opt/venv/bin/python"));
  // nvcc 12.8 is here: a torch for CUDA 12, at nvcc's minor.
  EXPECT_THAT(check.fix, HasSubstr("/opt/venv/bin/python -m pip install torch=="));
  EXPECT_THAT(check.fix, HasSubstr("whl/cu128"));
  EXPECT_EQ(get(report, "torch-cuda").status, CheckStatus::skipped);
}

// --torch 2.9.1+cu130 on a machine whose torch is Debian's: the what-if torch
// is what the plan and the CUDA checks are about, though it is not installed.
TEST_F(Preflight, WhatIfTorchIsPlannedAgainst) {
  env::TorchFacts what_if;
  what_if.package_dir = env::Fact<fs::path>::unknown("not known for the what-if torch 2.9.1+cu130");
  what_if.version =
      env::Fact<pkg::Version>::overridden_by(*pkg::Version::parse("2.9.1+cu130"), "--torch");
  what_if.version_text = env::Fact<std::string>::overridden_by("2.9.1+cu130", "--torch");
  what_if.cuda =
      env::Fact<env::ToolkitBuild>::overridden_by(env::ToolkitBuild::of("13.0"), "--torch");
  env_.torch = what_if;
  set_nvcc(env_, 12, 8);
  const PreflightReport report = run();
  EXPECT_EQ(get(report, "torch").status, CheckStatus::ok);
  EXPECT_THAT(get(report, "torch").message, HasSubstr("what-if"));
  EXPECT_EQ(get(report, "torch-cuda").status, CheckStatus::ok);
  EXPECT_EQ(get(report, "nvcc-cuda-major").status, CheckStatus::failed);
}

TEST_F(Preflight, NoNvcc) {
  env_.toolkit.nvcc = env::Fact<fs::path>::unknown(
      "not found (looked in CUDA_HOME unset, PATH, /usr/local/cuda/bin/nvcc)");
  env_.toolkit.cuda_version = env::Fact<env::NvccVersion>::unknown("nvcc not found");
  env_.toolkit.host_compiler_check = {env::HostCompilerVerdict::unknown, "nvcc version unknown"};
  const PreflightReport report = run();
  const PreflightCheck& check = get(report, "nvcc");
  EXPECT_EQ(check.status, CheckStatus::failed);
  EXPECT_THAT(check.message, HasSubstr("not found (looked in CUDA_HOME unset"));
  EXPECT_THAT(check.fix, HasSubstr("install the CUDA 12.8 toolkit (torch's CUDA; any 12.x works)"));
  EXPECT_THAT(check.fix, HasSubstr("CUDA_HOME"));
  EXPECT_EQ(get(report, "nvcc-cuda-major").status, CheckStatus::skipped);
  EXPECT_EQ(get(report, "archs").status, CheckStatus::skipped);
  EXPECT_EQ(get(report, "host-compiler").status, CheckStatus::warning);
}

// An nvcc on PATH whose grandparent has no runtime headers (a wrapper script
// in /usr/local/bin) and no other root found: the first .cpp unit would fail
// on cuda_runtime_api.h, so the preflight stops before it.
TEST_F(Preflight, NvccWithoutRuntimeHeadersFailsWithCudaHomeFix) {
  set_nvcc(env_, 12, 8, "/usr/local");
  env_.toolkit.cuda_home =
      env::Fact<fs::path>::unknown("no cuda_runtime_api.h in /usr/local/include", "PATH");
  PreflightReport report = run();
  const PreflightCheck& check = get(report, "nvcc");
  EXPECT_EQ(check.status, CheckStatus::failed);
  EXPECT_THAT(check.message, HasSubstr("no cuda_runtime_api.h in /usr/local/include"));
  EXPECT_THAT(check.fix, HasSubstr("export CUDA_HOME="));
  EXPECT_THAT(check.fix, HasSubstr("/usr/local/cuda-12.8"));
  EXPECT_FALSE(report.passed());
  set_nvcc(env_, 12, 8, "/usr/local/cuda-12.8");
  report = run();
  EXPECT_EQ(get(report, "nvcc").status, CheckStatus::ok);
  EXPECT_THAT(get(report, "nvcc").message, HasSubstr("CUDA_HOME /usr/local/cuda-12.8"));
}

TEST_F(Preflight, NvccOfAnotherMajorThanTorch) {
  set_torch(env_, "2.9.1+cu130", std::string("13.0"));
  set_nvcc(env_, 12, 4);
  set_host_gcc(env_, "/usr/bin/g++", 12, 2);
  const PreflightReport report = run();
  const PreflightCheck& check = get(report, "nvcc-cuda-major");
  EXPECT_EQ(check.status, CheckStatus::failed);
  EXPECT_THAT(check.message, HasSubstr("nvcc 12.4 and torch's CUDA 13.0 differ in major"));
  EXPECT_THAT(check.message, HasSubstr("mismatches the version"));
  EXPECT_THAT(check.fix, HasSubstr("install a CUDA 13.x toolkit"));
  // Or keep torch 2.9 and take its CUDA 12 build nearest nvcc 12.4.
  EXPECT_THAT(
      check.fix,
      HasSubstr(
          "-m pip install torch==2.9.1+cu126 --index-url https://download.pytorch.org/whl/cu126"));
}

TEST_F(Preflight, NvccMinorMismatchIsAWarning) {
  set_nvcc(env_, 12, 6);
  set_host_gcc(env_, "/usr/bin/g++", 12, 2);
  const PreflightReport report = run();
  const PreflightCheck& check = get(report, "nvcc-cuda-major");
  EXPECT_EQ(check.status, CheckStatus::warning);
  EXPECT_THAT(check.message, HasSubstr("same major, so torch only warns"));
  EXPECT_THAT(check.fix, HasSubstr("CUDA 12.8 toolkit"));
  EXPECT_TRUE(report.passed());
}

TEST_F(Preflight, GccTooNewNamesTheInstalledOlderOne) {
  set_torch(env_, "2.9.1+cu130", std::string("13.0"));
  set_nvcc(env_, 13, 0);
  set_host_gcc(env_, "/usr/bin/g++", 16, 1);
  facts_.compilers = {{"/usr/bin/g++-16", env::CompilerKind::gcc, 16},
                      {"/usr/bin/clang++-19", env::CompilerKind::clang, 19},
                      {"/usr/bin/g++-12", env::CompilerKind::gcc, 12},
                      {"/usr/bin/g++-11", env::CompilerKind::gcc, 11}};
  const PreflightReport report = run();
  const PreflightCheck& check = get(report, "host-compiler");
  EXPECT_EQ(check.status, CheckStatus::failed);
  EXPECT_THAT(check.message, HasSubstr("/usr/bin/g++ (gcc 16.1.0) is too new for nvcc 13.0"));
  EXPECT_EQ(check.fix,
            "use g++-12, which nvcc accepts: export CUDAHOSTCXX=/usr/bin/g++-12 CC=/usr/bin/gcc-12 "
            "CXX=/usr/bin/g++-12");

  // Only clang accepted: named, with its C compiler.
  facts_.compilers = {{"/usr/bin/g++-16", env::CompilerKind::gcc, 16},
                      {"/usr/lib/llvm-19/bin/clang++", env::CompilerKind::clang, 19}};
  EXPECT_THAT(get(run(), "host-compiler").fix,
              HasSubstr("CUDAHOSTCXX=/usr/lib/llvm-19/bin/clang++ CC=/usr/lib/llvm-19/bin/clang "));

  // Nothing accepted installed: install the newest accepted GCC.
  facts_.compilers.clear();
  EXPECT_EQ(get(run(), "host-compiler").fix,
            "install a GCC this nvcc accepts (up to 15): apt install g++-15, then export "
            "CUDAHOSTCXX=/usr/bin/g++-15 CC=/usr/bin/gcc-15 CXX=/usr/bin/g++-15");
}

TEST_F(Preflight, NoCompilerAtAll) {
  env_.toolkit.host_compiler =
      env::Fact<fs::path>::unknown("not found (looked in CUDAHOSTCXX, CXX: unset; g++ on PATH)");
  const PreflightReport report = run();
  EXPECT_EQ(get(report, "host-compiler").status, CheckStatus::failed);
  EXPECT_THAT(get(report, "host-compiler").fix, HasSubstr("apt install g++"));
}

TEST_F(Preflight, BlackwellArchWithOldNvccFails) {
  set_gpus(env_, {gpu("NVIDIA GeForce RTX 5090", 12, 0)});
  set_nvcc(env_, 12, 4);
  set_host_gcc(env_, "/usr/bin/g++", 12, 2);
  PreflightReport report = run();
  const PreflightCheck& check = get(report, "archs");
  EXPECT_EQ(check.status, CheckStatus::failed);
  EXPECT_EQ(check.message, "120 (GPUs 12.0-12.1) needs nvcc >= 12.8; nvcc here is 12.4");
  EXPECT_THAT(check.fix, HasSubstr("install CUDA 12.8 or newer"));
  EXPECT_THAT(check.fix, ::testing::Not(HasSubstr("--archs")));  // nothing else to build

  set_gpus(env_, {gpu("NVIDIA GeForce RTX 5090", 12, 0, 0), gpu("NVIDIA A100", 8, 0, 1)});
  report = run();
  EXPECT_THAT(get(report, "archs").fix, HasSubstr("or build without them: --archs 80"));
}

TEST_F(Preflight, NoNinjaIsAWarning) {
  env_.toolkit.ninja = env::Fact<fs::path>::unknown("not on PATH");
  const PreflightReport report = run();
  const PreflightCheck& check = get(report, "ninja");
  EXPECT_EQ(check.status, CheckStatus::warning);
  EXPECT_THAT(check.message, HasSubstr("the build will be serial"));
  EXPECT_THAT(check.message, HasSubstr("(~74 min here)"));  // 73 kernel files, one at a time
  EXPECT_EQ(check.fix,
            std::string("apt install ninja-build, or ") + kPython + " -m pip install ninja");
  EXPECT_TRUE(report.passed());
}

// torch reads PYTORCH_NVCC in its ninja build only: without ninja, --archs
// through the wrapper would silently build every -gencode target of setup.py.
TEST_F(Preflight, NoNinjaFailsWhenArchsGoThroughTheNvccWrapper) {
  env_.toolkit.ninja = env::Fact<fs::path>::unknown("not on PATH");
  run();
  plan_.nvcc_wrapped = true;
  const PreflightReport report = preflight(env_, &flash_attn(), plan_, facts_);
  const PreflightCheck& check = get(report, "ninja");
  EXPECT_EQ(check.status, CheckStatus::failed);
  EXPECT_THAT(check.message, HasSubstr("PYTORCH_NVCC"));
  EXPECT_EQ(check.fix,
            std::string("apt install ninja-build, or ") + kPython + " -m pip install ninja");
  EXPECT_FALSE(report.passed());
}

TEST_F(Preflight, NoPythonHeaders) {
  fs::remove(include_.path() / "Python.h");
  PreflightReport report = run();
  const PreflightCheck& check = get(report, "python-headers");
  EXPECT_EQ(check.status, CheckStatus::failed);
  EXPECT_THAT(check.message, HasSubstr("Python.h not found"));
  EXPECT_THAT(check.fix, HasSubstr("apt install python3.11-dev"));

  env_.python.interpreter = env::Fact<env::Interpreter>::unknown("python3 not found on PATH");
  report = run();
  EXPECT_EQ(get(report, "python-headers").status, CheckStatus::failed);
  EXPECT_THAT(get(report, "python-headers").message, HasSubstr("python3 not found on PATH"));
}

// --python-version 3.10 with a 3.11 interpreter here: its Python.h and its
// modules say nothing about the machine described (they passed, or failed, for it).
TEST_F(Preflight, ADescribedPythonIsNotCheckedAgainstThisInterpreter) {
  fs::remove(include_.path() / "Python.h");
  facts_.importable["psutil"] = false;
  env_.python.version = env::Fact<env::MajorMinor>::of(env::MajorMinor{3, 10}, "--python-version");
  const PreflightReport report = run();
  for (const char* id : {"python-headers", "build-deps"}) {
    EXPECT_EQ(get(report, id).status, CheckStatus::skipped) << id;
    EXPECT_THAT(get(report, id).message, HasSubstr("Python 3.10 is described")) << id;
  }
  // The same Python described as the interpreter's: checked as usual.
  env_.python.version = env::Fact<env::MajorMinor>::of(env::MajorMinor{3, 11}, "--python-version");
  EXPECT_EQ(get(run(), "python-headers").status, CheckStatus::failed);
}

TEST_F(Preflight, NotEnoughDisk) {
  facts_.free_disk_bytes = kGiB;
  PreflightReport report = run();
  const PreflightCheck& check = get(report, "disk");
  EXPECT_EQ(check.status, CheckStatus::failed);
  EXPECT_THAT(check.message,
              HasSubstr("1.0 GiB free in /tmp/flashfit-build; the build needs about"));
  EXPECT_THAT(check.fix, StartsWith("free "));

  facts_.free_disk_bytes.reset();
  report = run();
  EXPECT_EQ(get(report, "disk").status, CheckStatus::warning);
}

TEST_F(Preflight, MissingBuildModules) {
  facts_.importable["psutil"] = false;
  facts_.importable["packaging"] = false;
  PreflightReport report = run();
  const PreflightCheck& check = get(report, "build-deps");
  EXPECT_EQ(check.status, CheckStatus::failed);
  EXPECT_THAT(check.message,
              HasSubstr("not importable by /opt/venv/bin/python: packaging, psutil"));
  EXPECT_EQ(check.fix, std::string(kPython) + " -m pip install packaging psutil");

  facts_.importable["torch"] = false;
  report = run();
  EXPECT_EQ(get(report, "build-deps").fix,
            std::string(kPython) + " -m pip install packaging psutil; torch: see the torch check");

  facts_.importable.clear();  // the probe failed: nothing known
  report = run();
  EXPECT_EQ(get(report, "build-deps").status, CheckStatus::warning);
  EXPECT_THAT(get(report, "build-deps").fix,
              HasSubstr("-m pip install setuptools wheel packaging psutil ninja"));
}

TEST_F(Preflight, CxxExtensionSkipsTheCudaChecks) {
  set_torch(env_, "1.13.1", std::nullopt);
  env_.toolkit.nvcc = env::Fact<fs::path>::unknown("not found");
  env_.toolkit.cuda_version = env::Fact<env::NvccVersion>::unknown("nvcc not found");
  env_.toolkit.host_compiler_check = {env::HostCompilerVerdict::unknown, "nvcc version unknown"};
  const PreflightReport report = run(nullptr, cxx_scan());
  for (const char* id : {"torch-cuda", "nvcc", "nvcc-cuda-major", "archs"})
    EXPECT_EQ(get(report, id).status, CheckStatus::skipped) << id;
  EXPECT_EQ(get(report, "host-compiler").status, CheckStatus::ok);
  EXPECT_EQ(get(report, "torch").status, CheckStatus::ok);
  EXPECT_THAT(get(report, "build-deps").message, HasSubstr("torch, setuptools, wheel"));
  EXPECT_TRUE(report.passed()) << report.first_failure()->id;
}

TEST(PreflightNames, StatusesAndModules) {
  EXPECT_STREQ(to_string(CheckStatus::ok), "ok");
  EXPECT_STREQ(to_string(CheckStatus::warning), "warning");
  EXPECT_STREQ(to_string(CheckStatus::failed), "failed");
  EXPECT_STREQ(to_string(CheckStatus::skipped), "skipped");
  EXPECT_THAT(required_build_modules(nullptr), ElementsAre("torch", "setuptools", "wheel"));
  EXPECT_THAT(required_build_modules(&flash_attn()),
              ElementsAre("torch", "setuptools", "wheel", "packaging", "psutil", "ninja"));
}

// ---- probes ----------------------------------------------------------------

void write_script(const fs::path& path, const std::string& body, bool executable = true) {
  std::ofstream(path) << "#!/bin/sh\n" << body;
  fs::permissions(
      path, executable ? fs::perms::owner_all : fs::perms::owner_read | fs::perms::owner_write);
}

TEST(ProbeImportable, AsksTheRealInterpreter) {
  const std::vector<std::string> modules = {"torch",
                                            "setuptools",
                                            "flashfit_no_such_module_xyz",
                                            "os; print('pwned')",
                                            "a b",
                                            "\"quoted'\n1",
                                            "",
                                            "-c",
                                            "..",
                                            "json.decoder",
                                            std::string("sys\0x", 5)};
  auto result = probe_importable(FLASHFIT_TEST_PYTHON, modules);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->size(), modules.size());
  EXPECT_TRUE(result->at("torch"));
  EXPECT_TRUE(result->at("setuptools"));
  EXPECT_TRUE(result->at("json.decoder"));
  EXPECT_FALSE(result->at("flashfit_no_such_module_xyz"));
  EXPECT_FALSE(result->at("os; print('pwned')"));
  EXPECT_FALSE(result->at("a b"));
  EXPECT_FALSE(result->at("\"quoted'\n1"));
  EXPECT_FALSE(result->at(""));
  EXPECT_FALSE(result->at("-c"));
  EXPECT_FALSE(result->at(".."));
  EXPECT_FALSE(result->at(std::string("sys\0x", 5)));  // never asked: argv cannot carry it

  auto none = probe_importable(FLASHFIT_TEST_PYTHON, {});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(ProbeImportable, InterpreterProblemsAreErrors) {
  EXPECT_FALSE(probe_importable("/nonexistent/flashfit/python3", {"os"}));

  test::TempDir dir("probe-python");
  const fs::path garbage = dir.path() / "garbage-python";
  write_script(garbage, "echo hello\n");
  auto result = probe_importable(garbage.string(), {"os"});
  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message, HasSubstr("unexpected answer"));

  const fs::path failing = dir.path() / "failing-python";
  write_script(failing, "echo broken >&2\nexit 3\n");
  result = probe_importable(failing.string(), {"os"});
  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message, HasSubstr("exited with status 3"));
  EXPECT_THAT(result.error().message, HasSubstr("broken"));

  // Noise before the answer (a chatty sitecustomize) is skipped.
  const fs::path chatty = dir.path() / "chatty-python";
  write_script(chatty, std::string("echo 1\necho 0\nexec ") + FLASHFIT_TEST_PYTHON + " \"$@\"\n");
  auto chatty_result = probe_importable(chatty.string(), {"os", "flashfit_no_such_module_xyz"});
  ASSERT_TRUE(chatty_result) << chatty_result.error().message;
  EXPECT_TRUE(chatty_result->at("os"));
  EXPECT_FALSE(chatty_result->at("flashfit_no_such_module_xyz"));
}

TEST(FindHostCompilers, ScansPathByName) {
  test::TempDir dir("host-compilers");
  const fs::path bin = dir.path() / "bin";
  const fs::path other = dir.path() / "other";
  fs::create_directories(bin);
  fs::create_directories(other);
  write_script(bin / "g++-12", "echo 'g++-12 (Debian 12.2.0-14) 12.2.0'\n");
  write_script(bin / "g++-14", "exit 1\n");  // the name is enough
  write_script(bin / "g++", "echo 'g++ (GCC) 13.2.0'\n");
  fs::create_symlink(bin / "g++", bin / "g++-13");  // the same compiler twice
  write_script(bin / "clang++",
               "echo 'not a compiler banner'\n");  // unversioned, unreadable: left out
  write_script(bin / "g++-11", "", /*executable=*/false);
  write_script(bin / "g++-12-wrapper", "");
  write_script(bin / "x86_64-linux-gnu-g++-12", "");
  write_script(bin / "g++-", "");
  write_script(bin / "g++-1x", "");
  write_script(other / "clang++-19", "");
  write_script(other / "c++", "echo 'g++ (GCC) 9.1.0'\n");  // not a name it looks for
  const std::string path =
      bin.string() + "::" + other.string() + ":" + bin.string() + ":/nonexistent/flashfit";

  const std::vector<InstalledCompiler> found = find_host_compilers(path);
  std::vector<std::string> seen;
  for (const InstalledCompiler& c : found)
    seen.push_back(c.path.filename().string() + " " + env::to_string(c.kind) + " " +
                   std::to_string(c.major));
  EXPECT_THAT(
      seen, ElementsAre("g++-13 gcc 13", "g++-12 gcc 12", "g++-14 gcc 14", "clang++-19 clang 19"));
  EXPECT_TRUE(find_host_compilers("").empty());
  EXPECT_TRUE(find_host_compilers("/nonexistent/flashfit").empty());
}

}  // namespace
}  // namespace flashfit::build
