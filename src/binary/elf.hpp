#pragma once
// Reading what the dynamic loader cares about from an ELF shared object:
// machine, SONAME, NEEDED, RPATH/RUNPATH, dynamic symbols, the symbol
// versions it needs (GLIBC_2.32, GLIBCXX_3.4.30, ...) and those it defines.
// Built on libelf with ELF_C_READ_MMAP, so a 400 MB libtorch_cuda is paged
// in, not copied. Every offset and count in the file is treated as hostile:
// a truncated or garbled file is an error value, never a crash.

#include <compare>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/error.hpp"

namespace flashfit::binary {

// A sorted, de-duplicated set of symbol names kept in one buffer: libtorch_cpu
// exports ~33k mostly long mangled names, and one allocation per name would
// cost several MB and many small allocations for no benefit.
class SymbolNames {
 public:
  SymbolNames() = default;
  // Takes names in any order, with duplicates.
  explicit SymbolNames(std::vector<std::string_view> names);

  std::size_t size() const { return spans_.size(); }
  bool empty() const { return spans_.empty(); }
  std::string_view operator[](std::size_t i) const {
    return std::string_view(storage_).substr(spans_[i].first, spans_[i].second);
  }
  bool contains(std::string_view name) const;
  // The first name containing `fragment`, if any (linear; for evidence).
  std::optional<std::string_view> find_containing(std::string_view fragment) const;

 private:
  std::string storage_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> spans_;  // offset, length
};

enum class ElfClass { elf32, elf64 };

// One DT_VERNEED entry: a needed file and the version tags required from it.
struct VersionNeed {
  std::string file;                   // "libc.so.6"
  std::vector<std::string> versions;  // "GLIBC_2.2.5", "GLIBC_2.34"
};

struct ElfFile {
  std::filesystem::path path;
  ElfClass elf_class = ElfClass::elf64;
  std::uint16_t machine = 0;  // e_machine (EM_X86_64 = 62, EM_AARCH64 = 183)
  bool little_endian = true;
  std::uint16_t type = 0;  // e_type (ET_DYN = 3, ET_EXEC = 2)
  std::optional<std::string> soname;
  std::vector<std::string> needed;
  std::vector<std::string> rpath;    // DT_RPATH, split on ':'
  std::vector<std::string> runpath;  // DT_RUNPATH, split on ':'
  SymbolNames defined_symbols;       // global/weak dynamic symbols with a section
  SymbolNames undefined_symbols;     // dynamic symbols the loader must find elsewhere
  std::vector<VersionNeed> version_needs;
  // DT_VERDEF: the version tags this object defines ("GLIBC_2.34" in
  // libc.so.6), without the base entry (the file's own name), each once, in
  // file order. What a needed version is checked against.
  std::vector<std::string> version_definitions;

  // "x86_64", "aarch64", "i386", "arm", or "e_machine 243" for the rest.
  std::string machine_name() const;
  // The highest needed version tag with this prefix ("GLIBC_", "GLIBCXX_",
  // "CXXABI_"), over all needed files; nullopt when none is needed.
  std::optional<std::string> max_needed_version(std::string_view prefix) const;
  // Whether `tag` is among version_definitions (exact match).
  bool defines_version(std::string_view tag) const;
};

// Reads an ELF shared object or executable. Errors are ErrorKind::input with
// the path as context: not a file, not ELF, truncated, inconsistent tables.
util::Result<ElfFile> read_elf(const std::filesystem::path& path);

// read_elf without the symbol and version tables: the header and the dynamic
// section only (SONAME, NEEDED, RPATH/RUNPATH). Scanning a directory of
// libraries for their SONAMEs should not sort 100k symbol names per file.
util::Result<ElfFile> read_elf_dynamic(const std::filesystem::path& path);

// A symbol version tag split into its name and numbers: "GLIBC_2.34" is
// ("GLIBC", {2, 34}). nullopt when the tag has no numeric version
// ("GLIBC_PRIVATE", "libc.so.6") or a number does not fit 32 bits.
struct SymbolVersion {
  std::string name;
  std::vector<std::uint32_t> numbers;
};
std::optional<SymbolVersion> parse_symbol_version(std::string_view tag);

// Numeric comparison of two tags of the same family: GLIBC_2.34 > GLIBC_2.4,
// GLIBCXX_3.4.30 > GLIBCXX_3.4.9, 3.4 < 3.4.0 is treated as equal (missing
// parts are zero). nullopt when either does not parse or the names differ.
std::optional<std::strong_ordering> compare_symbol_versions(std::string_view a, std::string_view b);

// NUL-terminated strings starting with `prefix` in the file's read-only data
// (.rodata*, or every allocated non-executable PROGBITS section when there is
// no .rodata), de-duplicated, in order of appearance, at most `max_results`,
// each cut at `max_length` bytes. For ids such as pybind11's
// "__pybind11_internals_v4_gcc_libstdcpp_cxxabi1017__". The file is mapped,
// not read into memory.
util::Result<std::vector<std::string>> find_strings_with_prefix(const std::filesystem::path& path,
                                                                std::string_view prefix,
                                                                std::size_t max_results = 16,
                                                                std::size_t max_length = 256);

// The bytes of one section, read through the file mapping, not copied (a
// flash-attn library's .nv_fatbin is hundreds of MB). `bytes` stays valid
// while `keep_alive` (the mapping) lives; SHT_NOBITS sections are empty.
struct SectionBytes {
  std::span<const std::uint8_t> bytes;
  std::shared_ptr<const void> keep_alive;
};

// The section named `name` (the first, if several), nullopt when there is
// none. Errors as for read_elf, and a section past the end of the file.
util::Result<std::optional<SectionBytes>> read_section(const std::filesystem::path& path,
                                                       std::string_view name);

}  // namespace flashfit::binary
