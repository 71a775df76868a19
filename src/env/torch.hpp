#pragma once
// What the installed torch is, learned from its files alone: torch/version.py,
// the exported symbols of torch/lib/libc10.so, the pybind11 id inside
// libtorch_python.so and the dist-info METADATA. Importing torch would cost a
// second and ~240 MB (more for CUDA builds), can crash on a broken install,
// and is exactly what a user with a broken flash-attn cannot afford, so the
// probe never does (docs/background.md §6).

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "env/fact.hpp"
#include "pkg/version.hpp"
#include "util/error.hpp"

namespace flashfit::env {

// What version.py says about one GPU toolkit: a version ("12.8"), or None,
// which means torch was built without it (a CPU build for cuda). An unknown
// fact (Fact::unknown) is different: version.py could not tell.
struct ToolkitBuild {
  std::optional<std::string> version;  // nullopt: None in version.py

  bool none() const { return !version.has_value(); }
  static ToolkitBuild none_built() { return {}; }
  static ToolkitBuild of(std::string v) { return ToolkitBuild{std::move(v)}; }
  friend bool operator==(const ToolkitBuild&, const ToolkitBuild&) = default;
};

// One Requires-Dist of torch that pulls a CUDA runtime part from PyPI.
struct CudaRuntimePackage {
  std::string name;         // as written: "nvidia-cuda-runtime-cu12"
  std::string requirement;  // normalised, marker included
  friend bool operator==(const CudaRuntimePackage&, const CudaRuntimePackage&) = default;
};

// A plain value: the probe fills it, what-if overrides replace fields
// (Fact::overridden_by), and the resolver and verdicts only read it.
struct TorchFacts {
  Fact<std::filesystem::path> package_dir;  // <site>/torch
  Fact<std::string> version_text;           // __version__ as written: "2.8.0+cu128", "1.13.0a0"
  Fact<pkg::Version> version;               // the same, parsed (unknown if not PEP 440)
  Fact<ToolkitBuild> cuda;                  // version.cuda
  Fact<ToolkitBuild> hip;                   // version.hip
  Fact<std::filesystem::path> library_dir;  // <site>/torch/lib (its .so may be symlinks)
  Fact<bool> cxx11_abi;                     // _GLIBCXX_USE_CXX11_ABI, from libc10's symbols
  Fact<std::string> pybind11_internals_id;  // "__pybind11_internals_v4_gcc_libstdcpp_cxxabi1017__"
  Fact<std::vector<CudaRuntimePackage>> cuda_runtime_packages;  // from the dist metadata

  bool installed() const { return package_dir.known(); }
};

// Whether a torch has torch.nn.functional.scaled_dot_product_attention, what
// the attention advice names: it arrived in torch 2.0 (a 2.0 pre-release counts).
bool has_sdpa(const pkg::Version& torch);

// Looks for torch in each site directory in order (the first one with a
// torch/ package wins, as on sys.path). Never fails: what cannot be learned is
// an unknown fact with its reason, and one broken file leaves the others probed.
TorchFacts probe_torch(const std::vector<std::filesystem::path>& site_dirs);

// ---- the pieces, exposed for tests -----------------------------------------

// The right-hand side of a simple assignment in version.py.
struct PyValue {
  enum class Kind { string, none, other };
  Kind kind = Kind::other;
  std::string text;  // the string's contents, or the raw text for `other`
};

// Top-level `name = value` and `name: annotation = value` lines, as written by
// torch's tools/generate_torch_version.py; later assignments win, as in Python.
// Other lines (imports, blank, comments) are skipped. Fails only on content
// that cannot be Python source at all (NUL bytes, invalid UTF-8).
util::Result<std::map<std::string, PyValue>> parse_version_py(std::string_view text);

// Requires-Dist lines of a METADATA file (or the lines of an egg-info
// requires.txt before its first [section]) naming NVIDIA CUDA packages:
// nvidia-*-cu12, nvidia-*-cu13 and CUDA 13's unsuffixed nvidia-* parts.
std::vector<CudaRuntimePackage> cuda_runtime_packages_from_metadata(std::string_view metadata);
std::vector<CudaRuntimePackage> cuda_runtime_packages_from_requires_txt(std::string_view text);

}  // namespace flashfit::env
