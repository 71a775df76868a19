#pragma once
// `flashfit lock --format pylock`: the same lock (workflow/lock_file's
// LockDocument) as a PEP 751 pylock.toml, which uv and other installers read.
// PEP 751 has no words for torch, CUDA, the C++ ABI or GPU architectures, so
// flashfit's environment key lives where PEP 751 lets a tool keep its own
// data, [tool.flashfit] (and, for people, a comment header); what PEP 508 can
// say (interpreter, OS, machine) is also written as `environments` and
// `requires-python`, so that an installer refuses the file elsewhere.
//
// render_pylock (pylock.cpp) is a pure formatter; parse_pylock
// (pylock_parse.cpp) reads one back strictly for `install --lock` and
// `lock --check`.
#include <optional>
#include <string>
#include <string_view>

#include "util/error.hpp"
#include "workflow/lock_file.hpp"

namespace flashfit::workflow {

// The PEP 508 marker for the key's interpreter and platform:
// `implementation_name == "cpython" and python_version == "3.11" and
// sys_platform == "linux" and platform_machine == "x86_64"`; the parts the
// key cannot say (an unknown fact, a tag flashfit cannot map) are left out,
// nullopt when none is left.
std::optional<std::string> pylock_environment_marker(const LockKey& key);
// `==3.11.*` for a cpXY / ppXY interpreter tag; nullopt otherwise.
std::optional<std::string> pylock_requires_python(const LockKey& key);

// The pylock.toml text. PEP 751 requires a hash for every file (uv refuses a
// file without one), so a line with no known sha256 is an error naming it
// (failed: nothing is written), where the requirements format leaves --hash out.
util::Result<std::string> render_pylock(const LockDocument& document);

// A pylock.toml written by `flashfit lock --format pylock` read back. Errors
// (input, naming `origin`, the key path and the line): bad TOML, a
// lock-version other than 1.x, no [tool.flashfit] (a pylock from another
// tool: no environment key), a malformed fact, a package without a name,
// with other than exactly one file (wheels, archive or sdist; vcs and
// directory are not files), a file without url or without a sha256 of 64
// hex digits, a package locked twice.
util::Result<ParsedLock> parse_pylock(std::string_view text, std::string_view origin);

// `origin`'s file name decides the format (is_pylock_name): parse_pylock or
// parse_lock.
util::Result<ParsedLock> parse_lock_by_name(std::string_view text, std::string_view origin);

}  // namespace flashfit::workflow
