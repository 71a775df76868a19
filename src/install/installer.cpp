#include "install/installer.hpp"

#include <fmt/format.h>

#include "install/installed.hpp"
#include "util/strings.hpp"

namespace flashfit::install {

std::string_view to_string(InstallerKind kind) {
  return kind == InstallerKind::uv ? "uv" : "pip";
}

util::Result<Installer> choose_installer(const env::Environment& env) {
  if (!env.python.interpreter.known()) {
    return util::fail(util::ErrorKind::usage, "no interpreter to install into",
                      env.python.interpreter.unknown_reason,
                      "choose one with --python PATH (or activate a virtual environment)");
  }
  const std::string python = env.python.interpreter->executable;
  if (env.python.uv.known()) {
    Installer uv{InstallerKind::uv, python, {env.python.uv->string(), "pip"}, ""};
    util::ProcessSpec version;
    version.argv = {env.python.uv->string(), "--version"};
    version.timeout = std::chrono::seconds{30};
    auto v = util::run_process(version);
    if (v && v->succeeded()) {
      uv.version = std::string(util::trim(v->out));
      return uv;
    }
  }
  // pip's dist-info in the interpreter's site dirs: asking `-m pip --version`
  // would cost a pip import (a quarter second) on every install.
  if (auto pip = find_installed(env.python.interpreter->site_dirs, "pip")) {
    return Installer{InstallerKind::pip, python, {python, "-m", "pip"}, "pip " + pip->version};
  }
  return util::fail(
      util::ErrorKind::failed, fmt::format("{} has no pip, and uv is not on PATH", python), {},
      fmt::format("install one: `{} -m ensurepip` (Debian: apt install python3-pip, or a venv made "
                  "with python3 -m venv), or put uv on PATH",
                  python));
}

std::vector<std::string> install_argv(const Installer& installer,
                                      const std::filesystem::path& wheel) {
  std::vector<std::string> argv = installer.base;
  if (installer.kind == InstallerKind::uv) {
    argv.insert(argv.end(), {"install", "--python", installer.python, "--no-deps", "--reinstall",
                             "--offline", wheel.string()});
  } else {
    argv.insert(argv.end(), {"install", "--no-deps", "--force-reinstall", "--no-index",
                             "--no-cache-dir", "--disable-pip-version-check", "--no-input",
                             "--no-warn-script-location", wheel.string()});
  }
  return argv;
}

std::vector<std::string> requirements_argv(const Installer& installer,
                                           const std::string& requirements,
                                           const std::vector<std::string>& flags) {
  std::vector<std::string> argv = installer.base;
  argv.push_back("install");
  if (installer.kind == InstallerKind::uv) {
    argv.insert(argv.end(), {"--python", installer.python});
  } else {
    argv.insert(argv.end(), {"--disable-pip-version-check", "--no-input"});
  }
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-r", requirements});
  return argv;
}

std::vector<std::string> uninstall_argv(const Installer& installer, const std::string& name) {
  std::vector<std::string> argv = installer.base;
  if (installer.kind == InstallerKind::uv) {
    argv.insert(argv.end(), {"uninstall", "--python", installer.python, name});
  } else {
    argv.insert(argv.end(), {"uninstall", "-y", "--disable-pip-version-check", "--no-input", name});
  }
  return argv;
}

util::Result<util::ProcessResult> run_installer(const std::vector<std::string>& argv,
                                                std::chrono::seconds timeout,
                                                InstallerConfig config) {
  util::ProcessSpec spec;
  spec.argv = argv;
  spec.timeout = timeout;
  // If flashfit is SIGKILLed mid-install, the installer must finish (or fail)
  // on its own terms, never die of a broken output pipe half-way.
  spec.output_to_files = true;
  spec.set_env = {{"PIP_DISABLE_PIP_VERSION_CHECK", "1"}};
  if (config == InstallerConfig::isolated) {
    // The user's pip configuration must not add an index or dependencies behind our back.
    spec.set_env.emplace_back("PIP_CONFIG_FILE", "/dev/null");
    spec.unset_env = {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS",
                      "PIP_REQUIRE_VIRTUALENV"};
  }
  return util::run_process(spec);
}

}  // namespace flashfit::install
