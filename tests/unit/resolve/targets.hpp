#pragma once
// ResolveTargets for the environments the resolver tests use, each taken from
// a real report (the list): Python, torch with its CUDA and C++11
// ABI, GPUs, glibc and CPU architecture, with pip's tag list for that Python.
#include <optional>
#include <string>
#include <vector>

#include "pkg/tags.hpp"
#include "resolve/candidate.hpp"
#include "resolve/target.hpp"

namespace flashfit::resolve::testing {

struct TargetSpec {
  std::string python = "3.12";
  std::optional<std::string> torch = "2.9.1+cu128";  // nullopt: no torch installed
  std::optional<std::string> cuda = "12.8";          // "none": a CPU build
  std::optional<bool> abi = true;
  std::optional<std::vector<std::string>> gpus =
      std::vector<std::string>{"8.9"};  // nullopt: unknown
  std::string glibc = "2.35";
  std::string arch = "x86_64";
};

// A wheel of `filename` from a source called `source` (upstream's catalog by default).
inline Candidate wheel_from(const std::string& filename, const std::string& source = "upstream",
                            SourceRole role = SourceRole::upstream) {
  Candidate c;
  c.filename = filename;
  c.url = "https://example.invalid/" + filename;
  c.source = source;
  c.role = role;
  return c;
}

inline env::MajorMinor mm(const std::string& text) {
  return *env::parse_major_minor(text);
}

inline ResolveTarget make_target(const TargetSpec& spec) {
  ResolveTarget t;
  t.python = mm(spec.python);
  pkg::InterpreterTagFacts facts;
  facts.implementation = "cpython";
  facts.python_major = t.python->major;
  facts.python_minor = t.python->minor;
  facts.py_version_nodot = std::to_string(t.python->major) + std::to_string(t.python->minor);
  facts.py_debug = false;
  facts.with_pymalloc = true;  // CPython < 3.8 then gets its "m" ABI flag
  facts.system = "Linux";
  facts.platform = "linux-" + spec.arch;
  auto glibc = mm(spec.glibc);
  facts.glibc = pkg::LibcVersion{glibc.major, glibc.minor};
  t.tags.emplace(pkg::supported_tags(facts));
  t.arch = spec.arch;
  t.glibc = glibc;
  if (spec.torch) {
    t.torch_installed = true;
    t.torch = *pkg::Version::parse(*spec.torch);
    if (spec.cuda) {
      t.torch_cuda = *spec.cuda == "none" ? std::optional<env::MajorMinor>{}
                                          : std::optional<env::MajorMinor>{mm(*spec.cuda)};
    }
    t.cxx11_abi = spec.abi;
  }
  if (spec.gpus) {
    std::vector<env::ComputeCapability> ccs;
    for (const std::string& g : *spec.gpus) ccs.push_back({mm(g).major, mm(g).minor});
    t.gpus = ccs;
  }
  return t;
}

}  // namespace flashfit::resolve::testing
