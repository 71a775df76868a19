#pragma once
// Test archives written at test time with libarchive's writer (tar in its
// compressions, zip), hostile ones included, plus a hand-made ustar header
// for what no writer would produce (a size far larger than the data).
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace flashfit::test {

struct ArchiveItem {
  std::string name;
  char kind = 'f';     // f file, d directory, l symlink, h hard link, c char device, p FIFO
  std::string data;    // f
  std::string target;  // l, h
  int mode = 0644;
};

inline ArchiveItem file_item(std::string name, std::string data, int mode = 0644) {
  return ArchiveItem{std::move(name), 'f', std::move(data), {}, mode};
}
inline ArchiveItem dir_item(std::string name) {
  return ArchiveItem{std::move(name), 'd', {}, {}, 0755};
}
inline ArchiveItem symlink_item(std::string name, std::string target) {
  return ArchiveItem{std::move(name), 'l', {}, std::move(target), 0777};
}
inline ArchiveItem hardlink_item(std::string name, std::string target) {
  return ArchiveItem{std::move(name), 'h', {}, std::move(target), 0644};
}

enum class ArchiveFormat { tar, tar_gz, tar_bz2, tar_xz, zip };

inline void write_archive(const std::filesystem::path& file, ArchiveFormat format,
                          const std::vector<ArchiveItem>& items) {
  struct archive* a = archive_write_new();
  if (format == ArchiveFormat::zip) {
    archive_write_set_format_zip(a);
  } else {
    archive_write_set_format_pax_restricted(a);
    if (format == ArchiveFormat::tar_gz) archive_write_add_filter_gzip(a);
    if (format == ArchiveFormat::tar_bz2) archive_write_add_filter_bzip2(a);
    if (format == ArchiveFormat::tar_xz) archive_write_add_filter_xz(a);
  }
  if (archive_write_open_filename(a, file.c_str()) != ARCHIVE_OK) {
    std::string error = archive_error_string(a);
    archive_write_free(a);
    throw std::runtime_error("cannot write " + file.string() + ": " + error);
  }
  for (const ArchiveItem& item : items) {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, item.name.c_str());
    archive_entry_set_perm(e, static_cast<mode_t>(item.mode));
    archive_entry_set_mtime(e, 1700000000, 0);
    switch (item.kind) {
      case 'f':
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_size(e, static_cast<la_int64_t>(item.data.size()));
        break;
      case 'd':
        archive_entry_set_filetype(e, AE_IFDIR);
        break;
      case 'l':
        archive_entry_set_filetype(e, AE_IFLNK);
        archive_entry_set_symlink(e, item.target.c_str());
        break;
      case 'h':
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_hardlink(e, item.target.c_str());
        archive_entry_set_size(e, 0);
        break;
      case 'c':
        archive_entry_set_filetype(e, AE_IFCHR);
        archive_entry_set_rdev(e, makedev(1, 3));
        break;
      case 'p':
        archive_entry_set_filetype(e, AE_IFIFO);
        break;
      default:
        throw std::logic_error("unknown archive item kind");
    }
    if (archive_write_header(a, e) != ARCHIVE_OK) {
      std::string error = archive_error_string(a);
      archive_entry_free(e);
      archive_write_free(a);
      throw std::runtime_error("cannot write entry " + item.name + ": " + error);
    }
    if (item.kind == 'f' && !item.data.empty()) {
      archive_write_data(a, item.data.data(), item.data.size());
    }
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

// One ustar header block declaring `size` bytes of a regular file, without
// the data: what a hostile archive claims before it runs out.
inline std::string ustar_header(const std::string& name, std::uint64_t size) {
  std::string h(512, '\0');
  std::memcpy(&h[0], name.data(), std::min<std::size_t>(name.size(), 100));
  std::snprintf(&h[100], 8, "%07o", 0644u);
  std::snprintf(&h[108], 8, "%07o", 0u);
  std::snprintf(&h[116], 8, "%07o", 0u);
  std::snprintf(&h[124], 12, "%011llo", static_cast<unsigned long long>(size));
  std::snprintf(&h[136], 12, "%011o", 0u);
  std::memset(&h[148], ' ', 8);
  h[156] = '0';
  std::memcpy(&h[257], "ustar", 6);
  std::memcpy(&h[263], "00", 2);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(&h[148], 8, "%06o", sum);
  h[155] = ' ';
  return h;
}

inline void write_bytes(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary);
  out << bytes;
}

inline std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace flashfit::test
