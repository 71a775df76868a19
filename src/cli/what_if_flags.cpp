#include "cli/what_if_flags.hpp"

#include <CLI/CLI.hpp>

#include "cli/common.hpp"
#include "util/env_vars.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {

void add_environment_flags(CLI::App& app, EnvironmentFlags& flags) {
  app.add_option("--python", flags.python,
                 "Interpreter to probe (default: the active virtual environment's, else python3 "
                 "on PATH)")
      ->type_name("PYTHON");
  auto& w = flags.what_if;
  const char* group = "What-if overrides (replace one probed fact)";
  app.add_option(
         "--python-version", w.python_version,
         "Python X.Y the answer is for (resolve: with no --python, no interpreter needs to exist)")
      ->type_name("X.Y")
      ->group(group);
  app.add_option("--torch", w.torch, "torch version, e.g. 2.8.0+cu128")
      ->type_name("VERSION")
      ->group(group);
  app.add_option("--cuda", w.cuda, "torch's CUDA X.Y, or none (default: from the --torch label)")
      ->type_name("X.Y")
      ->group(group);
  app.add_option("--cxx11-abi", w.cxx11_abi, "torch's C++11 ABI: TRUE or FALSE")
      ->type_name("{TRUE,FALSE}")
      ->group(group);
  app.add_option(
         "--gpu", flags.gpus,
         "A GPU here, by name (L4, H100, RTX-4090: docs/gpus.md) or compute capability (8.9, "
         "sm_89); repeat it or separate with commas for several; none for no GPU")
      ->type_name("GPU")
      ->group(group);
  app.add_option("--driver", w.driver, "NVIDIA driver version, e.g. 570.124.06")
      ->type_name("VERSION")
      ->group(group);
  app.add_option("--glibc", w.glibc, "glibc X.Y")->type_name("X.Y")->group(group);
  app.add_option("--arch", w.arch, "x86_64 or aarch64")
      ->type_name("{x86_64,aarch64}")
      ->group(group);
}

util::Result<void> require_interpreter(const env::Environment& environment,
                                       const EnvironmentFlags& flags, WithoutInterpreter policy,
                                       std::string_view unknown_then) {
  const env::PythonFacts& python = environment.python;
  if (python.interpreter.known()) return {};
  const bool what_if_allowed = policy == WithoutInterpreter::what_if_python_version &&
                               flags.what_if.python_version && !flags.python &&
                               util::getenv_opt("VIRTUAL_ENV").value_or("").empty();
  if (what_if_allowed && python.version.known()) {
    std::fprintf(stderr,
                 "flashfit: note: no interpreter could be asked (%s): the answer is for a CPython "
                 "%s on this platform (--python-version)%s%.*s\n",
                 python.interpreter.unknown_reason.c_str(), python.version->str().c_str(),
                 unknown_then.empty() ? "" : "; ", static_cast<int>(unknown_then.size()),
                 unknown_then.data());
    return {};
  }
  util::Error error =
      python.error ? *python.error
                   : util::Error{util::ErrorKind::input, python.interpreter.unknown_reason, "", ""};
  if (error.hint.empty()) {
    error.hint =
        "pass --python with the path of a Python 3 interpreter (or activate a virtual environment)";
  }
  if (policy == WithoutInterpreter::what_if_python_version && !flags.what_if.python_version &&
      !flags.python) {
    error.hint += "; or --python-version X.Y to ask without one";
  }
  return tl::unexpected(std::move(error));
}

util::Result<env::WhatIf> what_if_from(const EnvironmentFlags& flags) {
  env::WhatIfOptions what_if_options = flags.what_if;
  // A repeated --gpu lists several GPUs, as commas do.
  if (!flags.gpus.empty()) what_if_options.gpu = util::join(flags.gpus, ",");
  return env::parse_what_if(what_if_options);
}

util::Result<env::ProbeOptions> probe_options_from(const EnvironmentFlags& flags) {
  auto what_if = what_if_from(flags);
  if (!what_if) return tl::unexpected(what_if.error());
  env::ProbeOptions options;
  options.what_if = *what_if;
  options.python_option = flags.python;
  // With --python-version and no --python, pip-style: no interpreter is needed,
  // but the one on hand (if any) still tells where torch is.
  options.virtual_env = util::getenv_opt("VIRTUAL_ENV");
  options.path_env = util::getenv_opt("PATH");
  options.cache_root = util::cache_root();
  if (options.cache_root) options.machine.disk_dirs.push_back(*options.cache_root);
  options.machine.disk_dirs.push_back(util::getenv_opt("TMPDIR").value_or("/tmp"));
  options.toolkit.cuda_home = util::getenv_opt("CUDA_HOME");
  options.toolkit.cuda_path = util::getenv_opt("CUDA_PATH");
  options.toolkit.path = options.path_env;
  options.toolkit.cudahostcxx = util::getenv_opt("CUDAHOSTCXX");
  options.toolkit.cxx = util::getenv_opt("CXX");
  return options;
}

}  // namespace flashfit::cli
