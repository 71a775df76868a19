#pragma once
// Which Python interpreter flashfit works for, and what it is: asked once
// through an embedded script (never importing torch), answered as values.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/marker.hpp"
#include "pkg/tags.hpp"
#include "util/error.hpp"

namespace flashfit::env {

// How the interpreter was chosen, so reports can say why this one.
struct InterpreterChoice {
  std::string program;   // an absolute path (symlinks kept: a venv's python is one)
  std::string found_by;  // "--python", "$VIRTUAL_ENV", "PATH"
};

// --python if given (a path, or a name looked up on PATH), else the active
// virtual environment's python, else python3 on PATH. `virtual_env` and
// `path_env` are the values of $VIRTUAL_ENV and $PATH (passed in for tests);
// an unset PATH searches execvp's default "/bin:/usr/bin".
util::Result<InterpreterChoice> choose_interpreter(const std::optional<std::string>& python_option,
                                                   const std::optional<std::string>& virtual_env,
                                                   const std::optional<std::string>& path_env);

struct Interpreter {
  InterpreterChoice choice;
  std::string executable;      // sys.executable
  std::string realpath;        // with symlinks resolved
  std::string implementation;  // sys.implementation.name
  int major = 0, minor = 0, micro = 0;
  std::string release_level;              // "final", "beta", ...
  std::string abiflags;                   // sys.abiflags ("", "d", "t")
  std::optional<std::string> soabi;       // config var SOABI
  std::optional<std::string> ext_suffix;  // config var EXT_SUFFIX
  std::string prefix, base_prefix;
  bool in_venv = false;  // prefix != base_prefix
  std::string purelib, platlib, include_dir, scripts_dir;
  std::vector<std::string> site_dirs;  // site-/dist-packages on sys.path, in import order
  // Checked on the file system at every query (cheap), not cached: pip may
  // be installed or removed between runs.
  bool has_pip = false;
  bool from_cache = false;  // the facts came from the on-disk cache
  pkg::InterpreterTagFacts tag_facts;
  pkg::MarkerEnvironment markers;

  std::string version_str() const;  // "3.11.2"
};

class InterpreterCache;
struct InterpreterStamp;

// Runs the interpreter with the embedded script (30 s limit) and reads its
// answer; with a cache, an answer for the unchanged interpreter is reused.
// Only an answer from the stamped file itself is stored: a launcher (an ELF
// shim such as mise's, which execs the interpreter its version files and
// variables pick at each call) answers with another file's facts, and the
// next call may pick another interpreter without the launcher changing.
util::Result<Interpreter> query_interpreter(const InterpreterChoice& choice,
                                            const InterpreterCache* cache = nullptr);

// The user site on `site_dirs` (sys.path's site directories) as Python would
// put it now: there, before the interpreter's own site directories, when it
// is enabled and exists; gone when it does not exist. site.py adds it only if
// it existed at start, so a cached answer from before `pip install --user`
// created it would miss a torch installed there.
void place_user_site(std::vector<std::string>& site_dirs, const std::string& user_site,
                     bool exists_now, const std::vector<std::string>& own_site_dirs);

// Whether `answer` came from the file `stamp` stamped (its sys.executable,
// symlinks resolved, is that file), so that it may be cached under the stamp.
bool runs_itself(const Interpreter& answer, const InterpreterStamp& stamp);

// Reads the script's JSON answer; separate from running it so that garbled,
// truncated or hostile answers are tested directly.
util::Result<Interpreter> parse_interpreter_facts(std::string_view json,
                                                  const InterpreterChoice& choice);

}  // namespace flashfit::env
