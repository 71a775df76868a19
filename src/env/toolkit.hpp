#pragma once
// The build toolchain a source build of a CUDA extension would use: nvcc (found
// the way torch's cpp_extension finds it), the host compiler nvcc would call
// and whether this nvcc accepts it, and ninja. A pure probe: runs `--version`
// with a timeout, prints nothing, never fails; a missing tool is an unknown
// Fact saying where it looked.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "env/fact.hpp"
#include "env/host_compiler_limits.hpp"

namespace flashfit::env {

struct ToolkitProbeOptions {
  // The environment, passed in so tests control it; nullopt = unset.
  std::optional<std::string> cuda_home;                         // CUDA_HOME
  std::optional<std::string> cuda_path;                         // CUDA_PATH
  std::optional<std::string> path;                              // PATH
  std::optional<std::string> cudahostcxx;                       // CUDAHOSTCXX
  std::optional<std::string> cxx;                               // CXX
  std::filesystem::path default_cuda_root = "/usr/local/cuda";  // the last resort, as in torch
  std::chrono::milliseconds timeout{15000};  // per `--version` run; a cold nvcc can be slow
};

struct NvccVersion {
  int major = 0;
  int minor = 0;
  std::optional<int> build;  // 88 of "V13.0.88"
  std::string text;          // "13.0" or "13.0.88", as printed
};

struct CompilerId {
  CompilerKind kind = CompilerKind::other;
  int major = 0;
  int minor = 0;
  std::string version;  // "12.2.0"
};

// Where nvcc was found, as a value for the code that decides on it (the
// Fact's source is the same, in words, for people).
enum class NvccOrigin { none, cuda_home, cuda_path, path, default_root };

struct ToolkitFacts {
  Fact<std::filesystem::path> nvcc;  // source: "CUDA_HOME", "CUDA_PATH", "PATH", "/usr/local/cuda"
  NvccOrigin nvcc_origin = NvccOrigin::none;
  // CUDA_HOME or CUDA_PATH named the root: what a build gets, never replaced.
  bool nvcc_root_explicit() const {
    return nvcc_origin == NvccOrigin::cuda_home || nvcc_origin == NvccOrigin::cuda_path;
  }
  // The CUDA_HOME a build must get: the root whose include/ holds
  // cuda_runtime_api.h (torch's cpp_extension passes -I$CUDA_HOME/include to
  // the C++ compiler and links $CUDA_HOME/lib64). torch guesses it as nvcc's
  // grandparent, which is wrong for a wrapper script (/usr/local/bin/nvcc
  // exec'ing /usr/local/cuda-13.0/bin/nvcc); unknown when no root has them.
  Fact<std::filesystem::path> cuda_home;
  Fact<NvccVersion> cuda_version;             // source: "<nvcc> --version"
  Fact<std::filesystem::path> host_compiler;  // source: "CUDAHOSTCXX", "CXX", "PATH (g++)"
  Fact<CompilerId> host_compiler_id;          // source: "<compiler> --version"
  Fact<int> host_compiler_max_major;          // for the compiler's kind, from the nvcc table
  HostCompilerCheck host_compiler_check;      // ok / too new / unknown, with the reason
  Fact<std::filesystem::path> ninja;          // source: "PATH (ninja)" or "PATH (ninja-build)"
  Fact<std::string> ninja_version;            // "1.11.1"
};

ToolkitFacts probe_toolkit(const ToolkitProbeOptions& options);

// The toolkit root nvcc itself uses: the `#$ TOP=...` line of `nvcc -dryrun`
// output, normalised ("/usr/local/cuda-13.0/bin/.." -> "/usr/local/cuda-13.0").
std::optional<std::filesystem::path> parse_nvcc_top(std::string_view dryrun_output);

// Parsers of `--version` output, exposed for tests; nullopt when garbled.
std::optional<NvccVersion> parse_nvcc_version(std::string_view output);
std::optional<CompilerId> parse_compiler_version(std::string_view output);

}  // namespace flashfit::env
