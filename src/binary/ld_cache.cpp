#include "binary/ld_cache.hpp"

#include <elf.h>
#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>

#include "util/strings.hpp"

namespace flashfit::binary {

namespace {

// The layout as glibc's ldconfig writes it (elf/dl-cache.h), restated as
// offsets so that nothing is read through a struct cast of untrusted bytes.
constexpr std::string_view kNewMagic = "glibc-ld.so.cache1.1";  // magic and version together
constexpr std::size_t kNewHeaderSize = 48;
constexpr std::size_t kNewNlibsAt = 20;
constexpr std::size_t kNewFlagsAt = 28;    // one byte; its low two bits give the byte order
constexpr std::size_t kNewEntrySize = 24;  // flags, key, value, osversion, hwcap (u64 at 16)
constexpr std::string_view kOldMagic = "ld.so-1.7.0";
constexpr std::size_t kOldHeaderSize = 16;  // the magic, one byte of padding, nlibs at 12
constexpr std::size_t kOldNlibsAt = 12;
constexpr std::size_t kOldEntrySize = 12;  // flags, key, value

// Real caches are tens of KB; anything near this is not one, and reading it
// whole would only waste memory.
constexpr std::uintmax_t kMaxCacheFileSize = std::uintmax_t{64} << 20;

enum class ByteOrder { little, big };

ByteOrder host_order() {
  return std::endian::native == std::endian::big ? ByteOrder::big : ByteOrder::little;
}

// Callers check `offset + 8 <= bytes.size()` (or + 4) first.
std::uint64_t read_unsigned(std::span<const std::uint8_t> bytes, std::size_t offset,
                            std::size_t width, ByteOrder order) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    const std::size_t at = order == ByteOrder::little ? offset + width - 1 - i : offset + i;
    value = (value << 8) | bytes[at];
  }
  return value;
}
std::uint32_t read_u32(std::span<const std::uint8_t> bytes, std::size_t offset, ByteOrder order) {
  return static_cast<std::uint32_t>(read_unsigned(bytes, offset, 4, order));
}

bool has_prefix(std::span<const std::uint8_t> bytes, std::size_t offset, std::string_view magic) {
  return offset <= bytes.size() && bytes.size() - offset >= magic.size() &&
         std::memcmp(bytes.data() + offset, magic.data(), magic.size()) == 0;
}

// The NUL-terminated string at `base + offset`, which must end inside the buffer.
util::Result<std::string> string_at(std::span<const std::uint8_t> bytes, std::uint64_t base,
                                    std::uint32_t offset, std::size_t entry, const char* what) {
  const std::uint64_t start = base + offset;
  if (start >= bytes.size()) {
    return util::input_error(fmt::format("entry {}: {} offset {} points past the end ({} bytes)",
                                         entry, what, offset, bytes.size()));
  }
  const auto* begin = bytes.data() + start;
  const auto* nul = static_cast<const std::uint8_t*>(std::memchr(begin, 0, bytes.size() - start));
  if (nul == nullptr) {
    return util::input_error(
        fmt::format("entry {}: {} at offset {} has no terminating NUL", entry, what, offset));
  }
  if (nul == begin) {
    return util::input_error(fmt::format("entry {}: empty {}", entry, what));
  }
  return std::string(reinterpret_cast<const char*>(begin), static_cast<std::size_t>(nul - begin));
}

// Checks that `count` entries of `entry_size` from `entries_at` fit in the
// buffer, in 64-bit arithmetic so that no declared count can wrap around.
util::Result<void> check_entries_fit(std::span<const std::uint8_t> bytes, std::uint64_t entries_at,
                                     std::uint64_t count, std::uint64_t entry_size,
                                     const char* format) {
  const std::uint64_t end = entries_at + count * entry_size;
  if (end > bytes.size()) {
    return util::input_error(
        fmt::format("{} cache declares {} entries, which need {} bytes, but it has {}", format,
                    count, end, bytes.size()));
  }
  return {};
}

util::Result<std::vector<LdCacheEntry>> parse_new_format(std::span<const std::uint8_t> bytes,
                                                         std::size_t start) {
  if (bytes.size() - start < kNewHeaderSize) {
    return util::input_error(fmt::format("truncated cache header: {} of {} bytes",
                                         bytes.size() - start, kNewHeaderSize));
  }
  ByteOrder order = host_order();
  switch (bytes[start + kNewFlagsAt] & 3U) {
    case 0:  // written before glibc 2.33 recorded it: the writer's order, as ld.so assumes
      break;
    case 2:
      order = ByteOrder::little;
      break;
    case 3:
      order = ByteOrder::big;
      break;
    default:
      return util::input_error("cache header declares an invalid byte order");
  }
  const std::uint32_t count = read_u32(bytes, start + kNewNlibsAt, order);
  const std::uint64_t entries_at = start + kNewHeaderSize;
  if (auto fits = check_entries_fit(bytes, entries_at, count, kNewEntrySize, "the"); !fits) {
    return tl::unexpected(std::move(fits.error()));
  }
  // String offsets count from the start of this header (in the compat
  // layout, not from the start of the file).
  std::vector<LdCacheEntry> entries;
  entries.reserve(count);  // bounded: the entries were checked to fit in the buffer
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t at = entries_at + i * kNewEntrySize;
    LdCacheEntry entry;
    entry.flags = read_u32(bytes, at, order);
    entry.hwcap = read_unsigned(bytes, at + 16, 8, order);
    auto soname = string_at(bytes, start, read_u32(bytes, at + 4, order), i, "library name");
    if (!soname) return tl::unexpected(std::move(soname.error()));
    auto path = string_at(bytes, start, read_u32(bytes, at + 8, order), i, "path");
    if (!path) return tl::unexpected(std::move(path.error()));
    entry.soname = std::move(*soname);
    entry.path = std::move(*path);
    entries.push_back(std::move(entry));
  }
  return entries;
}

// The old format has no byte-order mark: the writer's order, as for ld.so.
util::Result<std::vector<LdCacheEntry>> parse_old_format(std::span<const std::uint8_t> bytes,
                                                         std::uint32_t count,
                                                         std::uint64_t strings_at) {
  std::vector<LdCacheEntry> entries;
  entries.reserve(count);  // bounded by check_entries_fit in the caller
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t at = kOldHeaderSize + i * kOldEntrySize;
    LdCacheEntry entry;
    entry.flags = read_u32(bytes, at, host_order());
    auto soname =
        string_at(bytes, strings_at, read_u32(bytes, at + 4, host_order()), i, "library name");
    if (!soname) return tl::unexpected(std::move(soname.error()));
    auto path = string_at(bytes, strings_at, read_u32(bytes, at + 8, host_order()), i, "path");
    if (!path) return tl::unexpected(std::move(path.error()));
    entry.soname = std::move(*soname);
    entry.path = std::move(*path);
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace

util::Result<std::vector<LdCacheEntry>> parse_ld_so_cache(std::span<const std::uint8_t> bytes) {
  if (has_prefix(bytes, 0, kNewMagic)) return parse_new_format(bytes, 0);
  if (!has_prefix(bytes, 0, kOldMagic)) {
    const std::string_view head(reinterpret_cast<const char*>(bytes.data()),
                                std::min<std::size_t>(bytes.size(), kNewMagic.size()));
    return util::input_error(
        fmt::format("not an ld.so.cache: starts with \"{}\", not \"{}\" or \"{}\"",
                    util::printable(head), kNewMagic, kOldMagic));
  }
  if (bytes.size() < kOldHeaderSize) {
    return util::input_error(fmt::format("truncated old-format cache header: {} of {} bytes",
                                         bytes.size(), kOldHeaderSize));
  }
  const std::uint32_t count = read_u32(bytes, kOldNlibsAt, host_order());
  if (auto fits = check_entries_fit(bytes, kOldHeaderSize, count, kOldEntrySize, "the old-format");
      !fits) {
    return tl::unexpected(std::move(fits.error()));
  }
  const std::uint64_t old_end = kOldHeaderSize + std::uint64_t{count} * kOldEntrySize;
  // In the compat layout the new cache follows the old entries, aligned for
  // its 64-bit fields: to 8 bytes where ldconfig ran on a 64-bit host, to 4
  // on i386, whose ABI aligns 64-bit fields to 4.
  for (std::uint64_t align : {8U, 4U}) {
    const std::uint64_t start = (old_end + align - 1) / align * align;
    if (start < bytes.size() && has_prefix(bytes, start, kNewMagic)) {
      return parse_new_format(bytes, static_cast<std::size_t>(start));
    }
  }
  return parse_old_format(bytes, count, old_end);
}

util::Result<std::vector<LdCacheEntry>> read_ld_so_cache(const std::filesystem::path& path) {
  const std::string context = path.string();
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (status.type() == std::filesystem::file_type::not_found) {
    return util::input_error("no such file", context);
  }
  if (error) return util::input_error(fmt::format("cannot read: {}", error.message()), context);
  if (status.type() != std::filesystem::file_type::regular) {
    return util::input_error("not a regular file", context);
  }
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) return util::input_error(fmt::format("cannot read: {}", error.message()), context);
  if (size > kMaxCacheFileSize) {
    return util::input_error(fmt::format("implausibly large for an ld.so.cache: {} bytes", size),
                             context);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return util::input_error(fmt::format("cannot open: {}", std::strerror(errno)), context);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  // A file that shrank while being read is parsed as the bytes actually read.
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  auto entries = parse_ld_so_cache(bytes);
  if (!entries) return tl::unexpected(std::move(entries.error()).with_context(context));
  return entries;
}

// ------------------------------------------------------------------ flags

std::optional<LdCacheAbi> ld_cache_flags_abi(std::uint32_t flags) {
  if ((flags & kLdCacheFlagTypeMask) != kLdCacheFlagElfLibc6) return std::nullopt;
  switch (flags & kLdCacheFlagAbiMask) {
    case 0:
      return LdCacheAbi{ElfClass::elf32, EM_386};
    case kLdCacheFlagX8664Lib64:
      return LdCacheAbi{ElfClass::elf64, EM_X86_64};
    case kLdCacheFlagX8664Libx32:
      return LdCacheAbi{ElfClass::elf32, EM_X86_64};
    case kLdCacheFlagAarch64Lib64:
      return LdCacheAbi{ElfClass::elf64, EM_AARCH64};
    case kLdCacheFlagPowerpcLib64:
      return LdCacheAbi{ElfClass::elf64, EM_PPC64};
    case kLdCacheFlagS390Lib64:
      return LdCacheAbi{ElfClass::elf64, EM_S390};
    case kLdCacheFlagSparcLib64:
      return LdCacheAbi{ElfClass::elf64, EM_SPARCV9};
    case kLdCacheFlagArmLibhf:
      return LdCacheAbi{ElfClass::elf32, EM_ARM};
    case kLdCacheFlagRiscvDouble:
      return LdCacheAbi{ElfClass::elf64, EM_RISCV};
    default:
      return std::nullopt;
  }
}

std::optional<std::uint32_t> ld_cache_default_flags(ElfClass elf_class, std::uint16_t machine) {
  const bool is64 = elf_class == ElfClass::elf64;
  std::uint32_t abi = 0;
  switch (machine) {
    case EM_X86_64:
      abi = is64 ? kLdCacheFlagX8664Lib64 : kLdCacheFlagX8664Libx32;
      break;
    case EM_386:
      if (is64) return std::nullopt;
      break;
    case EM_AARCH64:
      if (!is64) return std::nullopt;
      abi = kLdCacheFlagAarch64Lib64;
      break;
    case EM_PPC64:
      if (!is64) return std::nullopt;
      abi = kLdCacheFlagPowerpcLib64;
      break;
    case EM_S390:
      abi = is64 ? kLdCacheFlagS390Lib64 : 0;
      break;
    case EM_SPARCV9:
      if (!is64) return std::nullopt;
      abi = kLdCacheFlagSparcLib64;
      break;
    case EM_ARM:  // Debian's and Fedora's armhf; soft-float arm is not modelled
      if (is64) return std::nullopt;
      abi = kLdCacheFlagArmLibhf;
      break;
    case EM_RISCV:  // lp64d, the ABI distributions ship
      if (!is64) return std::nullopt;
      abi = kLdCacheFlagRiscvDouble;
      break;
    default:
      return std::nullopt;
  }
  return abi | kLdCacheFlagElfLibc6;
}

bool ld_cache_flags_match(std::uint32_t flags, ElfClass elf_class, std::uint16_t machine) {
  const auto own = ld_cache_default_flags(elf_class, machine);
  if (!own) return false;
  // glibc's generic rule also takes the bare "ELF" id of libc5-era entries;
  // loaders with an ABI id of their own (x86_64, aarch64, ...) take only it,
  // so a 32-bit "(ELF)" entry such as /lib/ld-linux.so.2 is not theirs.
  if ((*own & kLdCacheFlagAbiMask) == 0 && flags == kLdCacheFlagElf) return true;
  return flags == *own;
}

std::string ld_cache_flags_name(std::uint32_t flags) {
  std::string name;
  switch (flags & kLdCacheFlagTypeMask) {
    case 0:
      name = "libc4";
      break;
    case kLdCacheFlagElf:
      name = "ELF";
      break;
    case 2:
      name = "libc5";
      break;
    case kLdCacheFlagElfLibc6:
      name = "libc6";
      break;
    default:
      name = fmt::format("type {:#x}", flags & kLdCacheFlagTypeMask);
      break;
  }
  switch (flags & kLdCacheFlagAbiMask) {
    case 0:
      break;
    case kLdCacheFlagX8664Lib64:
      name += ",x86-64";
      break;
    case kLdCacheFlagX8664Libx32:
      name += ",x32";
      break;
    case kLdCacheFlagAarch64Lib64:
      name += ",AArch64";
      break;
    case kLdCacheFlagArmLibhf:
      name += ",hard-float";
      break;
    case kLdCacheFlagRiscvDouble:
      name += ",double-float";
      break;
    case kLdCacheFlagSparcLib64:
    case kLdCacheFlagS390Lib64:
    case kLdCacheFlagPowerpcLib64:
      name += ",64bit";
      break;
    default:
      name += fmt::format(",{}", flags & kLdCacheFlagAbiMask);
      break;
  }
  return name;
}

}  // namespace flashfit::binary
