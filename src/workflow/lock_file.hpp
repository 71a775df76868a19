#pragma once
// `flashfit lock`'s file (pure): the environment key a lock is valid for,
// rendered as a header comment and parsed back (`lock --check`), the locked
// lines (`name @ URL --hash=sha256:...`), and the differences between two
// keys. The file is pip's requirements format: pip reads the header as
// comments.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "resolve/target.hpp"
#include "util/error.hpp"

namespace flashfit::workflow {

// The facts a lock depends on, each as written in the header; nullopt is
// unknown (written "unknown", never guessed).
struct LockKey {
  std::optional<std::string> python;     // the interpreter tag: "cp311", "cp313t" (free-threaded)
  std::optional<std::string> platform;   // the most specific platform tag: "manylinux_2_36_x86_64"
  std::optional<std::string> torch;      // "2.8.0+cu128", "none" (not installed)
  std::optional<std::string> cuda;       // torch's CUDA "12.8", "cpu", "rocm", "none" (no torch)
  std::optional<std::string> cxx11_abi;  // "true" / "false", "none" (no torch)
  std::optional<std::string> gpu_archs;  // "sm_80,sm_90" (sorted, unique); "none": no GPU
  friend bool operator==(const LockKey&, const LockKey&) = default;
};

// The key of the environment the resolver judged (probed or what-if).
LockKey lock_key_from(const resolve::ResolveTarget& target);

// One locked requirement line.
struct LockedLine {
  std::string name;                   // as the resolver or pip wrote it
  std::string version;                // for the comment above it
  std::string url;                    // http(s) or file:// URL
  std::optional<std::string> sha256;  // lower-case hex; nullopt: unknown, --hash left out
  std::string origin;                 // "flashfit (requirements.txt:3)", "pip"
};

struct LockDocument {
  LockKey key;
  std::vector<LockedLine> flashfit;   // recipe packages: flashfit's picks
  std::vector<LockedLine> installer;  // the installer's own resolution
  // Comments written under the header ("the installer's lines were not
  // resolved: ...").
  std::vector<std::string> notes;
};

// The lock file's text: the header (format line, one line per fact), the
// notes, then each line as `name @ URL --hash=sha256:HEX` (a comment says
// when a hash is unknown and left out).
std::string render_lock(const LockDocument& document);

// The key in a lock file's header. Errors (input, naming `origin`:line):
// no "# flashfit-lock: 1" first line, an unknown format version, a fact
// missing, named twice or unknown, a value empty, too long or with
// characters outside [A-Za-z0-9._+,-].
util::Result<LockKey> parse_lock_header(std::string_view text, std::string_view origin);

// One fact that differs: "torch: locked 2.8.0, here 2.9.1"; with "unknown" on
// either side, "(an unknown fact never matches)" after it.
struct KeyDifference {
  std::string fact;  // "torch"
  std::string locked;
  std::string here;
  std::string describe() const;
};
// Facts in header order; a fact unknown on either side (both included) never
// matches: the fit cannot be proven.
std::vector<KeyDifference> compare_keys(const LockKey& locked, const LockKey& here);
// The key's unknown facts by name ("gpu-archs"), header order: a lock with any
// matches no environment (compare_keys), so `lock` warns when writing one.
std::vector<std::string> unknown_facts(const LockKey& key);

// The two file formats `flashfit lock` writes: pip's requirements format
// (this file) and PEP 751's pylock.toml (workflow/pylock).
enum class LockFormat { requirements, pylock };

// A stable, readable, filename-safe name for the lock of `key` (`lock --dir`):
// "requirements-cp311-manylinux_2_36_x86_64-torch2.8.0_cu128-cuda12.8-abitrue-gpusm_80.sm_90.txt";
// '+' becomes '_' and ',' '.', an unknown fact is written "unknown" after its prefix.
// A pylock's name follows PEP 751's `pylock.<name>.toml` (no '.' in <name>):
// "pylock.cp311-manylinux_2_36_x86_64-torch2_8_0_cu128-cuda12_8-abitrue-gpusm_80_sm_90.toml".
std::string lock_file_name(const LockKey& key, LockFormat format = LockFormat::requirements);

// PEP 751's file name rule: "pylock.toml" or "pylock.<name>.toml", <name>
// without '.'. `install --lock` and `lock --check` read such a file as a pylock.
bool is_pylock_name(std::string_view file_name);

// The version a locked or resolved package `name` would install when it is
// torch and not the key's torch, as the key writes a version ("9.9"): the lock
// would then change torch, and its header name another one than it installs.
// nullopt when `name` is not torch or `version` is the key's torch. A version
// without a local label (PyPI's "2.8.0", whose version.py, the key, says
// "2.8.0+cu128") is the key's torch when it is `installed`'s (the torch
// distribution installed here, its dist-info's version); with `installed`
// unknown (a lock read on another machine), when its release is the key's.
std::optional<std::string> torch_other_than_key(
    const LockKey& key, std::string_view name, std::string_view version,
    const std::optional<std::string>& installed = std::nullopt);

// The facts by their header names ("python", ..., "gpu-archs"), in header
// order, for the index file (workflow/lock_index); set_key_fact refuses an
// unknown name or a malformed value (as the header parser does).
std::vector<std::pair<std::string, std::optional<std::string>>> key_facts(const LockKey& key);
util::Result<void> set_key_fact(LockKey& key, std::string_view name,
                                const std::optional<std::string>& value);

// A lock file read back whole (`install --lock`): its key, its two sections'
// lines, each with "FILE:LINE" for errors.
struct ParsedLock {
  LockDocument document;
  std::vector<std::string> flashfit_where;   // parallel to document.flashfit
  std::vector<std::string> installer_where;  // parallel to document.installer
};
// Errors (input, naming `origin`:line): the header's, a line outside the two
// sections render_lock writes, a line that is not `name @ URL [--hash=sha256:HEX]`
// (a URL other than http(s):// or file://, a hash that is not 64 hex digits,
// other options), a package locked twice.
util::Result<ParsedLock> parse_lock(std::string_view text, std::string_view origin);

// The URL to lock for a pick from the local cache (`pick_url`, a path only
// this machine has): the first http(s) URL the cache fetched those bytes
// from, else the first other one, else `pick_url` (a wheel built or added here).
std::string portable_url(const std::string& pick_url, const std::vector<std::string>& fetched_from);

// A local path as a file:// URL (percent-encoding what a URL cannot hold);
// URLs are returned unchanged.
std::string as_url(const std::string& url_or_path);

}  // namespace flashfit::workflow
