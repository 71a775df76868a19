// The directory (and file://) publish target.
#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <vector>

#include "store/file_lock.hpp"
#include "util/atomic_file.hpp"
#include "util/hashing_copy.hpp"
#include "util/unique_fd.hpp"
#include "util/write_all.hpp"
#include "workflow/publish_target.hpp"

namespace flashfit::workflow {
namespace {

namespace fs = std::filesystem;

util::Error write_error(const fs::path& where, const std::string& why) {
  return util::Error{util::ErrorKind::failed,
                     fmt::format("cannot write to {}: {}", where.string(), why),
                     {},
                     "check the target exists and is writable by this user"};
}

util::Error read_error(const fs::path& source, const std::string& why) {
  return util::Error{util::ErrorKind::failed,
                     fmt::format("cannot read {}: {}", source.string(), why),
                     {},
                     "check the wheel is still there and readable by this user"};
}

class HeldLock : public TargetLock {
 public:
  explicit HeldLock(store::FileLock lock) : lock_(std::move(lock)) {}

 private:
  store::FileLock lock_;
};

class DirectoryTarget : public PublishTarget {
 public:
  explicit DirectoryTarget(fs::path root) : root_(std::move(root)) {}

  std::string describe() const override { return root_.string(); }

  util::Result<std::unique_ptr<TargetLock>> lock() override {
    std::error_code ec;
    fs::create_directories(root_, ec);
    if (ec) return tl::unexpected(write_error(root_, ec.message()));
    auto held = store::FileLock::acquire(root_ / ".flashfit-publish.lock", std::chrono::minutes(10),
                                         fmt::format("publishing to {}", root_.string()));
    if (!held) return tl::unexpected(held.error());
    return std::unique_ptr<TargetLock>(std::make_unique<HeldLock>(std::move(*held)));
  }

  // The target, or the nearest of its parents that exists, must be a
  // directory this user may write into.
  util::Result<void> check_usable() override {
    std::error_code ec;
    const fs::path at = nearest_existing(root_);
    if (!fs::is_directory(at, ec)) return tl::unexpected(write_error(at, "not a directory"));
    if (::access(at.c_str(), W_OK | X_OK) != 0)
      return tl::unexpected(write_error(at, std::strerror(errno)));
    return {};
  }

  // A file created in `dir` and renamed into files/ must be the file a put
  // would have created there: the same file system, and nothing that the
  // target's directory gives the files created in it and a rename would not
  // carry over (a setgid directory's group, a default ACL, another SELinux
  // label): a web server could be refused the wheel its pages list.
  bool can_move_from(const fs::path& dir) const override {
    const fs::path files = nearest_existing(root_ / "files");
    struct stat here {};
    struct stat there {};
    if (::stat(dir.c_str(), &here) != 0 || ::stat(files.c_str(), &there) != 0) return false;
    if (here.st_dev != there.st_dev || ((here.st_mode | there.st_mode) & S_ISGID) != 0)
      return false;
    constexpr const char* kDefaultAcl = "system.posix_acl_default";
    constexpr const char* kLabel = "security.selinux";
    const auto acl_here = attribute(dir, kDefaultAcl);
    const auto acl_there = attribute(files, kDefaultAcl);
    if (!acl_here || *acl_here || !acl_there || *acl_there) return false;
    const auto label_here = attribute(dir, kLabel);
    const auto label_there = attribute(files, kLabel);
    return label_here && label_there && *label_here == *label_there;
  }

  util::Result<std::vector<std::string>> list(std::string_view dir) override {
    std::vector<std::string> names;
    std::error_code ec;
    const fs::path d = root_ / dir;
    if (!fs::exists(d, ec)) return names;
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file(ec)) names.push_back(it->path().filename().string());
    }
    if (ec)
      return util::fail(util::ErrorKind::failed,
                        fmt::format("cannot list {}: {}", d.string(), ec.message()));
    std::sort(names.begin(), names.end());
    return names;
  }

  util::Result<std::optional<std::string>> read(std::string_view path) override {
    const fs::path p = root_ / path;
    std::error_code ec;
    if (!fs::exists(p, ec)) return std::optional<std::string>{};
    auto text = util::read_small_file(p);
    if (!text)
      return util::fail(util::ErrorKind::failed, fmt::format("cannot read {}", p.string()));
    return text;
  }

  // A put writes a temp file beside its destination and starts its writeback
  // (sync_file_range), without waiting: the bytes go to disk while the next
  // files are written. flush() makes them all durable (one syncfs per file
  // system), renames them into place in put order, then makes the renames
  // durable (another syncfs).
  // A wheel is read once here: each buffer is written to the temp file and
  // fed to SHA-256, so what is published is proven to be what was inspected.
  util::Result<void> put_file(std::string_view path, const fs::path& source,
                              std::string_view sha256) override {
    auto temp = copy_temp(path, source, sha256);
    if (!temp) return tl::unexpected(temp.error());
    staged_.push_back({std::move(*temp), root_ / path});
    return {};
  }

  util::Result<void> put_bytes(std::string_view path, std::string_view content) override {
    auto temp = write_temp(path, content);
    if (!temp) return tl::unexpected(temp.error());
    staged_.push_back({std::move(*temp), root_ / path});
    return {};
  }

  // Many puts (a publish of 200 wheels writes 1,000 files) go on a few
  // threads: the copies into the page cache and the kernel's work to create
  // each file run side by side. Each thread writes whole temp files; the
  // renames stay in flush(), in put order.
  util::Result<void> put_all(std::span<const PutRequest> puts,
                             const std::function<void(std::size_t)>& started) override {
    // The directories first, on this thread: creating them is serial in the
    // kernel anyway (one parent's lock), and a failure is found before any write.
    for (const auto& p : puts) {
      if (auto made = make_parent(root_ / p.path); !made) return tl::unexpected(made.error());
    }
    std::vector<fs::path> temps(puts.size());
    std::vector<std::optional<util::Error>> errors(puts.size());
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::mutex say;
    auto work = [&] {
      for (std::size_t i; !failed && (i = next.fetch_add(1)) < puts.size();) {
        try {
          if (started) {
            const std::lock_guard lock(say);
            started(i);
          }
          const PutRequest& p = puts[i];
          auto temp = p.source.empty() ? write_temp(p.path, p.bytes)
                      : p.movable      ? move_temp(p.path, p.source, p.sha256)
                                       : copy_temp(p.path, p.source, p.sha256);
          if (temp) {
            temps[i] = std::move(*temp);
            continue;
          }
          errors[i] = p.context.empty()
                          ? std::move(temp.error())
                          : std::move(temp.error()).with_context(std::string(p.context));
        } catch (const std::bad_alloc&) {
          errors[i] = util::Error{util::ErrorKind::failed, "out of memory", {}, {}};
        }
        failed = true;
      }
    };
    {
      std::vector<std::jthread> helpers;
      try {
        for (unsigned t = 1; t < worker_count(puts.size()); ++t) helpers.emplace_back(work);
      } catch (const std::system_error&) {
        // No thread to be had (a pids limit): the ones started and this one
        // do every put all the same.
      }
      work();
    }  // joined
    const auto first =
        std::find_if(errors.begin(), errors.end(), [](const auto& e) { return e.has_value(); });
    if (first != errors.end()) {
      for (const auto& temp : temps) {
        std::error_code ec;
        if (!temp.empty()) fs::remove(temp, ec);
      }
      return tl::unexpected(std::move(**first));
    }
    for (std::size_t i = 0; i < puts.size(); ++i)
      staged_.push_back({std::move(temps[i]), root_ / puts[i].path});
    return {};
  }

  util::Result<void> flush() override {
    if (staged_.empty()) return {};
    // Every file system the staged files are on (the target's, unless a
    // subdirectory is a mount point).
    std::vector<fs::path> dirs;
    for (const auto& s : staged_) {
      const fs::path dir = s.dest.parent_path();
      if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
    }
    // 1. Every staged file's bytes on disk before any of them gets its name,
    // so a crash never leaves a named torn file. One syncfs per file system:
    // their writeback is already under way, and it is one journal commit and
    // one disk cache flush for them all, where an fsync per file costs a
    // cache flush each (600 for 200 wheels: most of the publish's time).
    if (auto synced = sync_file_systems(dirs); !synced)
      return tl::unexpected(discard_staged(synced.error()));
    // 2. The names, in put order (a wheel, its metadata file, then its record).
    for (std::size_t i = 0; i < staged_.size(); ++i) {
      std::error_code ec;
      fs::rename(staged_[i].temp, staged_[i].dest, ec);
      if (ec) {
        const util::Error error = write_error(staged_[i].dest, ec.message());
        staged_.erase(staged_.begin(), staged_.begin() + static_cast<std::ptrdiff_t>(i));
        return tl::unexpected(discard_staged(error));
      }
    }
    staged_.clear();
    // 3. The renames durable (the directories' entries, new directories'
    // too) before the caller writes a page that names these files.
    return sync_file_systems(dirs);
  }

  // A publish that stopped before flush() leaves no temp files behind.
  ~DirectoryTarget() override {
    for (const auto& s : staged_) {
      std::error_code ec;
      fs::remove(s.temp, ec);
    }
  }

 private:
  struct Temp {
    fs::path path;
    util::UniqueFd fd;
  };
  struct Staged {
    fs::path temp, dest;
  };

  // Once per directory (create_directories stats every component).
  util::Result<void> make_parent(const fs::path& dest) {
    if (made_dirs_.contains(dest.parent_path())) return {};
    std::error_code ec;
    fs::create_directories(dest.parent_path(), ec);
    if (ec) return tl::unexpected(write_error(dest.parent_path(), ec.message()));
    made_dirs_.insert(dest.parent_path());
    return {};
  }

  // An extended attribute's value: nullopt inside when it is not set (or the
  // file system has none); nullopt outside when it could not be read.
  static std::optional<std::optional<std::string>> attribute(const fs::path& path,
                                                             const char* name) {
    std::string value(256, '\0');
    for (int attempt = 0; attempt < 4; ++attempt) {
      const ssize_t n = ::getxattr(path.c_str(), name, value.data(), value.size());
      if (n >= 0) {
        value.resize(static_cast<std::size_t>(n));
        return std::optional<std::string>(std::move(value));
      }
      if (errno == ENODATA || errno == ENOTSUP) return std::optional<std::string>();
      if (errno != ERANGE) return std::nullopt;
      value.resize(value.size() * 16);
    }
    return std::nullopt;
  }

  // `path` itself, or its nearest parent that exists.
  static fs::path nearest_existing(fs::path at) {
    std::error_code ec;
    while (!fs::exists(at, ec) && at.has_relative_path() && at != at.parent_path())
      at = at.parent_path();
    return at;
  }

  // The temp name beside a destination: a put's bytes wait there for flush().
  static fs::path temp_beside(const fs::path& dest) {
    return dest.parent_path() / fmt::format(".{}.tmp.{}", dest.filename().string(), ::getpid());
  }

  // A temp file beside `path`'s destination (its directory made already when
  // called from put_all's threads, which leave made_dirs_ alone).
  util::Result<Temp> create_temp(std::string_view path) {
    const fs::path dest = root_ / path;
    if (auto made = make_parent(dest); !made) return tl::unexpected(made.error());
    Temp t;
    t.path = temp_beside(dest);
    t.fd.reset(::open(t.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!t.fd) return tl::unexpected(write_error(t.path, std::strerror(errno)));
    return t;
  }

  // `content` in a temp file for `path`, its writeback started: the temp's path.
  util::Result<fs::path> write_temp(std::string_view path, std::string_view content) {
    auto temp = create_temp(path);
    if (!temp) return tl::unexpected(temp.error());
    if (!util::write_all(temp->fd.get(), content))
      return tl::unexpected(discard(temp->path, std::strerror(errno)));
    start_writeback(temp->fd.get());
    return std::move(temp->path);
  }

  // A copy of `source` in a temp file for `path`, refused (nothing left) when
  // the bytes copied are not `sha256`: the temp's path.
  util::Result<fs::path> copy_temp(std::string_view path, const fs::path& source,
                                   std::string_view sha256) {
    util::UniqueFd in(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
    if (!in) return tl::unexpected(read_error(source, std::strerror(errno)));
    auto temp = create_temp(path);
    if (!temp) return tl::unexpected(temp.error());
    // One pass: what is hashed is what is written (copy_file_range would keep
    // the bytes in the kernel, but proving them the inspected ones would then
    // be a second read).
    auto copied = util::copy_hashing(in.get(), temp->fd.get());
    if (!copied) {
      const std::string why = std::strerror(copied.error().error);
      std::error_code ec;
      fs::remove(temp->path, ec);
      return tl::unexpected(copied.error().reading ? read_error(source, why)
                                                   : write_error(temp->path, why));
    }
    if (copied->sha256 != sha256) {
      std::error_code ec;
      fs::remove(temp->path, ec);
      return tl::unexpected(changed_since_inspected(source, sha256, copied->sha256));
    }
    start_writeback(temp->fd.get());
    return std::move(temp->path);
  }

  // flashfit's own copy `source` (hashed when it was written) renamed to the
  // temp name beside `path`'s destination: no byte is read or written again.
  // Copied with the hashing copy when the rename fails (another file system).
  util::Result<fs::path> move_temp(std::string_view path, const fs::path& source,
                                   std::string_view sha256) {
    const fs::path dest = root_ / path;
    if (auto made = make_parent(dest); !made) return tl::unexpected(made.error());
    fs::path temp = temp_beside(dest);
    if (::rename(source.c_str(), temp.c_str()) == 0) return temp;
    if (errno == EXDEV) return copy_temp(path, source, sha256);
    return tl::unexpected(util::Error{
        util::ErrorKind::failed,
        fmt::format("cannot move {} to {}: {}", source.string(), temp.string(),
                    std::strerror(errno)),
        {},
        "publish again (the copy inspection made is gone: was flashfit's temp directory "
        "cleaned meanwhile?)"});
  }

  // Threads for `n` puts: one for a few (the order of a small publish's
  // writes stays fixed), else up to four.
  static unsigned worker_count(std::size_t n) {
    constexpr std::size_t kPutsPerThread = 16;
    const std::size_t wanted = n / kPutsPerThread;
    return static_cast<unsigned>(std::clamp<std::size_t>(
        std::min<std::size_t>(wanted, std::thread::hardware_concurrency()), 1, 4));
  }

  // Asks the kernel to start writing the file out now (not waiting for it).
  static void start_writeback(int fd) { ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE); }

  static util::Error discard(const fs::path& temp, const std::string& why) {
    std::error_code ec;
    fs::remove(temp, ec);
    return write_error(temp, why);
  }

  // Removes every staged temp file (none of them was renamed) and returns `error`.
  util::Error discard_staged(util::Error error) {
    for (const auto& s : staged_) {
      std::error_code ec;
      fs::remove(s.temp, ec);
    }
    staged_.clear();
    return error;
  }

  // syncfs(2) once per file system that holds one of `dirs`.
  static util::Result<void> sync_file_systems(const std::vector<fs::path>& dirs) {
    std::vector<dev_t> done;
    for (const auto& dir : dirs) {
      util::UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      struct stat st {};
      if (!fd || ::fstat(fd.get(), &st) != 0)
        return tl::unexpected(write_error(dir, std::strerror(errno)));
      if (std::find(done.begin(), done.end(), st.st_dev) != done.end()) continue;
      if (::syncfs(fd.get()) != 0)
        return tl::unexpected(
            write_error(dir, std::string("cannot flush: ") + std::strerror(errno)));
      done.push_back(st.st_dev);
    }
    return {};
  }

  fs::path root_;
  std::vector<Staged> staged_;
  std::set<fs::path> made_dirs_;
};

}  // namespace

util::Error changed_since_inspected(const fs::path& source, std::string_view inspected,
                                    std::string_view copied) {
  return util::Error{
      util::ErrorKind::failed,
      fmt::format("{} changed after it was inspected (sha256 {} then, {} now): not published",
                  source.string(), inspected, copied),
      {},
      "publish again once nothing is writing the wheel"};
}

std::unique_ptr<PublishTarget> directory_target(std::filesystem::path root) {
  return std::make_unique<DirectoryTarget>(std::move(root));
}

util::Result<std::unique_ptr<PublishTarget>> open_target(
    std::string_view target, const std::optional<std::string>& endpoint_url) {
  if (target.empty())
    return util::fail(util::ErrorKind::usage, "no target", "--to",
                      "give a directory or file:///path");
  if (target.rfind("s3://", 0) == 0) return s3_target(target, endpoint_url);
  if (target.rfind("file://", 0) == 0) {
    const std::string_view rest = target.substr(7);
    if (rest.empty() || rest.front() != '/') {
      return util::fail(util::ErrorKind::usage,
                        "a file:// URL needs an absolute path (file:///srv/wheels)",
                        std::string(target));
    }
    if (rest.find('%') != std::string_view::npos) {
      return util::fail(util::ErrorKind::usage, "percent-escapes in file:// URLs are not supported",
                        std::string(target), "give the directory path instead");
    }
    return directory_target(std::filesystem::path(rest));
  }
  if (target.find("://") != std::string_view::npos) {
    return util::fail(util::ErrorKind::usage, "unsupported target scheme", std::string(target),
                      "give a directory, file:///path or s3://BUCKET/PREFIX");
  }
  return directory_target(std::filesystem::absolute(std::filesystem::path(target)));
}

}  // namespace flashfit::workflow
