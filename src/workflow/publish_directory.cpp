// The directory (and file://) publish target.
#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>

#include "store/file_lock.hpp"
#include "util/atomic_file.hpp"
#include "util/unique_fd.hpp"
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

  util::Result<void> put_file(std::string_view path, const fs::path& source) override {
    const fs::path dest = root_ / path;
    std::error_code ec;
    fs::create_directories(dest.parent_path(), ec);
    if (ec) return tl::unexpected(write_error(dest.parent_path(), ec.message()));
    const fs::path temp =
        dest.parent_path() / fmt::format(".{}.tmp.{}", dest.filename().string(), ::getpid());
    fs::copy_file(source, temp, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      fs::remove(temp, ec);
      return tl::unexpected(write_error(dest.parent_path(), ec.message()));
    }
    util::UniqueFd fd(::open(temp.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd || ::fsync(fd.get()) != 0) {
      const std::string why = std::strerror(errno);
      fs::remove(temp, ec);
      return tl::unexpected(write_error(temp, why));
    }
    return rename_into_place(temp, dest);
  }

  util::Result<void> flush() override {
    for (const auto& dir : unsynced_dirs_) {
      if (auto synced = util::sync_directory(dir); !synced) return synced;
    }
    unsynced_dirs_.clear();
    return {};
  }

  util::Result<void> put_bytes(std::string_view path, std::string_view content) override {
    const fs::path dest = root_ / path;
    std::error_code ec;
    fs::create_directories(dest.parent_path(), ec);
    if (ec) return tl::unexpected(write_error(dest.parent_path(), ec.message()));
    // Each file's bytes are fsynced before its rename (never an empty page
    // after a crash); the directories once, in flush().
    const fs::path temp =
        dest.parent_path() / fmt::format(".{}.tmp.{}", dest.filename().string(), ::getpid());
    {
      util::UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
      if (!fd) return tl::unexpected(write_error(temp, std::strerror(errno)));
      std::string_view rest = content;
      while (!rest.empty()) {
        const ssize_t n = ::write(fd.get(), rest.data(), rest.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          const std::string why = std::strerror(errno);
          fs::remove(temp, ec);
          return tl::unexpected(write_error(temp, why));
        }
        rest.remove_prefix(static_cast<std::size_t>(n));
      }
      if (::fsync(fd.get()) != 0) {
        const std::string why = std::strerror(errno);
        fs::remove(temp, ec);
        return tl::unexpected(write_error(temp, why));
      }
    }
    return rename_into_place(temp, dest);
  }

 private:
  // Renames a synced temp file over `dest`; its directory is fsynced by flush().
  util::Result<void> rename_into_place(const fs::path& temp, const fs::path& dest) {
    std::error_code ec;
    fs::rename(temp, dest, ec);
    if (ec) {
      const std::string why = ec.message();
      fs::remove(temp, ec);
      return tl::unexpected(write_error(dest, why));
    }
    const fs::path dir = dest.parent_path();
    if (std::find(unsynced_dirs_.begin(), unsynced_dirs_.end(), dir) == unsynced_dirs_.end())
      unsynced_dirs_.push_back(dir);
    return {};
  }

  fs::path root_;
  std::vector<fs::path> unsynced_dirs_;
};

}  // namespace

std::unique_ptr<PublishTarget> directory_target(std::filesystem::path root) {
  return std::make_unique<DirectoryTarget>(std::move(root));
}

util::Result<std::unique_ptr<PublishTarget>> open_target(std::string_view target,
                                                         std::optional<std::string> endpoint_url) {
  if (target.empty())
    return util::fail(util::ErrorKind::usage, "no target", "--to",
                      "give a directory or file:///path");
  if (target.rfind("s3://", 0) == 0) return s3_target(target, std::move(endpoint_url));
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
