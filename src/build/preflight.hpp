#pragma once
// Preflight: everything that would make a build fail, checked before the
// first compile, each failure with the fix in words. The checks are a pure
// function of the environment, the plan, the recipe and a few facts gathered
// beforehand (which modules the interpreter can import, which other host
// compilers are installed), so tests state the facts directly.
//
// CUDA checks (torch built with CUDA, nvcc present, nvcc major == torch's CUDA
// major, host compiler accepted by nvcc) apply only to CUDA builds (the
// recipe says so or the source has .cu files); a C++-only torch extension
// builds against a CPU torch.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "build/plan.hpp"
#include "build/source.hpp"
#include "env/environment.hpp"
#include "resolve/recipe.hpp"
#include "util/error.hpp"

namespace flashfit::build {

enum class CheckStatus { ok, warning, failed, skipped };
const char* to_string(CheckStatus status);  // "ok", "warning", "failed", "skipped"

struct PreflightCheck {
  std::string id;  // stable: "torch", "torch-cuda", "nvcc", "nvcc-cuda-major", "host-compiler",
                   // "ninja", "python-headers", "disk", "build-deps", "archs"
  CheckStatus status = CheckStatus::ok;
  std::string message;  // what was found
  std::string
      fix;  // for warning / failed: what to do, in words, with the exact command or variable
};

// Another host compiler on PATH (g++-12, clang++-14), by name.
struct InstalledCompiler {
  std::filesystem::path path;
  env::CompilerKind kind = env::CompilerKind::other;
  int major = 0;
};

struct PreflightFacts {
  std::map<std::string, bool> importable;        // module -> importable by the build's interpreter
  std::vector<InstalledCompiler> compilers;      // other host compilers found on PATH
  std::optional<std::uint64_t> free_disk_bytes;  // where the build tree goes
  std::filesystem::path build_dir;               // that place, for messages
};

struct PreflightReport {
  std::vector<PreflightCheck> checks;
  bool passed() const;  // no check failed
  const PreflightCheck* first_failure() const;
};

PreflightReport preflight(const env::Environment& env, const resolve::Recipe* recipe,
                          const BuildPlan& plan, const PreflightFacts& facts);

// The modules the build needs importable: the recipe's build requirements,
// else torch, setuptools and wheel (plus ninja's Python package is NOT
// needed: torch runs the ninja binary), and the names in setup.py's literal
// setup_requires that are not among them (a build without isolation gets no
// setup_requires installed: flash-attn's packaging, psutil, ninja).
std::vector<std::string> required_build_modules(
    const resolve::Recipe* recipe, const std::vector<std::string>& setup_requires = {});

// Asks the interpreter (one process, 30 s limit) which of `modules` it can
// import (importlib.util.find_spec, so nothing is imported). Fails when the
// interpreter cannot be run.
util::Result<std::map<std::string, bool>> probe_importable(const std::string& python,
                                                           const std::vector<std::string>& modules);

// g++-N / clang++-N (and g++, clang++) on PATH with their majors from the
// name (or `--version` for unversioned names, 5 s limit).
std::vector<InstalledCompiler> find_host_compilers(const std::string& path_env);

}  // namespace flashfit::build
