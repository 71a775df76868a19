#pragma once
// A CUDA toolkit of torch's CUDA version, assembled from NVIDIA's PyPI wheels
// when the machine's nvcc is of another CUDA major (torch's cpp_extension
// refuses that build) or missing: nvcc, nvvm, the crt headers, the runtime
// and CCCL, pinned to torch's CUDA major.minor, installed with the build
// interpreter's pip into a temp dir and laid out as a CUDA_HOME
// (bin/nvcc, include/, lib/ + lib64, nvvm/) in flashfit's cache, keyed by the
// version, shared by later builds: <cache>/toolkits/cuda-13.0.
//
// The decision (which toolkit a build uses) is pure; provisioning is the shell.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "env/driver_compat.hpp"
#include "env/environment.hpp"
#include "util/error.hpp"

namespace flashfit::build {

// `build --toolkit`: the machine's (default), auto (the machine's when its
// major matches torch's CUDA, else assembled), pypi (always assembled), or a
// CUDA_HOME path.
enum class ToolkitMode { machine, automatic, pypi, path };

struct ToolkitRequest {
  ToolkitMode mode = ToolkitMode::machine;
  std::filesystem::path path;  // for ToolkitMode::path
};

// "auto", "pypi", "machine", else a path (must be absolute or start with ./).
util::Result<ToolkitRequest> parse_toolkit_flag(std::string_view value);

// What NVIDIA publishes for one CUDA release line, and how it lays out.
struct ToolkitPackages {
  env::MajorMinor cuda;
  std::vector<std::string> requirements;  // "nvidia-cuda-nvcc==13.0.*", ...
  std::vector<std::string> roots;  // dirs under the install target merged into CUDA_HOME, in order
  std::string key;                 // "cuda-13.0": the cache dir's name
};

// CUDA 12 ships per-component wheels with a -cu12 suffix (nvidia/cuda_nvcc,
// nvidia/cuda_runtime, nvidia/cuda_cccl); CUDA 13 unsuffixed ones that share
// nvidia/cu13 (nvcc's own wheel needs nvidia-nvvm and nvidia-cuda-crt beside
// it). Other majors: an error saying so.
util::Result<ToolkitPackages> toolkit_packages(env::MajorMinor cuda);

// The decision: nullopt keeps the probed toolkit; a value is the CUDA
// version to assemble. Errors: assembling was asked but torch's CUDA is
// unknown or torch is a CPU build.
struct ToolkitDecision {
  std::optional<env::MajorMinor> assemble;
  std::string reason;  // one line for the user: why this toolkit
};
util::Result<ToolkitDecision> decide_toolkit(const env::Environment& env, ToolkitMode mode);

struct ProvisionedToolkit {
  std::filesystem::path cuda_home;
  std::string nvcc_version;           // "13.0.88", from its --version
  std::vector<std::string> packages;  // "nvidia-cuda-nvcc==13.0.88", from the installed dist-infos
  bool reused = false;                // already in the cache
  std::string describe()
      const;  // "CUDA 13.0.88 assembled from PyPI (nvidia-cuda-nvcc==13.0.88, ...)"
};

struct ProvisionOptions {
  std::vector<std::string>
      pip_args;  // extra pip install arguments (tests: --no-index --find-links)
  std::function<void(std::string_view)> say;  // progress lines
  std::chrono::seconds timeout{1800};         // the pip install
};

// The toolkit <cache_root>/toolkits/<key> already assembled, when its stamp is
// there and its nvcc runs and reports the requested major.minor (`reused`);
// nullopt otherwise. Nothing is downloaded or changed.
std::optional<ProvisionedToolkit> cached_toolkit(const std::filesystem::path& cache_root,
                                                 const ToolkitPackages& packages);

// Assembles (or reuses) <cache_root>/toolkits/<key> with `python -m pip
// install --target`, under a lock, and checks that its nvcc runs and reports
// the requested major.minor before it enters the cache (atomically renamed).
util::Result<ProvisionedToolkit> provision_toolkit(const std::string& python,
                                                   const std::filesystem::path& cache_root,
                                                   const ToolkitPackages& packages,
                                                   const ProvisionOptions& options);

}  // namespace flashfit::build
