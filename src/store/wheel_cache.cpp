// The wheel cache: fetch (once per URL, under a lock), add, list, find,
// update, remove. gc is in cache_gc.cpp, the JSON in cache_entry_json.cpp,
// the layout in cache_layout.hpp.
#include "store/wheel_cache.hpp"

#include <fmt/format.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <set>
#include <tuple>

#include "net/http.hpp"
#include "pkg/variant.hpp"
#include "pkg/wheel_name.hpp"
#include "store/cache_layout.hpp"
#include "store/file_lock.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "util/utc_time.hpp"

namespace flashfit::store {
namespace {

using namespace detail;

// A download may take many minutes; another process fetching the same URL
// waits for it rather than download it twice. Entry metadata changes are quick.
constexpr std::chrono::hours kDownloadLockWait{2};
constexpr std::chrono::seconds kEntryLockWait{30};

util::Result<FileLock> lock_entry(const std::filesystem::path& root, const std::string& sha256) {
  return FileLock::acquire(entry_lock_path(root, sha256), kEntryLockWait,
                           "the cache entry " + sha256);
}

// A wheel file name that is safe to store and parses as a wheel.
util::Result<pkg::WheelName> check_wheel_filename(const std::string& filename) {
  if (!is_safe_basename(filename)) {
    return util::input_error(
        fmt::format("refusing the file name '{}'", util::printable(filename)), {},
        "a wheel's file name must be a plain name: no '/', no '..', no control characters");
  }
  auto name = pkg::parse_wheel_filename(filename);
  if (!name) {
    return util::input_error(fmt::format("'{}' is not a wheel file name: {}",
                                         util::printable(filename), name.error().message),
                             {}, "only wheels (name-version-python-abi-platform.whl) are cached");
  }
  return name;
}

// The last path segment of a URL, percent-decoded, without query and fragment.
std::string url_filename(std::string_view url) {
  url = url.substr(0, url.find_first_of("?#"));
  const auto slash = url.rfind('/');
  return net::percent_decode(slash == std::string_view::npos ? url : url.substr(slash + 1));
}

bool supported_url(std::string_view url) {
  const std::string lower = util::ascii_lower(url.substr(0, 8));
  return util::starts_with(url, "/") || util::starts_with(lower, "http://") ||
         util::starts_with(lower, "https://") || util::starts_with(lower, "file://");
}

// Distinct values of one tag field, joined with '.' as compressed tag sets are.
template <class Field>
std::string joined_tag_field(const pkg::WheelName& name, Field field) {
  std::set<std::string> values;
  for (const pkg::Tag& tag : name.tags) values.insert(tag.*field);
  std::vector<std::string> list(values.begin(), values.end());
  return util::join(list, ".");
}

CacheEntry new_entry(const pkg::WheelName& name, const std::string& filename,
                     const std::string& sha256, std::uint64_t size,
                     const std::optional<std::string>& url, const EntryOrigin& origin) {
  CacheEntry e;
  e.sha256 = sha256;
  e.filename = filename;
  e.package = name.canonical_name;
  e.version = name.version.str();
  if (url) e.urls.push_back(url_key(*url));
  e.origin = origin;
  e.size = size;
  e.added_at = e.last_used_at = util::now_utc();
  e.record.python = joined_tag_field(name, &pkg::Tag::interpreter);
  e.record.platform = joined_tag_field(name, &pkg::Tag::platform);
  const pkg::VariantLabel label = pkg::decode_variant(name.version.local());
  if (label.known()) {
    if (label.torch) {
      if (auto torch = pkg::Version::parse(label.torch->str())) e.record.torch = std::move(*torch);
    }
    if (label.cuda) e.record.cuda = BuiltCuda{*label.cuda};
    e.record.cxx11_abi = label.cxx11_abi;
  }
  return e;
}

util::Result<void> write_entry(const std::filesystem::path& dir, const CacheEntry& entry) {
  return util::write_file_atomic(dir / kEntryFile, entry_to_json(entry));
}

// Under the entry's lock: re-reads it, applies `change`, writes it back.
util::Result<CacheEntry> modify_entry(const std::filesystem::path& root, const std::string& sha256,
                                      const std::function<void(CacheEntry&)>& change) {
  auto lock = lock_entry(root, sha256);
  if (!lock) return tl::unexpected(lock.error());
  const auto dir = entry_dir(root, sha256);
  auto entry = read_entry_dir(dir);
  if (!entry) return tl::unexpected(std::move(entry.error()).with_context(dir.string()));
  change(*entry);
  if (auto written = write_entry(dir, *entry); !written) return tl::unexpected(written.error());
  return entry;
}

// A use: the URL remembered (fetch by another URL finds it too) and the clock reset for gc.
util::Result<CacheEntry> touch(const std::filesystem::path& root, const std::string& sha256,
                               const std::optional<std::string>& url) {
  return modify_entry(root, sha256, [&](CacheEntry& e) {
    e.last_used_at = util::now_utc();
    if (url && std::find(e.urls.begin(), e.urls.end(), url_key(*url)) == e.urls.end()) {
      e.urls.push_back(url_key(*url));
    }
  });
}

// Moves a finished, verified wheel file into a complete entry: a temp
// directory with the wheel and entry.json, renamed into place in one step.
// When the entry exists already (same bytes from another URL, or another
// process was quicker) the existing one is used and the file dropped.
util::Result<CacheEntry> install_entry(const std::filesystem::path& root,
                                       const std::filesystem::path& file,
                                       const pkg::WheelName& name, const std::string& filename,
                                       const std::string& sha256, std::uint64_t size,
                                       const std::optional<std::string>& url,
                                       const EntryOrigin& origin) {
  std::error_code ec;
  const auto dir = entry_dir(root, sha256);
  auto drop_file = [&] { std::filesystem::remove(file, ec); };
  for (int round = 0; round < 3; ++round) {
    if (std::filesystem::exists(dir, ec)) {
      auto existing = touch(root, sha256, url);
      if (existing) {
        drop_file();
        return existing;
      }
      // An unreadable directory in the way (hand-edited, or foreign): replace it.
      auto lock = lock_entry(root, sha256);
      if (!lock) return tl::unexpected(lock.error());
      if (!read_entry_dir(dir)) {
        if (auto gone = discard_dir(root, dir); !gone) return tl::unexpected(gone.error());
      }
      continue;
    }
    std::string temp = (root / "tmp" / "entry-XXXXXX").string();
    if (::mkdtemp(temp.data()) == nullptr) {
      return util::fail(util::ErrorKind::failed,
                        fmt::format("cannot create a directory in {}: {}", (root / "tmp").string(),
                                    std::strerror(errno)));
    }
    const std::filesystem::path temp_dir(temp);
    const CacheEntry entry = new_entry(name, filename, sha256, size, url, origin);
    if (::rename(file.c_str(), (temp_dir / filename).c_str()) != 0) {
      const int saved = errno;
      std::filesystem::remove_all(temp_dir, ec);
      return util::fail(util::ErrorKind::failed, fmt::format("cannot move {} into the cache: {}",
                                                             file.string(), std::strerror(saved)));
    }
    if (auto written = write_entry(temp_dir, entry); !written) {
      std::filesystem::remove_all(temp_dir, ec);
      return tl::unexpected(written.error());
    }
    std::filesystem::create_directories(dir.parent_path(), ec);
    if (::rename(temp_dir.c_str(), dir.c_str()) == 0) {
      (void)util::sync_directory(dir.parent_path());
      CacheEntry out = entry;
      out.path = dir / filename;
      return out;
    }
    const int saved = errno;
    if (saved != EEXIST && saved != ENOTEMPTY) {
      std::filesystem::remove_all(temp_dir, ec);
      return util::fail(util::ErrorKind::failed, fmt::format("cannot move the entry into {}: {}",
                                                             dir.string(), std::strerror(saved)));
    }
    // Someone else stored the same bytes meanwhile: take the file back and use theirs.
    (void)::rename((temp_dir / filename).c_str(), file.c_str());
    std::filesystem::remove_all(temp_dir, ec);
  }
  drop_file();
  return util::fail(util::ErrorKind::failed,
                    fmt::format("cannot store the entry {}", dir.string()));
}

// The entry the URL index names, when it is there, whole, and (when a
// sha256 is expected) the expected one.
std::optional<CacheEntry> lookup_url(const std::filesystem::path& root, const std::string& url,
                                     const std::optional<std::string>& expected) {
  auto indexed = util::read_small_file(url_index_path(root, url), 256);
  if (!indexed) return std::nullopt;
  const std::string sha(util::trim(*indexed));
  if (!is_sha256_hex(sha) || (expected && *expected != sha)) return std::nullopt;
  auto entry = read_entry_dir(entry_dir(root, sha));
  if (!entry) return std::nullopt;
  return *entry;
}

// Not fsynced: the index is a hint. Lost or empty after a crash it names no
// entry (lookup_url checks the sha256 and the entry), and the URL is fetched again.
util::Result<void> index_url(const std::filesystem::path& root, const std::string& url,
                             const std::string& sha) {
  return util::write_file_atomic(url_index_path(root, url), sha + "\n",
                                 util::Durability::atomic_only);
}

}  // namespace

util::Result<WheelCache> WheelCache::open(const std::filesystem::path& cache_root) {
  WheelCache cache;
  cache.root_ = cache_root / "wheels";
  for (const char* sub : {"urls", "locks", "tmp"}) {
    if (!util::ensure_cache_dir(cache_root, cache.root_ / sub)) {
      return util::fail(
          util::ErrorKind::failed,
          fmt::format("cannot create the cache directory {}", (cache.root_ / sub).string()), {},
          "check the permissions, or point FLASHFIT_CACHE_DIR elsewhere");
    }
  }
  return cache;
}

util::Result<CacheEntry> WheelCache::fetch(const std::string& url,
                                           const std::optional<std::string>& expected_sha256,
                                           const EntryOrigin& origin,
                                           net::DownloadRequest options) {
  if (!supported_url(url)) {
    return util::input_error(
        fmt::format("cannot fetch '{}': not an http(s):// or file:// URL or an absolute path",
                    util::printable(url)));
  }
  const std::string filename = url_filename(url);
  auto name = check_wheel_filename(filename);
  if (!name) return tl::unexpected(std::move(name.error()).with_context(util::printable(url, 300)));
  std::optional<std::string> expected;
  if (expected_sha256) {
    expected = util::ascii_lower(*expected_sha256);
    if (!is_sha256_hex(*expected)) {
      return util::input_error(
          fmt::format("'{}' is not a sha256 (64 hex digits)", util::printable(*expected_sha256)));
    }
  }

  // Known URL, or known bytes under another URL: no download, no lock.
  if (auto hit = lookup_url(root_, url, expected)) return touch(root_, hit->sha256, url);
  if (expected && find_sha256(*expected)) {
    auto entry = touch(root_, *expected, url);
    if (entry) (void)index_url(root_, url, entry->sha256);
    return entry;
  }

  const std::string label = options.label.empty() ? filename : options.label;
  auto lock = FileLock::acquire(
      url_lock_path(root_, url), kDownloadLockWait, "the download of " + label, [&] {
        if (!options.quiet)
          std::fprintf(stderr, "waiting for another flashfit process downloading %s\n",
                       util::printable(label, 300).c_str());
      });
  if (!lock) return tl::unexpected(lock.error());
  // The process we waited for may have stored it.
  if (auto hit = lookup_url(root_, url, expected)) return touch(root_, hit->sha256, url);

  // Keyed by URL, so a .part left by a killed process is resumed here.
  const auto download = root_ / "tmp" / (util::sha256_hex(url_key(url)) + ".download");
  std::error_code ec;
  std::filesystem::remove(download, ec);
  options.url = url_key(url);
  options.destination = download;
  options.expected_sha256 = expected;
  options.label = label;
  options.durable_name = false;  // install_entry moves it into the entry and syncs there
  auto fetched = net::download_file(options);
  if (!fetched) return tl::unexpected(fetched.error());  // it names the URL

  // An HTML error page served with 200 is the usual impostor.
  char magic[4] = {};
  std::FILE* in = std::fopen(download.c_str(), "rb");
  const bool zip =
      in != nullptr && std::fread(magic, 1, 4, in) == 4 && std::memcmp(magic, "PK\x03\x04", 4) == 0;
  if (in != nullptr) std::fclose(in);
  if (!zip) {
    std::filesystem::remove(download, ec);
    return util::input_error(
        fmt::format("{} is not a wheel: the downloaded file is not a zip archive",
                    util::printable(url, 300)),
        {}, "the server may have sent an error or login page instead of the file");
  }
  auto entry =
      install_entry(root_, download, *name, filename, fetched->sha256, fetched->bytes, url, origin);
  if (!entry) return entry;
  if (auto indexed = index_url(root_, url, entry->sha256); !indexed)
    return tl::unexpected(indexed.error());
  return entry;
}

util::Result<CacheEntry> WheelCache::add(const std::filesystem::path& wheel,
                                         const EntryOrigin& origin) {
  const std::string filename = wheel.filename().string();
  auto name = check_wheel_filename(filename);
  if (!name)
    return tl::unexpected(
        std::move(name.error()).with_context(util::printable(wheel.string(), 300)));
  std::string temp = (root_ / "tmp" / "add-XXXXXX").string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    return util::fail(util::ErrorKind::failed,
                      fmt::format("cannot create a file in {}: {}", (root_ / "tmp").string(),
                                  std::strerror(errno)));
  }
  ::close(fd);
  net::DownloadRequest copy;
  copy.url = std::filesystem::absolute(wheel).string();
  copy.destination = temp;
  copy.quiet = true;
  copy.durable_name = false;  // as in fetch
  auto copied = net::download_file(copy);
  std::error_code ec;
  if (!copied) {
    std::filesystem::remove(temp, ec);
    return tl::unexpected(copied.error());
  }
  return install_entry(root_, temp, *name, filename, copied->sha256, copied->bytes, std::nullopt,
                       origin);
}

std::vector<CacheEntry> WheelCache::list(std::vector<std::string>* warnings) const {
  std::vector<CacheEntry> out;
  std::error_code ec;
  auto warn = [&](const std::filesystem::path& where, const std::string& why) {
    if (warnings)
      warnings->push_back(
          fmt::format("skipping {}: {}", util::printable(where.string(), 300), why));
  };
  for (std::filesystem::directory_iterator shard(root_, ec), end; !ec && shard != end;
       shard.increment(ec)) {
    const std::string prefix = shard->path().filename().string();
    if (prefix.size() != 2 || !shard->is_directory(ec))
      continue;  // urls/, locks/, tmp/, CACHEDIR.TAG
    std::error_code inner;
    for (std::filesystem::directory_iterator it(shard->path(), inner); !inner && it != end;
         it.increment(inner)) {
      const std::string sha = it->path().filename().string();
      if (!is_sha256_hex(sha) || sha.compare(0, 2, prefix) != 0) {
        warn(it->path(), "not a cache entry");
        continue;
      }
      auto entry = read_entry_dir(it->path());
      if (!entry) {
        warn(it->path(), entry.error().message);
        continue;
      }
      out.push_back(std::move(*entry));
    }
  }
  std::sort(out.begin(), out.end(), [](const CacheEntry& a, const CacheEntry& b) {
    return std::tie(a.package, a.filename, a.sha256) < std::tie(b.package, b.filename, b.sha256);
  });
  return out;
}

std::optional<CacheEntry> WheelCache::find_sha256(const std::string& sha256) const {
  const std::string sha = util::ascii_lower(sha256);
  if (!is_sha256_hex(sha)) return std::nullopt;
  auto entry = read_entry_dir(entry_dir(root_, sha));
  if (!entry) return std::nullopt;
  return *entry;
}

util::Result<void> WheelCache::update(const CacheEntry& entry) {
  if (!is_sha256_hex(entry.sha256)) {
    return util::input_error(fmt::format("'{}' is not a sha256", util::printable(entry.sha256)));
  }
  // What the caller may change; the identity of the bytes stays, and URLs
  // another process added meanwhile are kept.
  auto updated = modify_entry(root_, entry.sha256, [&](CacheEntry& e) {
    std::vector<std::string> urls = e.urls;
    for (const std::string& url : entry.urls) {
      if (std::find(urls.begin(), urls.end(), url) == urls.end()) urls.push_back(url);
    }
    e.urls = std::move(urls);
    // An origin the caller does not know (a fetched entry without a name) leaves it.
    if (entry.origin != EntryOrigin{}) e.origin = entry.origin;
    e.last_used_at = entry.last_used_at.empty() ? e.last_used_at : entry.last_used_at;
    e.record = entry.record;
    e.inspections = entry.inspections;
    e.installed_in = entry.installed_in;
  });
  if (!updated) return tl::unexpected(updated.error());
  return {};
}

util::Result<void> WheelCache::remove(const std::string& sha256) {
  const std::string sha = util::ascii_lower(sha256);
  if (!is_sha256_hex(sha)) {
    return util::input_error(
        fmt::format("'{}' is not a sha256 (64 hex digits)", util::printable(sha256)));
  }
  auto lock = lock_entry(root_, sha);
  if (!lock) return tl::unexpected(lock.error());
  const auto dir = entry_dir(root_, sha);
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return util::input_error(fmt::format("no cached wheel has the sha256 {}", sha));
  }
  return remove_entry_unlocked(root_, sha);
}

}  // namespace flashfit::store
