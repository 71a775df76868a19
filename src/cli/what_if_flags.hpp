#pragma once
// The what-if flags every command that takes an environment shares, and the
// probe options built from flags plus the process environment.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "env/environment.hpp"
#include "env/what_if.hpp"
#include "util/error.hpp"

namespace CLI {  // NOLINT(readability-identifier-naming): CLI11's namespace
class App;
}  // namespace CLI

namespace flashfit::cli {

struct EnvironmentFlags {
  std::optional<std::string> python;
  env::WhatIfOptions what_if;     // gpu unused: from `gpus` below
  std::vector<std::string> gpus;  // --gpu, each occurrence (L4, 8.9, or a comma list)
};

// Adds --python and the what-if flags (--python-version, --torch, --cuda,
// --cxx11-abi, --gpu, --driver, --glibc, --arch) to `app`.
void add_environment_flags(CLI::App& app, EnvironmentFlags& flags);

// What a command does when no interpreter can be asked.
enum class WithoutInterpreter {
  refuse,  // it acts on or reads from the interpreter's environment: an error
  // resolve and tags: with --python-version (and no --python named, no active
  // virtual environment) the facts can come from the what-if flags, as pip's
  // --python-version; a note on stderr says which facts are then not known.
  what_if_python_version,
};

// The interpreter the command works for could not be asked (missing, not
// executable, not a Python, a stale $VIRTUAL_ENV): that error, with a hint,
// exactly as the probe reported it (exit 2 for one that does not exist or
// cannot start, 1 for one that runs and cannot answer). An --python the user
// named is never silently replaced by what-if facts. `unknown_then` completes
// the note for what the command cannot know without one.
util::Result<void> require_interpreter(const env::Environment& environment,
                                       const EnvironmentFlags& flags, WithoutInterpreter policy,
                                       std::string_view unknown_then = {});

// Probe options from the flags and the process environment ($VIRTUAL_ENV,
// $PATH, CUDA_HOME, ..., the cache dir); a bad flag value is a usage error.
// The what-if facts the flags give (--gpu from its repeated values).
util::Result<env::WhatIf> what_if_from(const EnvironmentFlags& flags);
util::Result<env::ProbeOptions> probe_options_from(const EnvironmentFlags& flags);

}  // namespace flashfit::cli
