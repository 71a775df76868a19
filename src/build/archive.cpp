// Unpacks source archives. libarchive reads them; this file writes every
// entry itself (not archive_write_disk) so that each byte on disk has passed
// the checks: names stay inside the tree, nothing is written through a link,
// links point inside, sizes are counted as written rather than as declared.
// The tree is built in a private temp dir beside the destination and renamed
// into place only when the whole archive was read.
#include "build/archive.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

#include "build/source_archive_path.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"
#include "util/unique_fd.hpp"
#include "util/write_all.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;

struct ReaderFree {
  void operator()(struct archive* a) const noexcept { archive_read_free(a); }
};
using Reader = std::unique_ptr<struct archive, ReaderFree>;

// What the file system says about names it cannot take is the archive's
// fault; the rest (disk full, permissions) is the machine's.
util::ErrorKind errno_kind(int err) {
  return err == ENAMETOOLONG || err == EILSEQ || err == ELOOP ? util::ErrorKind::input
                                                              : util::ErrorKind::failed;
}

// Too many hops while resolving a link: the kernel's own limit (ELOOP).
constexpr int kMaxLinkHops = 40;
constexpr std::size_t kCopyBlock = std::size_t{256} * 1024;

class Extractor {
 public:
  Extractor(const fs::path& archive, const fs::path& root, const ExtractLimits& limits)
      : archive_(archive),
        root_(root),
        limits_(limits),
        where_(util::printable(archive.string(), 400)) {}

  util::Result<void> run();

  // The single top-level directory's name, when the archive has exactly one.
  std::optional<std::string> single_top_dir() const;

 private:
  util::Result<void> entry(struct archive_entry* e, const std::string& name);
  util::Result<void> make_dirs(const std::vector<std::string>& parts, std::size_t count,
                               const std::string& name, mode_t last_mode);
  util::Result<void> clear_place(const std::string& rel, const std::string& name);
  util::Result<void> write_file(struct archive_entry* e, const std::string& rel,
                                const std::string& name);
  util::Result<void> check_links() const;
  bool stays_inside(std::vector<std::string> dir, const std::string& target) const;

  tl::unexpected<util::Error> refuse(const std::string& name, const std::string& why) const {
    return util::input_error(
        fmt::format("refused entry '{}': {}", util::printable(name), why), where_,
        "the archive is damaged or hostile; get the source from a trusted place");
  }
  tl::unexpected<util::Error> unreadable(const std::string& what) const {
    return util::input_error(
        fmt::format("cannot read the archive: {}", what), where_,
        "the file is truncated or not a .tar.gz/.tar.bz2/.tar.xz/.zip; download it again");
  }
  tl::unexpected<util::Error> io_error(int err, const std::string& name,
                                       const std::string& what) const {
    return util::fail(errno_kind(err),
                      fmt::format("cannot {} for entry '{}': {}", what, util::printable(name),
                                  std::strerror(err)),
                      where_);
  }
  std::string archive_error() const {
    const char* text = archive_error_string(reader_.get());
    return text ? util::printable(text) : std::string("unknown libarchive error");
  }

  fs::path archive_;
  fs::path root_;
  ExtractLimits limits_;
  std::string where_;
  Reader reader_;
  std::uint64_t entries_ = 0;
  std::uint64_t total_bytes_ = 0;
  std::unordered_set<std::string> dirs_;  // verified real directories (relative)
  std::set<std::string> links_;           // symbolic links written (relative)
  std::set<std::string> tops_;            // first components seen (two are enough)
  // Not zero-filled: read into before it is read from, and most archives'
  // entries are far smaller than the block (zeroing it was a tenth of a
  // small archive's extraction).
  std::unique_ptr<char[]> buffer_ = std::make_unique_for_overwrite<char[]>(kCopyBlock);
};

util::Result<void> Extractor::run() {
  reader_.reset(archive_read_new());
  if (!reader_)
    return util::fail(util::ErrorKind::failed, "cannot allocate an archive reader", where_);
  // Only the formats and filters sdists use: no external programs, no
  // exotic formats that widen what hostile input can reach.
  archive_read_support_format_tar(reader_.get());
  archive_read_support_format_zip(reader_.get());
  archive_read_support_filter_gzip(reader_.get());
  archive_read_support_filter_bzip2(reader_.get());
  archive_read_support_filter_xz(reader_.get());
  if (archive_read_open_filename(reader_.get(), archive_.c_str(), std::size_t{64} * 1024) !=
      ARCHIVE_OK) {
    return unreadable(archive_error());
  }
  for (;;) {
    if (util::interrupted())
      return util::fail(util::ErrorKind::interrupted, "interrupted while unpacking", where_);
    struct archive_entry* e = nullptr;
    const int rc = archive_read_next_header(reader_.get(), &e);
    if (rc == ARCHIVE_EOF) break;
    // A warning is about a name's character set, not the data.
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) return unreadable(archive_error());
    if (++entries_ > limits_.max_entries) {
      return util::input_error(
          fmt::format("the archive has more than {} entries", limits_.max_entries), where_,
          "this is not a source distribution flashfit will unpack");
    }
    const char* raw = archive_entry_pathname(e);
    if (raw == nullptr) raw = archive_entry_pathname_utf8(e);
    if (raw == nullptr) return refuse(fmt::format("#{}", entries_), "its name cannot be read");
    const std::string name(raw);
    if (auto done = entry(e, name); !done) return done;
  }
  if (tops_.empty()) {
    return util::input_error("the archive is empty", where_,
                             "a source archive holds setup.py or pyproject.toml");
  }
  return check_links();
}

util::Result<void> Extractor::entry(struct archive_entry* e, const std::string& name) {
  auto parts = detail::split_entry_path(name);
  if (!parts) return refuse(name, parts.error().message);
  if (parts->empty()) return {};  // "./": the root itself
  if (tops_.size() < 2) tops_.insert(parts->front());
  const std::string rel = detail::join_entry_path(*parts, parts->size());
  const mode_t type = archive_entry_filetype(e);
  // setuid, setgid and sticky bits are dropped: a build tree has no use for them.
  const mode_t perm = archive_entry_perm(e) & 0777;

  if (const char* hardlink = archive_entry_hardlink(e)) {
    auto target = detail::split_entry_path(hardlink);
    if (!target || target->empty()) {
      return refuse(name, fmt::format("it is a hard link to '{}', outside the archive",
                                      util::printable(hardlink)));
    }
    // The target must be a regular file this archive already wrote, reached
    // through real directories only.
    for (std::size_t i = 0; i + 1 < target->size(); ++i) {
      if (!dirs_.count(detail::join_entry_path(*target, i + 1))) {
        return refuse(name,
                      fmt::format("it is a hard link to '{}', which is not a file of the archive",
                                  util::printable(hardlink)));
      }
    }
    const std::string target_rel = detail::join_entry_path(*target, target->size());
    struct stat st {};
    if (::lstat((root_ / target_rel).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      return refuse(name,
                    fmt::format("it is a hard link to '{}', which is not a file of the archive",
                                util::printable(hardlink)));
    }
    if (target_rel == rel) return {};  // a link to itself changes nothing
    if (auto made = make_dirs(*parts, parts->size() - 1, name, 0755); !made) return made;
    if (auto cleared = clear_place(rel, name); !cleared) return cleared;
    if (::link((root_ / target_rel).c_str(), (root_ / rel).c_str()) != 0) {
      return io_error(errno, name, "create a hard link");
    }
    return {};
  }

  switch (type) {
    case AE_IFDIR:
      return make_dirs(*parts, parts->size(), name, perm | 0700);
    case AE_IFREG: {
      if (archive_entry_size_is_set(e) &&
          (archive_entry_size(e) < 0 ||
           static_cast<std::uint64_t>(archive_entry_size(e)) > limits_.max_entry_bytes)) {
        return refuse(name, fmt::format("it declares {} bytes, over the limit of {} for one file",
                                        archive_entry_size(e), limits_.max_entry_bytes));
      }
      if (auto made = make_dirs(*parts, parts->size() - 1, name, 0755); !made) return made;
      if (auto cleared = clear_place(rel, name); !cleared) return cleared;
      return write_file(e, rel, name);
    }
    case AE_IFLNK: {
      const char* target = archive_entry_symlink(e);
      if (target == nullptr) target = archive_entry_symlink_utf8(e);
      if (target == nullptr) return refuse(name, "its link target cannot be read");
      std::vector<std::string> dir(parts->begin(), parts->end() - 1);
      if (auto inside = detail::check_link_target(dir, target); !inside)
        return refuse(name, inside.error().message);
      if (auto made = make_dirs(*parts, parts->size() - 1, name, 0755); !made) return made;
      if (auto cleared = clear_place(rel, name); !cleared) return cleared;
      if (::symlink(target, (root_ / rel).c_str()) != 0)
        return io_error(errno, name, "create a symbolic link");
      links_.insert(rel);
      return {};
    }
    case AE_IFCHR:
    case AE_IFBLK:
      return refuse(name, "it is a device file");
    case AE_IFIFO:
      return refuse(name, "it is a FIFO");
    case AE_IFSOCK:
      return refuse(name, "it is a socket");
    default:
      return refuse(name,
                    fmt::format("it has an unknown file type ({:o})", static_cast<unsigned>(type)));
  }
}

// Creates (or checks) the first `count` components as real directories: an
// existing link or file on the way is refused, so nothing is ever written
// through a link, wherever it points.
util::Result<void> Extractor::make_dirs(const std::vector<std::string>& parts, std::size_t count,
                                        const std::string& name, mode_t last_mode) {
  for (std::size_t i = 0; i < count; ++i) {
    std::string rel = detail::join_entry_path(parts, i + 1);
    if (dirs_.count(rel)) continue;
    const fs::path full = root_ / rel;
    struct stat st {};
    if (::lstat(full.c_str(), &st) != 0) {
      if (errno != ENOENT) return io_error(errno, name, "inspect '" + util::printable(rel) + "'");
      // Owner rwx always: the build writes into the tree and the cleanup removes it.
      const mode_t mode = i + 1 == count ? (last_mode | 0700) : 0755;
      if (::mkdir(full.c_str(), mode) != 0) return io_error(errno, name, "create a directory");
    } else if (S_ISLNK(st.st_mode)) {
      return refuse(
          name, fmt::format("its path goes through the symbolic link '{}'", util::printable(rel)));
    } else if (!S_ISDIR(st.st_mode)) {
      return refuse(name, fmt::format("its path goes through the file '{}'", util::printable(rel)));
    }
    dirs_.insert(std::move(rel));
  }
  return {};
}

// A later entry of the same name replaces an earlier file or link (tar's
// rule); replacing a directory would orphan what is in it, so it is refused.
util::Result<void> Extractor::clear_place(const std::string& rel, const std::string& name) {
  const fs::path full = root_ / rel;
  struct stat st {};
  if (::lstat(full.c_str(), &st) != 0) {
    if (errno == ENOENT) return {};
    return io_error(errno, name, "inspect the entry's place");
  }
  if (S_ISDIR(st.st_mode)) return refuse(name, "it would replace a directory of an earlier entry");
  if (::unlink(full.c_str()) != 0) return io_error(errno, name, "replace an earlier entry");
  links_.erase(rel);
  return {};
}

util::Result<void> Extractor::write_file(struct archive_entry* e, const std::string& rel,
                                         const std::string& name) {
  mode_t perm = archive_entry_perm(e) & 0777;
  if (perm == 0) perm = 0644;  // zips made without Unix attributes
  util::UniqueFd fd(::open((root_ / rel).c_str(),
                           O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, perm | S_IRUSR));
  if (fd.get() < 0) return io_error(errno, name, "create the file");
  std::uint64_t written = 0;
  for (;;) {
    const la_ssize_t n = archive_read_data(reader_.get(), buffer_.get(), kCopyBlock);
    if (n == 0) break;
    if (n < 0)
      return unreadable(fmt::format("entry '{}': {}", util::printable(name), archive_error()));
    const auto count = static_cast<std::uint64_t>(n);
    written += count;
    total_bytes_ += count;
    if (written > limits_.max_entry_bytes) {
      return refuse(name, fmt::format("it unpacks to more than {} bytes, the limit for one file",
                                      limits_.max_entry_bytes));
    }
    if (total_bytes_ > limits_.max_total_bytes) {
      return util::input_error(
          fmt::format("the archive unpacks to more than {} bytes (the limit), at entry '{}'",
                      limits_.max_total_bytes, util::printable(name)),
          where_, "the archive is damaged or hostile; get the source from a trusted place");
    }
    if (!util::write_all(fd.get(), buffer_.get(), static_cast<std::size_t>(n)))
      return io_error(errno, name, "write the file");
    if (util::interrupted())
      return util::fail(util::ErrorKind::interrupted, "interrupted while unpacking", where_);
  }
  if (archive_entry_mtime_is_set(e)) {
    // Builds that compare timestamps see the archive's, as tar restores them.
    const std::array<struct timespec, 2> times{
        timespec{0, UTIME_OMIT}, timespec{archive_entry_mtime(e), archive_entry_mtime_nsec(e)}};
    (void)::futimens(fd.get(), times.data());
  }
  if (::close(fd.release()) != 0) return io_error(errno, name, "write the file");
  return {};
}

// Resolves a link target the way the kernel would, but inside the temp tree:
// each link met on the way is followed, and climbing above the root at any
// step is outside. Names that do not exist are taken as written.
bool Extractor::stays_inside(std::vector<std::string> dir, const std::string& target) const {
  std::vector<std::string> pending;  // components still to walk, in reverse order
  auto push_target = [&pending](std::string_view text) {
    std::vector<std::string_view> parts = util::split(text, '/');
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) pending.emplace_back(*it);
  };
  push_target(target);
  int hops = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.back());
    pending.pop_back();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (dir.empty()) return false;
      dir.pop_back();
      continue;
    }
    dir.push_back(part);
    const fs::path full = root_ / detail::join_entry_path(dir, dir.size());
    struct stat st {};
    if (::lstat(full.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      if (++hops > kMaxLinkHops) return false;
      std::error_code ec;
      const fs::path next = fs::read_symlink(full, ec);
      if (ec || next.empty() || next.is_absolute()) return false;
      dir.pop_back();
      push_target(next.string());
    }
  }
  return true;
}

// Targets read as written were checked entry by entry; through other links a
// target can still lead out ("b -> ." and "a -> b/../x"), so each link is
// resolved once the tree is complete.
util::Result<void> Extractor::check_links() const {
  for (const std::string& rel : links_) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(root_ / rel, ec);
    if (ec) continue;  // replaced by a later entry
    auto parts = detail::split_entry_path(rel);
    std::vector<std::string> dir = parts ? *parts : std::vector<std::string>{};
    if (!dir.empty()) dir.pop_back();
    if (!stays_inside(std::move(dir), target.string())) {
      return refuse(
          rel,
          fmt::format("the symbolic link to '{}' does not resolve inside the archive (it leads out "
                      "through other links, or loops)",
                      util::printable(target.string())));
    }
  }
  return {};
}

std::optional<std::string> Extractor::single_top_dir() const {
  if (tops_.size() != 1) return std::nullopt;
  struct stat st {};
  if (::lstat((root_ / *tops_.begin()).c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return std::nullopt;
  return *tops_.begin();
}

}  // namespace

bool is_source_archive_name(const std::string& filename) {
  const std::string lower = util::ascii_lower(filename);
  for (const char* ext : {".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".zip"}) {
    if (util::ends_with(lower, ext) && lower.size() > std::strlen(ext)) return true;
  }
  return false;
}

util::Result<fs::path> extract_archive(const fs::path& archive, const fs::path& destination,
                                       const ExtractLimits& limits) {
  const std::string where = util::printable(archive.string(), 400);
  std::error_code ec;
  const fs::file_status status = fs::status(archive, ec);
  if (!fs::exists(status)) return util::input_error("no such archive", where);
  if (!fs::is_regular_file(status)) return util::input_error("not a file", where);
  if (fs::exists(fs::symlink_status(destination, ec))) {
    return util::fail(
        util::ErrorKind::failed,
        fmt::format("the destination {} already exists", util::printable(destination.string())),
        where);
  }
  fs::path parent = destination.parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, ec)) {
    return util::fail(
        util::ErrorKind::failed,
        fmt::format("the directory {} does not exist", util::printable(parent.string())), where);
  }
  std::string pattern =
      (parent / ("." + destination.filename().string() + ".unpack-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return util::fail(util::ErrorKind::failed,
                      fmt::format("cannot create a temp directory in {}: {}",
                                  util::printable(parent.string()), std::strerror(errno)),
                      where);
  }
  const fs::path temp = pattern;
  auto discard = [&temp] {
    std::error_code ignored;
    fs::remove_all(temp, ignored);
  };

  Extractor extractor(archive, temp, limits);
  if (auto done = extractor.run(); !done) {
    discard();
    return tl::unexpected(std::move(done.error()));
  }
  const std::optional<std::string> top = extractor.single_top_dir();
  // mkdtemp made it 0700; the tree is the user's like any unpacked tarball.
  (void)::chmod(temp.c_str(), 0755);
  if (::rename(temp.c_str(), destination.c_str()) != 0) {
    const int err = errno;
    discard();
    return util::fail(util::ErrorKind::failed,
                      fmt::format("cannot move the unpacked tree to {}: {}",
                                  util::printable(destination.string()), std::strerror(err)),
                      where);
  }
  return top ? destination / *top : destination;
}

}  // namespace flashfit::build
