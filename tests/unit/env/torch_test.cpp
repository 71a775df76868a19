// probe_torch on Debian's real torch (checked against `import torch`) and on
// pip-layout trees built in a temp directory from the fixture libraries.
#include "env/torch.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "../temp_dir.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;
using flashfit::test::TempDir;
using namespace flashfit;
using env::PyValue;
using env::ToolkitBuild;

namespace {

const fs::path debian_site = "/usr/lib/python3/dist-packages";

void write_file(const fs::path& path, std::string_view text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

constexpr std::string_view pip_version_py =
    "from typing import Optional\n"
    "\n"
    "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
    "__version__ = '2.8.0+cu128'\n"
    "debug = False\n"
    "cuda: Optional[str] = '12.8'\n"
    "git_version = 'a1cb3cc05d46d198467bebbb6e8fba50a325d4e7'\n"
    "hip: Optional[str] = None\n"
    "xpu: Optional[str] = None\n";

constexpr std::string_view pip_metadata =
    "Metadata-Version: 2.1\n"
    "Name: torch\n"
    "Version: 2.8.0+cu128\n"
    "Requires-Dist: filelock\n"
    "Requires-Dist: typing-extensions>=4.10.0\n"
    "Requires-Dist: nvidia-cuda-runtime-cu12==12.8.90; platform_system == \"Linux\" and "
    "platform_machine == \"x86_64\"\n"
    "Requires-Dist: nvidia-cudnn-cu12==9.10.2.21; platform_system == \"Linux\"\n"
    "requires-dist: nvidia_nccl_cu12==2.27.3; platform_system == \"Linux\"\n"
    "Requires-Dist: opt-einsum>=3.3; extra == \"opt-einsum\"\n"
    "\n"
    "Requires-Dist: nvidia-not-a-header-cu12\n";

// A pip-style site directory: torch/, torch/lib/libc10.so -> a fixture, and
// torch-<version>.dist-info/METADATA.
fs::path make_pip_site(const fs::path& root, const char* c10,
                       std::string_view version_py = pip_version_py) {
  const fs::path site = root / "site-packages";
  write_file(site / "torch" / "__init__.py",
             "raise ImportError('the probe must not import torch')\n");
  write_file(site / "torch" / "version.py", version_py);
  fs::create_directories(site / "torch" / "lib");
  fs::create_symlink(c10, site / "torch" / "lib" / "libc10.so");
  fs::copy_file(FLASHFIT_FIXTURE_C10_ABI1, site / "torch" / "lib" / "libtorch_python.so");
  write_file(site / "torch-2.8.0+cu128.dist-info" / "METADATA", pip_metadata);
  return site;
}

}  // namespace

// ---- version.py and metadata parsing ----------------------------------------

TEST(torch_version_py, PlainAnnotatedNoneQuotesAndComments) {
  auto values = env::parse_version_py(
      "__version__ = \"2.6.0+cu124\"  # the build\n"
      "cuda: Optional[str] = '12.4' # trailing\n"
      "hip = None   # no ROCm\n"
      "debug = False\n"
      "  indented = 'ignored'\n"
      "# cuda = '0.0'\n"
      "git_version = 'abc#def'\r\n"
      "x == 'comparison, not assignment'\n"
      "broken = 'no closing quote\n"
      "escaped = 'a\\'b'\n");
  ASSERT_TRUE(values);
  EXPECT_EQ((*values)["__version__"].kind, PyValue::Kind::string);
  EXPECT_EQ((*values)["__version__"].text, "2.6.0+cu124");
  EXPECT_EQ((*values)["cuda"].text, "12.4");
  EXPECT_EQ((*values)["hip"].kind, PyValue::Kind::none);
  EXPECT_EQ((*values)["debug"].kind, PyValue::Kind::other);
  EXPECT_EQ((*values)["debug"].text, "False");
  EXPECT_EQ((*values)["git_version"].text, "abc#def");
  EXPECT_FALSE(values->count("indented"));
  EXPECT_FALSE(values->count("x"));
  EXPECT_EQ((*values)["broken"].kind, PyValue::Kind::other);
  EXPECT_EQ((*values)["escaped"].kind, PyValue::Kind::other);
}

TEST(torch_version_py, LaterAssignmentWinsAndBinaryIsRefused) {
  auto values = env::parse_version_py("cuda = None\ncuda = '11.8'\n");
  ASSERT_TRUE(values);
  EXPECT_EQ((*values)["cuda"].text, "11.8");
  EXPECT_FALSE(env::parse_version_py(std::string_view("cuda = '1'\0x", 12)));
  EXPECT_FALSE(env::parse_version_py("cuda = '\xff\xfe'\n"));
  EXPECT_FALSE(env::parse_version_py("cuda = '\xe2\x82'"));  // cut mid-character
  EXPECT_TRUE(env::parse_version_py("cuda = '\xe2\x82\xac'"));
}

TEST(torch_metadata, CudaPackagesFromRequiresDist) {
  auto packages = env::cuda_runtime_packages_from_metadata(pip_metadata);
  ASSERT_EQ(packages.size(), 3u);
  EXPECT_EQ(packages[0].name, "nvidia-cuda-runtime-cu12");
  EXPECT_NE(packages[0].requirement.find("==12.8.90"), std::string::npos);
  EXPECT_NE(packages[0].requirement.find("platform_system"), std::string::npos);
  EXPECT_EQ(packages[2].name, "nvidia_nccl_cu12");
  // CUDA 13: unsuffixed toolkit parts count too.
  auto cu13 = env::cuda_runtime_packages_from_metadata(
      "Name: torch\nRequires-Dist: nvidia-cuda-runtime==13.0.96\nRequires-Dist: "
      "nvidia-nccl-cu13==2.27.7\nRequires-Dist: not a requirement !!\n");
  ASSERT_EQ(cu13.size(), 2u);
  EXPECT_EQ(cu13[0].name, "nvidia-cuda-runtime");
  // torch 2.14.1+cu130's METADATA (lines as published): the toolkit parts come
  // through the cuda-toolkit metapackage's extras; cuda-bindings is Python.
  auto metapackage = env::cuda_runtime_packages_from_metadata(
      "Name: torch\n"
      "Requires-Dist: "
      "cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx]"
      "==13.0.3; platform_system == \"Linux\"\n"
      "Requires-Dist: cuda-bindings<14,>=13.0.3; platform_system == \"Linux\" and python_version < "
      "\"3.15\"\n"
      "Requires-Dist: nvidia-cudnn-cu13==9.24.0.43; platform_system == \"Linux\"\n");
  ASSERT_EQ(metapackage.size(), 2u);
  EXPECT_EQ(metapackage[0].name, "cuda-toolkit");
  EXPECT_NE(metapackage[0].requirement.find("cudart"), std::string::npos);
  EXPECT_NE(metapackage[0].requirement.find("==13.0.3"), std::string::npos);
  EXPECT_EQ(metapackage[1].name, "nvidia-cudnn-cu13");
  auto egg = env::cuda_runtime_packages_from_requires_txt(
      "filelock\nnvidia-cublas-cu12==12.1\n\n[opt]\nnvidia-extra-cu12\n");
  ASSERT_EQ(egg.size(), 1u);
  EXPECT_EQ(egg[0].name, "nvidia-cublas-cu12");
}

// ---- Debian's torch, compared with what importing it says ------------------

TEST(torch_probe, DebianTorchMatchesImport) {
  util::ProcessSpec spec;
  spec.argv = {FLASHFIT_TEST_PYTHON, "-c",
               "import os, torch\n"
               "print(torch.__version__)\n"
               "print(torch.version.cuda)\n"
               "print(torch.version.hip)\n"
               "print(torch._C._GLIBCXX_USE_CXX11_ABI)\n"
               "print(os.path.join(os.path.dirname(torch.__file__), 'lib'))\n"
               "print(torch._C._PYBIND11_COMPILER_TYPE + torch._C._PYBIND11_STDLIB + "
               "torch._C._PYBIND11_BUILD_ABI)\n"};
  spec.timeout = std::chrono::seconds(120);
  auto run = util::run_process(spec);
  ASSERT_TRUE(run && run->succeeded()) << (run ? run->err : run.error().message);
  std::vector<std::string> lines;
  for (auto line : util::split(util::trim(run->out), '\n')) lines.emplace_back(line);
  ASSERT_EQ(lines.size(), 6u) << run->out;

  const auto facts = env::probe_torch({"/nonexistent/site", debian_site});
  ASSERT_TRUE(facts.installed());
  EXPECT_EQ(*facts.package_dir, debian_site / "torch");
  ASSERT_TRUE(facts.version_text.known()) << facts.version_text.unknown_reason;
  EXPECT_EQ(*facts.version_text, lines[0]);
  ASSERT_TRUE(facts.version.known()) << facts.version.unknown_reason;
  EXPECT_EQ(facts.version->str(), lines[0]);
  EXPECT_EQ(lines[1], "None");
  ASSERT_TRUE(facts.cuda.known());
  EXPECT_TRUE(facts.cuda->none());  // a CPU build, which is not "unknown"
  ASSERT_TRUE(facts.hip.known());
  EXPECT_EQ(facts.hip->none(), lines[2] == "None");
  ASSERT_TRUE(facts.cxx11_abi.known()) << facts.cxx11_abi.unknown_reason;
  EXPECT_EQ(*facts.cxx11_abi, lines[3] == "True");
  EXPECT_NE(facts.cxx11_abi.source.find("libc10.so"), std::string::npos);
  EXPECT_NE(facts.cxx11_abi.source.find("torchCheckFail"), std::string::npos);
  ASSERT_TRUE(facts.library_dir.known());
  EXPECT_EQ(fs::canonical(*facts.library_dir), fs::canonical(lines[4]));
  ASSERT_TRUE(facts.pybind11_internals_id.known()) << facts.pybind11_internals_id.unknown_reason;
  EXPECT_EQ(*facts.pybind11_internals_id, "__pybind11_internals_v4" + lines[5] + "__");
  // Debian ships an egg-info without nvidia requirements.
  ASSERT_TRUE(facts.cuda_runtime_packages.known()) << facts.cuda_runtime_packages.unknown_reason;
  EXPECT_TRUE(facts.cuda_runtime_packages->empty());
}

// ---- pip-layout trees ---------------------------------------------------------

TEST(torch_probe, PipLayoutNewAbi) {
  TempDir dir("torch");
  const auto site = make_pip_site(dir.path(), FLASHFIT_FIXTURE_C10_ABI1);
  const auto facts = env::probe_torch({site});
  ASSERT_TRUE(facts.installed());
  EXPECT_EQ(*facts.version_text, "2.8.0+cu128");
  EXPECT_EQ(facts.version->local(), "cu128");
  EXPECT_EQ(*facts.cuda, ToolkitBuild::of("12.8"));
  EXPECT_TRUE(facts.hip->none());
  EXPECT_EQ(facts.version.source, (site / "torch" / "version.py").string());
  ASSERT_TRUE(facts.cxx11_abi.known()) << facts.cxx11_abi.unknown_reason;
  EXPECT_TRUE(*facts.cxx11_abi);
  // The source names the link and the file it resolves to.
  EXPECT_NE(facts.cxx11_abi.source.find(FLASHFIT_FIXTURE_C10_ABI1), std::string::npos);
  EXPECT_EQ(*facts.pybind11_internals_id, "__pybind11_internals_v4_gcc_libstdcpp_cxxabi1017__");
  ASSERT_TRUE(facts.cuda_runtime_packages.known());
  ASSERT_EQ(facts.cuda_runtime_packages->size(), 3u);
  EXPECT_EQ((*facts.cuda_runtime_packages)[0].name, "nvidia-cuda-runtime-cu12");
  EXPECT_NE(facts.cuda_runtime_packages.source.find("torch-2.8.0+cu128.dist-info"),
            std::string::npos);
}

TEST(torch_probe, PipLayoutOldAbiAndCpuBuild) {
  TempDir dir("torch");
  const auto site = make_pip_site(dir.path(), FLASHFIT_FIXTURE_C10_ABI0,
                                  "__version__ = '2.5.1+cpu'\ncuda = None\nhip = None\n");
  const auto facts = env::probe_torch({site});
  ASSERT_TRUE(facts.cxx11_abi.known()) << facts.cxx11_abi.unknown_reason;
  EXPECT_FALSE(*facts.cxx11_abi);
  EXPECT_NE(facts.cxx11_abi.source.find("RKSs"), std::string::npos);
  ASSERT_TRUE(facts.cuda.known());
  EXPECT_TRUE(facts.cuda->none());
  EXPECT_EQ(facts.version->str(), "2.5.1+cpu");
}

TEST(torch_probe, GarbledVersionPyLeavesOtherFactsProbed) {
  TempDir dir("torch");
  const auto site = make_pip_site(dir.path(), FLASHFIT_FIXTURE_C10_ABI1,
                                  "\x7f"
                                  "ELF garbage \x01\x02\n<<<<<<< merge conflict\n");
  const auto facts = env::probe_torch({site});
  EXPECT_FALSE(facts.version_text.known());
  EXPECT_FALSE(facts.version.known());
  EXPECT_FALSE(facts.cuda.known());
  EXPECT_NE(facts.version.unknown_reason.find("__version__"), std::string::npos);
  EXPECT_NE(facts.cuda.unknown_reason.find("cuda"), std::string::npos);
  EXPECT_TRUE(facts.cxx11_abi.known());
  EXPECT_TRUE(facts.pybind11_internals_id.known());
  EXPECT_TRUE(facts.cuda_runtime_packages.known());
}

TEST(torch_probe, BadValuesInVersionPy) {
  TempDir dir("torch");
  const auto site = make_pip_site(dir.path(), FLASHFIT_FIXTURE_C10_ABI1,
                                  "__version__ = 'not a version!'\ncuda = 12.8\n");
  const auto facts = env::probe_torch({site});
  EXPECT_EQ(*facts.version_text, "not a version!");
  EXPECT_FALSE(facts.version.known());
  EXPECT_NE(facts.version.unknown_reason.find("PEP 440"), std::string::npos);
  EXPECT_FALSE(facts.cuda.known());
  EXPECT_NE(facts.cuda.unknown_reason.find("12.8"), std::string::npos);
  EXPECT_NE(facts.hip.unknown_reason.find("no `hip"), std::string::npos);

  TempDir nul;
  const auto nul_site = make_pip_site(nul.path(), FLASHFIT_FIXTURE_C10_ABI1,
                                      std::string_view("__version__ = '1'\0", 18));
  const auto nul_facts = env::probe_torch({nul_site});
  EXPECT_FALSE(nul_facts.version.known());
  EXPECT_NE(nul_facts.version.unknown_reason.find("NUL"), std::string::npos);
}

TEST(torch_probe, CorruptLibc10IsUnknownWithReason) {
  TempDir dir("torch");
  const auto site = make_pip_site(dir.path(), FLASHFIT_FIXTURE_C10_ABI1);
  // Tests run as root, so chmod 000 would not stop reading: corrupt instead.
  const fs::path c10 = site / "torch" / "lib" / "libc10.so";
  fs::remove(c10);
  write_file(c10, "this is not a shared library\n");
  const auto facts = env::probe_torch({site});
  EXPECT_FALSE(facts.cxx11_abi.known());
  EXPECT_NE(facts.cxx11_abi.unknown_reason.find("not an ELF file"), std::string::npos);
  EXPECT_NE(facts.cxx11_abi.unknown_reason.find("libtorch_cpu.so: missing"), std::string::npos);
  EXPECT_TRUE(facts.version.known());
  EXPECT_TRUE(facts.pybind11_internals_id.known());
}

TEST(torch_probe, NotInstalledMakesEveryFactUnknown) {
  TempDir dir("torch");
  const auto facts = env::probe_torch({dir.path(), dir.path() / "missing"});
  EXPECT_FALSE(facts.installed());
  const std::string reason =
      "torch is not installed in " + dir.path().string() + ", " + (dir.path() / "missing").string();
  EXPECT_EQ(facts.package_dir.unknown_reason, reason);
  EXPECT_EQ(facts.version.unknown_reason, reason);
  EXPECT_EQ(facts.cuda.unknown_reason, reason);
  EXPECT_EQ(facts.hip.unknown_reason, reason);
  EXPECT_EQ(facts.cxx11_abi.unknown_reason, reason);
  EXPECT_EQ(facts.library_dir.unknown_reason, reason);
  EXPECT_EQ(facts.pybind11_internals_id.unknown_reason, reason);
  EXPECT_EQ(facts.cuda_runtime_packages.unknown_reason, reason);
  EXPECT_FALSE(facts.cuda.known());
  EXPECT_FALSE(env::probe_torch({}).installed());
}

TEST(torch_probe, FirstSiteWinsAndNoLibDirOrMetadata) {
  TempDir dir("torch");
  const fs::path first = dir.path() / "first";
  write_file(first / "torch" / "version.py", "__version__ = '2.1.0'\ncuda = '11.8'\nhip = None\n");
  const auto second = make_pip_site(dir.path(), FLASHFIT_FIXTURE_C10_ABI1);
  const auto facts = env::probe_torch({first, second});
  EXPECT_EQ(*facts.package_dir, first / "torch");
  EXPECT_EQ(*facts.cuda, ToolkitBuild::of("11.8"));
  EXPECT_FALSE(facts.library_dir.known());
  EXPECT_FALSE(facts.cxx11_abi.known());
  EXPECT_NE(facts.cxx11_abi.unknown_reason.find("no lib directory"), std::string::npos);
  EXPECT_FALSE(facts.cuda_runtime_packages.known());
  EXPECT_NE(facts.cuda_runtime_packages.unknown_reason.find("dist-info"), std::string::npos);
}

TEST(torch_probe, FactsAreAPlainValueForWhatIf) {
  TempDir dir("torch");
  const auto site = make_pip_site(dir.path(), FLASHFIT_FIXTURE_C10_ABI1);
  env::TorchFacts facts = env::probe_torch({site});
  facts.cuda = env::Fact<ToolkitBuild>::overridden_by(ToolkitBuild::of("13.0"), "--torch-cuda");
  facts.cxx11_abi = env::Fact<bool>::overridden_by(false, "--torch-abi");
  const env::TorchFacts copy = facts;
  EXPECT_TRUE(copy.cuda.overridden);
  EXPECT_EQ(*copy.cuda, ToolkitBuild::of("13.0"));
  EXPECT_FALSE(*copy.cxx11_abi);
  EXPECT_EQ(*copy.version_text, "2.8.0+cu128");
}
