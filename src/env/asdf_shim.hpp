#pragma once
// An asdf shim (`~/.asdf/shims/python3`) runs bash and then `asdf exec`, which
// picks the interpreter by version files and variables: 50-150 ms on every
// call. The rules are applied here instead, so the real interpreter is stamped,
// cached and run directly, as for pyenv (pyenv_shim.hpp). Only what both asdf
// lines agree on is settled here (the bash one, up to 0.15, and the Go one,
// 0.16 on); anything else answers nullopt and the shim runs: a shim not in
// asdf's own template, a plugin with exec-env/exec-path/list-bin-paths
// callbacks or shim templates, hooks or legacy version files in the config,
// `path:`/`ref:` versions, `system` before another version, a version file in
// `/`, a version named but not installed, an .asdfrc up the tree that is not
// harmless, versions the 0.16.0-0.16.7 order would pick otherwise, no
// .tool-versions up the tree (0.16.0 reads none in $HOME), a `system` the two
// lines' PATHs find differently.

#include <filesystem>
#include <optional>
#include <string>

namespace flashfit::env {

// What the shim reads from its environment, passed in for tests.
struct AsdfInputs {
  std::optional<std::string> data_dir;             // $ASDF_DATA_DIR (default $HOME/.asdf)
  std::optional<std::string> config_file;          // $ASDF_CONFIG_FILE (default $HOME/.asdfrc)
  std::optional<std::string> config_default_file;  // $ASDF_CONFIG_DEFAULT_FILE (bash line)
  std::optional<std::string> asdf_dir;  // $ASDF_DIR (bash line: its install, `defaults` in it)
  std::optional<std::string> home;      // $HOME
  std::optional<std::string> python_version;  // $ASDF_PYTHON_VERSION
  // $ASDF_TOOL_VERSIONS_FILENAME or $ASDF_DEFAULT_TOOL_VERSIONS_FILENAME: set,
  // the two lines read it differently, so the shim runs.
  bool version_filename_set = false;
  std::optional<std::string> path;  // $PATH
  // BASH_ENV, ENV, BASH_FUNC_*, SHELLOPTS or BASHOPTS: bash reads them at start.
  bool bash_startup_set = false;
  std::filesystem::path cwd;  // $PWD when it names the working directory, as asdf reads it
};

AsdfInputs asdf_inputs_from_environment();

// The interpreter the asdf shim `program` (an absolute path as invoked) would
// exec, or nullopt when it is no asdf shim or the answer is not certain
// without running it.
std::optional<std::filesystem::path> resolve_asdf_shim(const std::filesystem::path& program,
                                                       const AsdfInputs& in);

}  // namespace flashfit::env
