#pragma once
// The Environment: every fact that decides which binary works here, each with
// its source. It is a plain value: the resolver, binary verdicts, findings and
// build planner take it as an argument and never probe by themselves, so a
// what-if environment flows through the same code as a probed one.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "env/fact.hpp"
#include "env/gpu.hpp"
#include "env/interpreter.hpp"
#include "env/machine.hpp"
#include "env/toolkit.hpp"
#include "env/torch.hpp"
#include "env/what_if.hpp"
#include "pkg/tags.hpp"

namespace flashfit::env {

struct PythonFacts {
  Fact<Interpreter> interpreter;   // unknown when none could be asked (the reason says why)
  Fact<MajorMinor> version;        // the interpreter's, or --python-version
  Fact<std::filesystem::path> uv;  // uv on PATH (installs for any interpreter)
  // PEP 668 (env/pep668): pip refuses to install into the interpreter outside
  // a venv (Debian's /usr/bin/python3); advice then makes a venv first.
  bool externally_managed = false;
  std::optional<util::Error> error;  // why no interpreter could be asked, as the query said
};

struct Environment {
  MachineFacts machine;
  PythonFacts python;
  TorchFacts torch;
  GpuFacts gpu;
  ToolkitFacts toolkit;
  WhatIf what_if;  // the overrides applied, for reports

  // The facts that decide the interpreter's wheel tags: the interpreter's own,
  // with --python-version, --glibc and --arch applied. Without an interpreter,
  // a CPython of the given version on this (or the given) platform, as pip's
  // --python-version/--platform do. nullopt when neither is known.
  std::optional<pkg::InterpreterTagFacts> tag_facts() const;
  // The environment markers (PEP 508) of the machine described: the
  // interpreter's, with --python-version and --arch applied. What the flags
  // leave unknown stays unset, so a marker that reads it cannot be evaluated
  // (python_full_version under --python-version 3.10: only 3.10 is known).
  // Empty (every variable unset) without an interpreter.
  pkg::MarkerEnvironment marker_environment() const;
};

struct ProbeOptions {
  std::optional<std::string> python_option;         // --python
  std::optional<std::string> virtual_env;           // $VIRTUAL_ENV
  std::optional<std::string> path_env;              // $PATH
  std::optional<std::filesystem::path> cache_root;  // for the interpreter facts; none: uncached
  MachineProbeOptions machine;
  ToolkitProbeOptions toolkit;
  GpuProbeOptions gpu;
  WhatIf what_if;
  bool probe_toolkit =
      true;  // false: nvcc/compiler/ninja left unprobed (resolve asks only when needed)
};

// Probes everything (never fails: unknowns carry their reasons) and applies
// the what-if overrides.
Environment probe_environment(const ProbeOptions& options);

// Only what decides wheel tags: the machine and the interpreter (for `tags`),
// with the overrides applied; torch, GPUs and toolkit are left unprobed.
Environment probe_interpreter_environment(const ProbeOptions& options);

// Replaces probed facts by the overrides, marking them overridden. Exposed so
// tests can build environments by hand and apply overrides to them.
void apply_what_if(Environment& env, const WhatIf& what_if);

}  // namespace flashfit::env
