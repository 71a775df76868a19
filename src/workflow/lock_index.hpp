#pragma once
// The index of a lock directory (pure): `flashfit-locks.json` maps each
// environment key `lock --dir` wrote a file for to that file's name, so that
// `install --lock DIR` can pick this machine's without reading every file.
//
//   {"flashfit-locks": 1,
//    "locks": [{"file": "requirements-cp311-....txt",
//               "key": {"python": "cp311", ..., "gpu-archs": null}}]}
//
// A fact's null is "unknown", as in the lock's header.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"
#include "workflow/lock_file.hpp"

namespace flashfit::workflow {

inline constexpr std::string_view kLockIndexName = "flashfit-locks.json";

struct LockIndexEntry {
  LockKey key;
  std::string file;  // a plain file name in the index's directory (either LockFormat)
  friend bool operator==(const LockIndexEntry&, const LockIndexEntry&) = default;
};

// The index's text (entries in the order given; a newline at the end).
std::string render_lock_index(const std::vector<LockIndexEntry>& entries);

// Errors (input, naming `origin`): not JSON, another format number, a
// missing or mistyped field, an unknown or malformed fact, a file name that
// is not `requirements-*.txt` or `pylock.*.toml` in the directory itself, a key or file named
// twice.
util::Result<std::vector<LockIndexEntry>> parse_lock_index(std::string_view text,
                                                           std::string_view origin);

// `entries` with `entry` in: the entry with an equal key is replaced (a new
// lock for that environment), the others are kept in order, a new key is
// appended. An error when another key already owns `entry.file`.
util::Result<std::vector<LockIndexEntry>> with_lock(std::vector<LockIndexEntry> entries,
                                                    const LockIndexEntry& entry);

// Which entry is this environment's: the one whose key equals `here`, else
// none and, per entry, the facts that differ.
struct LockChoice {
  std::optional<std::size_t> match;
  std::vector<std::vector<KeyDifference>> differences;  // parallel to the entries; empty at a match
};
LockChoice choose_lock(const std::vector<LockIndexEntry>& entries, const LockKey& here);

}  // namespace flashfit::workflow
