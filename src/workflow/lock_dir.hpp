#pragma once
// A lock directory on disk (`lock --dir DIR`, `install --lock DIR`): one
// requirements-<key>.txt (or pylock.<key>.toml) per environment and the index flashfit-locks.json
// (workflow/lock_index), updated under a file lock so that `lock` runs for
// several environments, even at once, each add their entry and lose none.
#include <filesystem>
#include <string>
#include <vector>

#include "util/error.hpp"
#include "workflow/lock_file.hpp"
#include "workflow/lock_index.hpp"

namespace flashfit::workflow {

// Writes `text` (a rendered lock for `key`) as DIR/<lock_file_name(key, format)> and
// puts it in the index, each file atomically (temp + rename), the whole under
// DIR/.flashfit-locks.lock. DIR is created when missing. An index that cannot
// be read is an error (it is never overwritten); returns the lock's path.
util::Result<std::filesystem::path> write_lock_into(const std::filesystem::path& dir,
                                                    const LockKey& key, const std::string& text,
                                                    LockFormat format = LockFormat::requirements);

// DIR's index: "no index" is an input error naming DIR.
util::Result<std::vector<LockIndexEntry>> read_lock_index(const std::filesystem::path& dir);

}  // namespace flashfit::workflow
