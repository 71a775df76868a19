#pragma once
// The facts the resolver judges wheels against, taken once from an
// env::Environment (probed or what-if). Plain optionals: an unknown fact makes
// its rule "not applied", which the resolver states rather than guesses.
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "env/environment.hpp"
#include "pkg/tags.hpp"
#include "pkg/variant.hpp"
#include "pkg/version.hpp"

namespace flashfit::resolve {

struct ResolveTarget {
  std::optional<env::MajorMinor> python;   // 3.12
  std::optional<pkg::SupportedTags> tags;  // pip's list for the interpreter (or what-if)
  std::string arch;                        // "x86_64"; empty: unknown
  std::optional<env::MajorMinor> glibc;    // nullopt: unknown or not glibc
  bool torch_installed = false;
  std::optional<pkg::Version> torch;  // 2.9.1+cu128
  // torch's CUDA: outer nullopt = unknown; inner nullopt = a CPU build.
  std::optional<std::optional<env::MajorMinor>> torch_cuda;
  bool torch_rocm = false;  // a ROCm build of torch
  // Its ROCm (HIP) major.minor, when it is one and the version reads so.
  std::optional<env::MajorMinor> torch_hip;
  std::optional<bool> cxx11_abi;
  std::string cxx11_abi_basis;  // "derived from torch 2.6.0+cu124: ..." when not probed or given
  // GPUs' compute capabilities: nullopt = unknown (a driver that could not
  // be read); empty = known to be none.
  std::optional<std::vector<env::ComputeCapability>> gpus;

  std::optional<pkg::TorchVersion> torch_minor() const;  // 2.9

  // Facts derived once for thousands of rule checks: the supported tags split
  // into their Python half ("cp312-cp312") and platforms (to say which half of
  // an unsupported wheel fails), and the Python version as a PEP 440 version.
  // Built on first use and shared by copies.
  struct Derived {
    std::unordered_set<std::string> python;  // "interpreter-abi"
    std::unordered_set<std::string> platforms;
    std::optional<pkg::Version> python_version;  // "3.12" as a PEP 440 version, for requires-python
  };
  const Derived& derived() const;

 private:
  mutable std::shared_ptr<const Derived> derived_;
};

ResolveTarget target_from_environment(const env::Environment& env);

// When torch's C++11 ABI was neither probed nor given (--torch without
// --cxx11-abi, or libc10 unreadable) and torch is an official build, the ABI
// that build uses (resolve/torch_abi.hpp) becomes the fact, its source saying
// it was derived and from what. Anything else stays unknown.
void fill_derived_torch_abi(env::Environment& env);

// "12.8", "none" (a CPU build), or "unknown".
std::string describe_torch_cuda(const ResolveTarget& target);

}  // namespace flashfit::resolve
