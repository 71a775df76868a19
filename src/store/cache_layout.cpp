#include "store/cache_layout.hpp"

#include <fmt/format.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "util/atomic_file.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

namespace flashfit::store::detail {

bool is_sha256_hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool is_safe_basename(std::string_view name) {
  if (name.empty() || name.size() > 255 || name == "." || name == "..") return false;
  for (char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '/' || c == '\\' || byte < 0x20 || byte >= 0x7f) return false;
  }
  return true;
}

std::filesystem::path entry_dir(const std::filesystem::path& root, const std::string& sha256) {
  return root / sha256.substr(0, 2) / sha256;
}

std::string url_key(std::string_view url) {
  return std::string(url.substr(0, url.find('#')));
}

std::filesystem::path url_index_path(const std::filesystem::path& root, std::string_view url) {
  return root / "urls" / util::sha256_hex(url_key(url));
}

std::filesystem::path url_lock_path(const std::filesystem::path& root, std::string_view url) {
  return root / "locks" / (util::sha256_hex(url_key(url)) + ".lock");
}

std::filesystem::path entry_lock_path(const std::filesystem::path& root,
                                      const std::string& sha256) {
  return root / "locks" / ("entry-" + sha256 + ".lock");
}

std::optional<std::time_t> parse_time(std::string_view text) {
  // Exactly "YYYY-MM-DDTHH:MM:SSZ".
  if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text[19] != 'Z') {
    return std::nullopt;
  }
  auto number = [&](std::size_t at, std::size_t width) -> int {
    int value = 0;
    for (std::size_t i = at; i < at + width; ++i) {
      if (text[i] < '0' || text[i] > '9') return -1;
      value = value * 10 + (text[i] - '0');
    }
    return value;
  };
  std::tm parts{};
  parts.tm_year = number(0, 4) - 1900;
  parts.tm_mon = number(5, 2) - 1;
  parts.tm_mday = number(8, 2);
  parts.tm_hour = number(11, 2);
  parts.tm_min = number(14, 2);
  parts.tm_sec = number(17, 2);
  if (parts.tm_year < 0 || parts.tm_mon < 0 || parts.tm_mon > 11 || parts.tm_mday < 1 ||
      parts.tm_mday > 31 || parts.tm_hour < 0 || parts.tm_hour > 23 || parts.tm_min < 0 ||
      parts.tm_min > 59 || parts.tm_sec < 0 || parts.tm_sec > 60) {
    return std::nullopt;
  }
  return ::timegm(&parts);
}

util::Result<CacheEntry> read_entry_dir(const std::filesystem::path& dir) {
  auto text = util::read_small_file(dir / kEntryFile, kMaxEntryJson);
  if (!text) return util::input_error("entry.json is missing, unreadable or too large");
  auto entry = entry_from_json(*text);
  if (!entry) return entry;
  if (entry->sha256 != dir.filename().string()) {
    return util::input_error("entry.json names another sha256 than its directory");
  }
  entry->path = dir / entry->filename;
  struct stat info {};
  if (::lstat(entry->path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    return util::input_error(fmt::format("the wheel file {} is missing", entry->filename));
  }
  if (static_cast<std::uint64_t>(info.st_size) != entry->size) {
    return util::input_error(fmt::format("the wheel file {} has {} bytes, entry.json says {}",
                                         entry->filename, info.st_size, entry->size));
  }
  return entry;
}

util::Result<void> discard_dir(const std::filesystem::path& root,
                               const std::filesystem::path& dir) {
  std::string grave = (root / "tmp" / "removed-XXXXXX").string();
  if (::mkdtemp(grave.data()) == nullptr || ::rename(dir.c_str(), grave.c_str()) != 0) {
    return util::fail(util::ErrorKind::failed,
                      fmt::format("cannot remove {}: {}", dir.string(), std::strerror(errno)));
  }
  std::error_code ec;
  std::filesystem::remove_all(grave, ec);
  return {};
}

util::Result<void> remove_entry_unlocked(const std::filesystem::path& root,
                                         const std::string& sha256) {
  const auto dir = entry_dir(root, sha256);
  const auto entry = read_entry_dir(dir);  // may be unreadable: removed all the same
  if (auto gone = discard_dir(root, dir); !gone) return gone;
  if (entry) {
    std::error_code ec;
    for (const std::string& url : entry->urls) {
      auto indexed = util::read_small_file(url_index_path(root, url), 256);
      if (indexed && util::trim(*indexed) == sha256)
        std::filesystem::remove(url_index_path(root, url), ec);
    }
  }
  return {};
}

std::uint64_t directory_bytes(const std::filesystem::path& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  struct stat info {};
  if (::lstat(dir.c_str(), &info) != 0) return 0;
  if (!S_ISDIR(info.st_mode))
    return S_ISREG(info.st_mode) ? static_cast<std::uint64_t>(info.st_size) : 0;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (::lstat(it->path().c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
      total += static_cast<std::uint64_t>(info.st_size);
    }
  }
  return total;
}

}  // namespace flashfit::store::detail
