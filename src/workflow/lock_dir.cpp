// lock --dir: the lock file and the index, written under a lock.
#include "workflow/lock_dir.hpp"

#include <fmt/core.h>

#include <chrono>

#include "store/file_lock.hpp"
#include "util/atomic_file.hpp"

namespace flashfit::workflow {
namespace {

namespace fs = std::filesystem;
constexpr std::chrono::seconds kIndexLockWait{60};

util::Result<std::vector<LockIndexEntry>> read_index_file(const fs::path& index) {
  auto text = util::read_small_file(index, std::size_t{1} << 20);
  if (!text) {
    return util::input_error("cannot read the lock index (missing, unreadable or over 1 MiB)",
                             index.string());
  }
  return parse_lock_index(*text, index.string());
}

}  // namespace

util::Result<fs::path> write_lock_into(const fs::path& dir, const LockKey& key,
                                       const std::string& text, LockFormat format) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec)) {
    return util::fail(util::ErrorKind::input, "cannot create the lock directory", dir.string(),
                      ec ? ec.message() : std::string("a file of that name is in the way"));
  }
  auto lock = store::FileLock::acquire(dir / ".flashfit-locks.lock", kIndexLockWait,
                                       "the lock index of " + dir.string());
  if (!lock) return tl::unexpected(lock.error());
  const fs::path index = dir / kLockIndexName;
  std::vector<LockIndexEntry> entries;
  if (fs::exists(index, ec)) {
    auto read = read_index_file(index);
    if (!read) return tl::unexpected(read.error());
    entries = std::move(*read);
  }
  const LockIndexEntry entry{key, lock_file_name(key, format)};
  auto updated = with_lock(std::move(entries), entry);
  if (!updated) return tl::unexpected(std::move(updated.error()).with_context(index.string()));
  // The file first, the index last: an index never names a file not yet there.
  const fs::path file = dir / entry.file;
  if (auto wrote = util::write_file_atomic(file, text); !wrote)
    return tl::unexpected(wrote.error());
  if (auto wrote = util::write_file_atomic(index, render_lock_index(*updated)); !wrote) {
    return tl::unexpected(wrote.error());
  }
  return file;
}

util::Result<std::vector<LockIndexEntry>> read_lock_index(const fs::path& dir) {
  std::error_code ec;
  const fs::path index = dir / kLockIndexName;
  if (!fs::exists(index, ec)) {
    return util::input_error(fmt::format("no {} in this directory", kLockIndexName), dir.string(),
                             "write one with `flashfit lock -r FILE --dir DIR` on each machine");
  }
  return read_index_file(index);
}

}  // namespace flashfit::workflow
