#pragma once
// The what-if flags every command that takes an environment shares, and the
// probe options built from flags plus the process environment.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "env/environment.hpp"
#include "env/what_if.hpp"
#include "util/error.hpp"

namespace CLI {
class App;
}

namespace flashfit::cli {

struct EnvironmentFlags {
  std::optional<std::string> python;
  env::WhatIfOptions what_if;     // gpu unused: from `gpus` below
  std::vector<std::string> gpus;  // --gpu, each occurrence (L4, 8.9, or a comma list)
};

// Adds --python and the what-if flags (--python-version, --torch, --cuda,
// --cxx11-abi, --gpu, --driver, --glibc, --arch) to `app`.
void add_environment_flags(CLI::App& app, EnvironmentFlags& flags);

// Probe options from the flags and the process environment ($VIRTUAL_ENV,
// $PATH, CUDA_HOME, ..., the cache dir); a bad flag value is a usage error.
util::Result<env::ProbeOptions> probe_options_from(const EnvironmentFlags& flags);

}  // namespace flashfit::cli
