// Environment -> binary::LoadHost: what inspect compares against, for a
// probed-looking environment and with what-if overrides.

#include "env/load_host.hpp"

#include <gtest/gtest.h>

#include "sample_environment.hpp"

namespace flashfit::env {
namespace {

Environment no_interpreter_environment() {
  Environment env;
  env.machine = sample::debian_machine();
  env.python.interpreter = Fact<Interpreter>::unknown("no python3 on PATH");
  env.gpu.gpus = Fact<std::vector<GpuDevice>>::of({}, "no driver");
  return env;
}

WhatIf what_if(WhatIfOptions options) {
  auto parsed = parse_what_if(options);
  EXPECT_TRUE(parsed) << (parsed ? "" : parsed.error().message);
  return parsed ? *parsed : WhatIf{};
}

TEST(LoadHost, UnknownInterpreterAndNoGpu) {
  const binary::LoadHost host = load_host_for(no_interpreter_environment());
  EXPECT_EQ(host.arch, "x86_64");
  EXPECT_FALSE(host.tags);
  EXPECT_EQ(host.tags_unknown_reason, "no python3 on PATH");
  EXPECT_FALSE(host.ext_suffix);
  ASSERT_TRUE(host.gpus);
  EXPECT_TRUE(host.gpus->empty());
  EXPECT_FALSE(host.torch_installed);
  EXPECT_FALSE(host.glibc_override);
}

TEST(LoadHost, TorchWhoseLibrariesAreMissingIsInstalledButUnread) {
  Environment env = no_interpreter_environment();
  env.torch = sample::cuda_torch("/nonexistent/site-packages");
  const binary::LoadHost host = load_host_for(env);
  EXPECT_TRUE(host.torch_installed);
  EXPECT_FALSE(host.torch);
  EXPECT_NE(host.torch_unknown_reason.find("libc10.so"), std::string::npos)
      << host.torch_unknown_reason;
  EXPECT_EQ(host.torch_abi, binary::CxxAbi::cxx11);
  EXPECT_EQ(host.torch_version, "2.8.0+cu128");
}

TEST(LoadHost, WhatIfTorchGpuGlibcAndPythonVersion) {
  Environment env = no_interpreter_environment();
  WhatIfOptions options;
  options.python_version = "3.12";
  options.torch = "2.8.0+cu128";
  options.cxx11_abi = "FALSE";
  options.gpu = "8.0,9.0";
  options.glibc = "2.31";
  apply_what_if(env, what_if(options));
  const binary::LoadHost host = load_host_for(env);
  EXPECT_TRUE(host.torch_installed);
  EXPECT_FALSE(host.torch);
  EXPECT_NE(host.torch_unknown_reason.find("--torch"), std::string::npos);
  EXPECT_EQ(host.torch_abi, binary::CxxAbi::pre_cxx11);
  ASSERT_TRUE(host.gpus);
  ASSERT_EQ(host.gpus->size(), 2u);
  EXPECT_EQ((*host.gpus)[1].major, 9);
  EXPECT_EQ((*host.gpus)[1].label, "what-if GPU");
  EXPECT_EQ(host.glibc_override, "2.31");
  ASSERT_TRUE(host.tags);  // CPython 3.12 on this platform, as pip --python-version does
  EXPECT_EQ(host.tags->tags().front().interpreter, "cp312");
  EXPECT_EQ(host.interpreter, "CPython 3.12");
}

TEST(LoadHost, PythonVersionRewritesTheModuleSuffix) {
  Environment env = no_interpreter_environment();
  Interpreter py;
  py.implementation = "cpython";
  py.major = 3;
  py.minor = 11;
  py.executable = "/usr/bin/python3";
  py.ext_suffix = ".cpython-311-x86_64-linux-gnu.so";
  py.platlib = "/usr/lib/python3/dist-packages";
  env.python.interpreter = Fact<Interpreter>::of(py, "--python");
  env.python.version = Fact<MajorMinor>::of({3, 11}, "/usr/bin/python3");
  EXPECT_EQ(load_host_for(env).ext_suffix, ".cpython-311-x86_64-linux-gnu.so");
  EXPECT_EQ(load_host_for(env).install_dir,
            std::filesystem::path("/usr/lib/python3/dist-packages"));
  WhatIfOptions options;
  options.python_version = "3.12";
  apply_what_if(env, what_if(options));
  EXPECT_EQ(load_host_for(env).ext_suffix, ".cpython-312-x86_64-linux-gnu.so");
}

}  // namespace
}  // namespace flashfit::env
