#pragma once
// Hand-built environments for the planner and preflight tests: a Debian 12
// machine with a CUDA 12.8 torch, nvcc 12.8 at /usr/local/cuda, g++ 12 and
// ninja; tests change the one fact they are about.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../env/sample_environment.hpp"
#include "env/environment.hpp"
#include "resolve/recipe.hpp"

namespace flashfit::build::test_env {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
constexpr const char* kPython = "/opt/venv/bin/python";

inline env::GpuDevice gpu(const std::string& name, int major, int minor, unsigned index = 0) {
  env::GpuDevice d;
  d.index = index;
  d.name = env::Fact<std::string>::of(name, "NVML");
  d.capability =
      env::Fact<env::ComputeCapability>::of(env::ComputeCapability{major, minor}, "NVML");
  d.total_memory = env::Fact<std::uint64_t>::of(24 * kGiB, "NVML");
  return d;
}

inline void set_gpus(env::Environment& env, std::vector<env::GpuDevice> gpus) {
  env.gpu.presence = gpus.empty() ? env::GpuPresence::no_gpu : env::GpuPresence::gpus_found;
  env.gpu.gpus = env::Fact<std::vector<env::GpuDevice>>::of(std::move(gpus), "NVML");
}

inline void set_nvcc(env::Environment& env, int major, int minor,
                     const std::string& root = "/usr/local/cuda") {
  env.toolkit.nvcc = env::Fact<std::filesystem::path>::of(root + "/bin/nvcc", "CUDA_HOME");
  env.toolkit.cuda_home = env::Fact<std::filesystem::path>::of(root, "CUDA_HOME");
  env.toolkit.cuda_version = env::Fact<env::NvccVersion>::of(
      env::NvccVersion{major, minor, 1, std::to_string(major) + "." + std::to_string(minor)},
      root + "/bin/nvcc --version");
}

// The host compiler, judged against the nvcc set before, as the probe would.
inline void set_host_gcc(env::Environment& env, const std::string& path, int major, int minor = 1) {
  env.toolkit.host_compiler = env::Fact<std::filesystem::path>::of(path, "PATH (g++)");
  const std::string version = std::to_string(major) + "." + std::to_string(minor) + ".0";
  env.toolkit.host_compiler_id = env::Fact<env::CompilerId>::of(
      env::CompilerId{env::CompilerKind::gcc, major, minor, version}, path + " --version");
  if (env.toolkit.cuda_version.known()) {
    const auto& v = *env.toolkit.cuda_version;
    const auto limits = env::nvcc_host_compiler_limits(v.major, v.minor, v.build);
    env.toolkit.host_compiler_check =
        env::check_host_compiler(limits, env::CompilerKind::gcc, major, minor);
    if (limits.max_gcc_major)
      env.toolkit.host_compiler_max_major = env::Fact<int>::of(*limits.max_gcc_major, "table");
  }
}

inline void set_torch(env::Environment& env, const std::string& version,
                      std::optional<std::string> cuda) {
  env.torch.version_text = env::Fact<std::string>::of(version, "torch/version.py");
  env.torch.version =
      env::Fact<pkg::Version>::of(*pkg::Version::parse(version), "torch/version.py");
  env.torch.cuda = env::Fact<env::ToolkitBuild>::of(
      cuda ? env::ToolkitBuild::of(*cuda) : env::ToolkitBuild::none_built(), "torch/version.py");
}

inline env::Interpreter python311(const std::string& include_dir) {
  env::Interpreter i;
  i.choice = {kPython, "$VIRTUAL_ENV"};
  i.executable = kPython;
  i.implementation = "cpython";
  i.major = 3;
  i.minor = 11;
  i.micro = 2;
  i.include_dir = include_dir;
  return i;
}

inline env::Environment healthy(const std::string& include_dir = "/usr/include/python3.11") {
  env::Environment env;
  env.machine = env::sample::debian_machine();  // 16 CPUs, 128 GiB total, 64 GiB available
  env.python.interpreter = env::Fact<env::Interpreter>::of(python311(include_dir), "$VIRTUAL_ENV");
  env.python.version = env::Fact<env::MajorMinor>::of(env::MajorMinor{3, 11}, "$VIRTUAL_ENV");
  env.torch = env::sample::cuda_torch("/opt/venv/lib/python3.11/site-packages");
  set_gpus(env, {gpu("NVIDIA L4", 8, 9)});
  set_nvcc(env, 12, 8);
  set_host_gcc(env, "/usr/bin/g++", 12, 2);
  env.toolkit.ninja = env::Fact<std::filesystem::path>::of("/usr/bin/ninja", "PATH (ninja)");
  env.toolkit.ninja_version = env::Fact<std::string>::of("1.11.1", "/usr/bin/ninja --version");
  return env;
}

inline const resolve::Recipe& built_in(const char* name) {
  static const resolve::RecipeBook book = resolve::RecipeBook::built_in();
  const resolve::Recipe* recipe = book.find(name);
  if (recipe == nullptr) throw std::runtime_error(std::string("no built-in recipe ") + name);
  return *recipe;
}

inline const resolve::Recipe& flash_attn() {
  return built_in("flash-attn");
}

}  // namespace flashfit::build::test_env
