#pragma once
// A pyenv shim (python3 on PATH is often one) picks its interpreter by rules
// on files and variables; running it costs a bash and pyenv start (~100 ms)
// on every call. These rules are applied here instead, so the real
// interpreter is stamped, cached and run directly. Anything the rules below
// do not settle for certain (hooks, a version name pyenv would expand, a
// version outside $PYENV_ROOT/versions) answers nullopt: then the shim runs.

#include <filesystem>
#include <optional>
#include <string>

namespace flashfit::env {

// The variables the shim reads, passed in for tests.
struct PyenvInputs {
  std::optional<std::string> pyenv_version;  // $PYENV_VERSION
  std::optional<std::string> pyenv_dir;      // $PYENV_DIR (default: cwd)
  std::optional<std::string> path;           // $PATH
  std::optional<std::string> hook_path;      // $PYENV_HOOK_PATH
  std::filesystem::path cwd;
};

PyenvInputs pyenv_inputs_from_environment();

// The interpreter the pyenv shim `program` (an absolute path as invoked)
// would exec, or nullopt when `program` is no pyenv shim or the answer is
// not certain without running it.
std::optional<std::filesystem::path> resolve_pyenv_shim(const std::filesystem::path& program,
                                                        const PyenvInputs& in);

}  // namespace flashfit::env
