#pragma once
// glibc's /etc/ld.so.cache: the SONAME -> path index ldconfig writes and the
// dynamic loader consults after RUNPATH and before its default directories.
// The file is read as hostile input: every count and string offset is checked
// against the buffer before use, so a garbled cache is an error value, never
// a crash or a huge allocation.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "binary/elf.hpp"
#include "util/error.hpp"

namespace flashfit::binary {

// ldconfig's entry flags (glibc elf/ldconfig.h): the low byte is the kind of
// library, the next one the ABI it needs when a host runs several.
inline constexpr std::uint32_t kLdCacheFlagTypeMask = 0x00ff;
inline constexpr std::uint32_t kLdCacheFlagElf = 0x0001;
inline constexpr std::uint32_t kLdCacheFlagElfLibc6 = 0x0003;
inline constexpr std::uint32_t kLdCacheFlagAbiMask = 0xff00;
inline constexpr std::uint32_t kLdCacheFlagSparcLib64 = 0x0100;
inline constexpr std::uint32_t kLdCacheFlagS390Lib64 = 0x0400;
inline constexpr std::uint32_t kLdCacheFlagX8664Lib64 = 0x0300;
inline constexpr std::uint32_t kLdCacheFlagPowerpcLib64 = 0x0500;
inline constexpr std::uint32_t kLdCacheFlagX8664Libx32 = 0x0800;
inline constexpr std::uint32_t kLdCacheFlagArmLibhf = 0x0900;
inline constexpr std::uint32_t kLdCacheFlagAarch64Lib64 = 0x0a00;
inline constexpr std::uint32_t kLdCacheFlagRiscvDouble = 0x1000;

struct LdCacheEntry {
  std::string soname;  // "libc.so.6"
  std::string path;    // "/lib/x86_64-linux-gnu/libc.so.6"
  std::uint32_t flags = 0;
  // Non-zero for a CPU-specific variant (a glibc-hwcaps subdirectory such as
  // x86-64-v3, or a legacy hwcap bit): ld.so takes it only on a CPU that
  // qualifies, and otherwise the plain entry for the same SONAME.
  std::uint64_t hwcap = 0;
};

// The ELF class and machine that entry flags stand for.
struct LdCacheAbi {
  ElfClass elf_class = ElfClass::elf64;
  std::uint16_t machine = 0;  // e_machine
};

// What an entry's flags say its object is: libc6,x86-64 is 64-bit x86_64,
// libc6,AArch64 64-bit aarch64, libc6,x32 32-bit x86_64, and plain libc6 is
// read as 32-bit i386, which is what ldconfig on an x86 host writes for its
// /lib32 objects (on other hosts plain libc6 is their own 32-bit ABI, which
// the flags alone cannot tell). nullopt for flags flashfit does not know.
std::optional<LdCacheAbi> ld_cache_flags_abi(std::uint32_t flags);

// The flags the loader for this class and machine looks for (glibc's
// _DL_CACHE_DEFAULT_ID); nullopt for machines flashfit does not know.
std::optional<std::uint32_t> ld_cache_default_flags(ElfClass elf_class, std::uint16_t machine);

// Whether the loader for this class and machine would use an entry with
// these flags (glibc's _dl_cache_check_flags): its own id, and the bare
// "ELF" id only where its own id names no ABI (i386). False for machines
// flashfit does not know.
bool ld_cache_flags_match(std::uint32_t flags, ElfClass elf_class, std::uint16_t machine);

// The flags as `ldconfig -p` shows them: "libc6,x86-64", "libc6", "ELF".
std::string ld_cache_flags_name(std::uint32_t flags);

// Parses a cache in the "glibc-ld.so.cache1.1" format, or the old
// "ld.so-1.7.0" format alone or followed by the new one (glibc's compat
// layout, where the loader uses the new part). Entries in file order.
util::Result<std::vector<LdCacheEntry>> parse_ld_so_cache(std::span<const std::uint8_t> bytes);

// Reads and parses the cache file; a missing or oversized file is an input
// error with the path as context.
util::Result<std::vector<LdCacheEntry>> read_ld_so_cache(
    const std::filesystem::path& path = "/etc/ld.so.cache");

}  // namespace flashfit::binary
