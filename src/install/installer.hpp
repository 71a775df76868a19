#pragma once
// The target interpreter's installer: `uv pip ... --python PY` when uv is on
// PATH, else `PY -m pip`. Always --no-deps, so torch and its CUDA libraries
// are never replaced (flash-attn declares an unpinned `torch`: #1724), and by
// file path, so pip skips the file-name-vs-METADATA version check that
// upstream's `+cu12torch2.8cxx11abiTRUE` files fail (#1423).
#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "env/environment.hpp"
#include "util/error.hpp"
#include "util/process.hpp"

namespace flashfit::install {

enum class InstallerKind { uv, pip };
std::string_view to_string(InstallerKind kind);  // "uv", "pip"

struct Installer {
  InstallerKind kind = InstallerKind::pip;
  std::string python;             // the target interpreter
  std::vector<std::string> base;  // {"/usr/bin/uv", "pip"} or {PY, "-m", "pip"}
  std::string version;            // "pip 23.0.1 from ..." / "uv 0.8.0"
};

// uv when on PATH, else the interpreter's pip (asked with `-m pip --version`);
// neither: an error that says how to get one.
util::Result<Installer> choose_installer(const env::Environment& env);

// The argv that installs `wheel` (a local file) without dependencies,
// replacing whatever version is installed.
std::vector<std::string> install_argv(const Installer& installer,
                                      const std::filesystem::path& wheel);
std::vector<std::string> uninstall_argv(const Installer& installer, const std::string& name);
// The argv that installs a requirements file's lines (`install -r FILE`),
// with `flags` (e.g. --require-hashes) before the -r.
std::vector<std::string> requirements_argv(const Installer& installer,
                                           const std::string& requirements,
                                           const std::vector<std::string>& flags = {});

// Whose configuration the installer reads. flashfit's own installs of a wheel
// file by path are isolated from the user's pip configuration (no index or
// dependency may come in behind its back); the lines of a user's requirements
// file that flashfit hands over run as the user's own `pip install -r` would.
enum class InstallerConfig { isolated, users };

// Runs one of them, bounded; pip's own output is returned for the report.
util::Result<util::ProcessResult> run_installer(
    const std::vector<std::string>& argv, std::chrono::seconds timeout = std::chrono::seconds{600},
    InstallerConfig config = InstallerConfig::isolated);

}  // namespace flashfit::install
