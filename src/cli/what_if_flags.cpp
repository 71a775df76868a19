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
  app.add_option("--python-version", w.python_version, "Python X.Y; no interpreter needs to exist")
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

util::Result<env::ProbeOptions> probe_options_from(const EnvironmentFlags& flags) {
  env::WhatIfOptions what_if_options = flags.what_if;
  // A repeated --gpu lists several GPUs, as commas do.
  if (!flags.gpus.empty()) what_if_options.gpu = util::join(flags.gpus, ",");
  auto what_if = env::parse_what_if(what_if_options);
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
