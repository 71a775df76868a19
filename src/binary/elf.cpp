#include "binary/elf.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>

#include <fmt/core.h>

#include "util/strings.hpp"

namespace flashfit::binary {

// ---------------------------------------------------------------- SymbolNames

SymbolNames::SymbolNames(std::vector<std::string_view> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::size_t total = 0;
  for (auto name : names) total += name.size();
  storage_.reserve(total);
  spans_.reserve(names.size());
  for (auto name : names) {
    spans_.emplace_back(static_cast<std::uint32_t>(storage_.size()),
                        static_cast<std::uint32_t>(name.size()));
    storage_.append(name);
  }
}

bool SymbolNames::contains(std::string_view name) const {
  std::size_t lo = 0;
  std::size_t hi = spans_.size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if ((*this)[mid] < name) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < spans_.size() && (*this)[lo] == name;
}

std::optional<std::string_view> SymbolNames::find_containing(std::string_view fragment) const {
  for (std::size_t i = 0; i < spans_.size(); ++i) {
    if ((*this)[i].find(fragment) != std::string_view::npos) return (*this)[i];
  }
  return std::nullopt;
}

// ------------------------------------------------------------ libelf plumbing

namespace {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

class ElfHandle {
 public:
  explicit ElfHandle(Elf* elf) : elf_(elf) {}
  ElfHandle(const ElfHandle&) = delete;
  ElfHandle& operator=(const ElfHandle&) = delete;
  ~ElfHandle() {
    if (elf_ != nullptr) elf_end(elf_);
  }
  Elf* get() const { return elf_; }

 private:
  Elf* elf_;
};

// The descriptor must outlive the Elf handle: members are destroyed in
// reverse order, so `elf` (declared last) ends first.
struct OpenElf {
  std::unique_ptr<FileDescriptor> fd;
  std::unique_ptr<ElfHandle> elf;
  GElf_Ehdr header{};
  std::string context;
};

std::string libelf_message() {
  const char* message = elf_errmsg(-1);
  return message != nullptr ? std::string(message) : std::string("unknown libelf error");
}

util::Result<OpenElf> open_elf(const std::filesystem::path& path) {
  // elf_version must run once before any other libelf call.
  static std::once_flag once;
  static bool version_ok = false;
  std::call_once(once, [] { version_ok = elf_version(EV_CURRENT) != EV_NONE; });

  OpenElf opened;
  opened.context = path.string();
  if (!version_ok) {
    return util::fail(util::ErrorKind::internal, "libelf does not support the current ELF version",
                      opened.context);
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return util::input_error(fmt::format("cannot open: {}", std::strerror(errno)), opened.context);
  }
  opened.fd = std::make_unique<FileDescriptor>(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    return util::input_error(fmt::format("cannot stat: {}", std::strerror(errno)), opened.context);
  }
  // A FIFO or device would block or mmap oddly; only plain files are ELF objects here.
  if (!S_ISREG(info.st_mode)) return util::input_error("not a regular file", opened.context);
  if (info.st_size < EI_NIDENT) {
    return util::input_error(
        fmt::format("not an ELF file: only {} bytes, shorter than an ELF header", info.st_size),
        opened.context);
  }

  opened.elf = std::make_unique<ElfHandle>(elf_begin(fd, ELF_C_READ_MMAP, nullptr));
  Elf* elf = opened.elf->get();
  if (elf == nullptr) {
    return util::input_error(fmt::format("not a readable ELF file: {}", libelf_message()),
                             opened.context);
  }
  if (elf_kind(elf) != ELF_K_ELF) {
    return util::input_error("not an ELF file (no \\x7fELF magic)", opened.context);
  }
  if (gelf_getehdr(elf, &opened.header) == nullptr) {
    return util::input_error(
        fmt::format("truncated or invalid ELF header: {}", libelf_message()), opened.context);
  }
  return opened;
}

// A string from a string table section; errors rather than pointing past it
// (elf_strptr checks the offset and the terminating NUL).
util::Result<std::string_view> string_at(const OpenElf& opened, std::size_t table,
                                         std::size_t offset, std::string_view what) {
  const char* text = elf_strptr(opened.elf->get(), table, offset);
  if (text == nullptr) {
    return util::input_error(
        fmt::format("{} name at offset {} is outside its string table (section {}): {}", what,
                    offset, table, libelf_message()),
        opened.context);
  }
  return std::string_view(text);
}

util::Result<Elf_Data*> section_data(const OpenElf& opened, Elf_Scn* section,
                                      std::string_view what) {
  Elf_Data* data = elf_getdata(section, nullptr);
  if (data == nullptr || (data->d_size > 0 && data->d_buf == nullptr)) {
    return util::input_error(
        fmt::format("cannot read the {} section (truncated or out of the file?): {}", what,
                    libelf_message()),
        opened.context);
  }
  return data;
}

std::vector<std::string> split_path_list(std::string_view text) {
  std::vector<std::string> parts;
  for (auto part : util::split(text, ':')) {
    if (!part.empty()) parts.emplace_back(part);
  }
  return parts;
}

util::Result<void> read_dynamic(const OpenElf& opened, Elf_Scn* section, const GElf_Shdr& header,
                                ElfFile& out) {
  auto data = section_data(opened, section, ".dynamic");
  if (!data) return tl::unexpected(std::move(data.error()));
  const std::size_t entry_size = gelf_fsize(opened.elf->get(), ELF_T_DYN, 1, EV_CURRENT);
  const std::size_t count = entry_size == 0 ? 0 : (*data)->d_size / entry_size;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Dyn entry{};
    if (gelf_getdyn(*data, static_cast<int>(i), &entry) == nullptr) break;
    if (entry.d_tag == DT_NULL) break;
    if (entry.d_tag != DT_NEEDED && entry.d_tag != DT_SONAME && entry.d_tag != DT_RPATH &&
        entry.d_tag != DT_RUNPATH) {
      continue;
    }
    auto text = string_at(opened, header.sh_link, entry.d_un.d_val, "dynamic entry");
    if (!text) return tl::unexpected(std::move(text.error()));
    switch (entry.d_tag) {
      case DT_NEEDED: out.needed.emplace_back(*text); break;
      case DT_SONAME: out.soname = std::string(*text); break;
      case DT_RPATH: out.rpath = split_path_list(*text); break;
      default: out.runpath = split_path_list(*text); break;
    }
  }
  return {};
}

util::Result<void> read_dynsym(const OpenElf& opened, Elf_Scn* section, const GElf_Shdr& header,
                               ElfFile& out) {
  auto data = section_data(opened, section, ".dynsym");
  if (!data) return tl::unexpected(std::move(data.error()));
  const std::size_t entry_size = gelf_fsize(opened.elf->get(), ELF_T_SYM, 1, EV_CURRENT);
  const std::size_t count = entry_size == 0 ? 0 : (*data)->d_size / entry_size;
  if (count > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return util::input_error(fmt::format("implausible .dynsym with {} entries", count),
                             opened.context);
  }
  // Views into the mapped string table: valid until the Elf handle ends,
  // which is after SymbolNames has copied them into one buffer.
  std::vector<std::string_view> defined;
  std::vector<std::string_view> undefined;
  std::size_t total = 0;
  for (std::size_t i = 1; i < count; ++i) {  // entry 0 is the reserved null symbol
    GElf_Sym symbol{};
    if (gelf_getsym(*data, static_cast<int>(i), &symbol) == nullptr) {
      return util::input_error(fmt::format("cannot read dynamic symbol {}: {}", i, libelf_message()),
                               opened.context);
    }
    if (GELF_ST_BIND(symbol.st_info) == STB_LOCAL || symbol.st_name == 0) continue;
    auto name = string_at(opened, header.sh_link, symbol.st_name, "symbol");
    if (!name) return tl::unexpected(std::move(name.error()));
    if (name->empty()) continue;
    total += name->size();
    (symbol.st_shndx == SHN_UNDEF ? undefined : defined).push_back(*name);
  }
  if (total > std::numeric_limits<std::uint32_t>::max()) {
    return util::input_error("implausibly large dynamic symbol names", opened.context);
  }
  out.defined_symbols = SymbolNames(std::move(defined));
  out.undefined_symbols = SymbolNames(std::move(undefined));
  return {};
}

util::Result<void> read_verneed(const OpenElf& opened, Elf_Scn* section, const GElf_Shdr& header,
                                ElfFile& out) {
  auto data = section_data(opened, section, ".gnu.version_r");
  if (!data) return tl::unexpected(std::move(data.error()));
  const std::size_t size = (*data)->d_size;
  // sh_info is the entry count, but it is only a claim: the walk also stops
  // when a "next" offset is zero or leaves the section, so a hostile count
  // or cycle cannot spin. Each entry takes >= 16 bytes, which bounds the walk.
  std::size_t offset = 0;
  const std::size_t max_offset = static_cast<std::size_t>(std::numeric_limits<int>::max());
  for (std::size_t i = 0; i < header.sh_info && offset < size && offset < max_offset; ++i) {
    GElf_Verneed need{};
    if (gelf_getverneed(*data, static_cast<int>(offset), &need) == nullptr) {
      return util::input_error(
          fmt::format("truncated version-needs entry at offset {}: {}", offset, libelf_message()),
          opened.context);
    }
    auto file = string_at(opened, header.sh_link, need.vn_file, "version-needs file");
    if (!file) return tl::unexpected(std::move(file.error()));
    VersionNeed entry{std::string(*file), {}};
    std::size_t aux = offset + need.vn_aux;
    for (std::size_t j = 0; j < need.vn_cnt && aux < size && aux < max_offset; ++j) {
      GElf_Vernaux version{};
      if (gelf_getvernaux(*data, static_cast<int>(aux), &version) == nullptr) {
        return util::input_error(
            fmt::format("truncated version-needs auxiliary entry at offset {}: {}", aux,
                        libelf_message()),
            opened.context);
      }
      auto name = string_at(opened, header.sh_link, version.vna_name, "version");
      if (!name) return tl::unexpected(std::move(name.error()));
      entry.versions.emplace_back(*name);
      if (version.vna_next == 0) break;
      aux += version.vna_next;
    }
    out.version_needs.push_back(std::move(entry));
    if (need.vn_next == 0) break;
    offset += need.vn_next;
  }
  return {};
}

}  // namespace

// ---------------------------------------------------------------- read_elf

util::Result<ElfFile> read_elf(const std::filesystem::path& path) {
  auto opened = open_elf(path);
  if (!opened) return tl::unexpected(std::move(opened.error()));
  Elf* elf = opened->elf->get();

  ElfFile out;
  out.path = path;
  out.elf_class = gelf_getclass(elf) == ELFCLASS32 ? ElfClass::elf32 : ElfClass::elf64;
  out.machine = opened->header.e_machine;
  out.type = opened->header.e_type;
  out.little_endian = opened->header.e_ident[EI_DATA] == ELFDATA2LSB;

  std::size_t section_count = 0;
  if (elf_getshdrnum(elf, &section_count) != 0) {
    return util::input_error(fmt::format("cannot count sections: {}", libelf_message()),
                             opened->context);
  }
  if (section_count == 0) {
    return util::input_error("no section headers (stripped with sstrip, or truncated)",
                             opened->context);
  }
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr;
       section = elf_nextscn(elf, section)) {
    GElf_Shdr header{};
    if (gelf_getshdr(section, &header) == nullptr) {
      return util::input_error(fmt::format("cannot read a section header: {}", libelf_message()),
                               opened->context);
    }
    util::Result<void> step{};
    if (header.sh_type == SHT_DYNAMIC) {
      step = read_dynamic(*opened, section, header, out);
    } else if (header.sh_type == SHT_DYNSYM) {
      step = read_dynsym(*opened, section, header, out);
    } else if (header.sh_type == SHT_GNU_verneed) {
      step = read_verneed(*opened, section, header, out);
    }
    if (!step) return tl::unexpected(std::move(step.error()));
  }
  return out;
}

std::string ElfFile::machine_name() const {
  switch (machine) {
    case EM_X86_64: return "x86_64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_PPC64: return "ppc64";
    case EM_S390: return "s390x";
    case EM_RISCV: return "riscv";
    default: return fmt::format("e_machine {}", machine);
  }
}

std::optional<std::string> ElfFile::max_needed_version(std::string_view prefix) const {
  std::optional<std::string> best;
  for (const auto& need : version_needs) {
    for (const auto& tag : need.versions) {
      if (!util::starts_with(tag, prefix)) continue;
      if (!best) {
        best = tag;
        continue;
      }
      auto order = compare_symbol_versions(tag, *best);
      if (order && *order > 0) best = tag;
    }
  }
  return best;
}

// --------------------------------------------------------- version tags

std::optional<SymbolVersion> parse_symbol_version(std::string_view tag) {
  const auto underscore = tag.rfind('_');
  if (underscore == std::string_view::npos || underscore == 0) return std::nullopt;
  SymbolVersion out{std::string(tag.substr(0, underscore)), {}};
  for (auto part : util::split(tag.substr(underscore + 1), '.')) {
    if (part.empty() || part.size() > 9) return std::nullopt;  // 9 digits always fit 32 bits
    std::uint32_t number = 0;
    for (char c : part) {
      if (c < '0' || c > '9') return std::nullopt;
      number = number * 10 + static_cast<std::uint32_t>(c - '0');
    }
    out.numbers.push_back(number);
  }
  return out;
}

std::optional<std::strong_ordering> compare_symbol_versions(std::string_view a,
                                                            std::string_view b) {
  auto left = parse_symbol_version(a);
  auto right = parse_symbol_version(b);
  if (!left || !right || left->name != right->name) return std::nullopt;
  const std::size_t n = std::max(left->numbers.size(), right->numbers.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t x = i < left->numbers.size() ? left->numbers[i] : 0;
    const std::uint32_t y = i < right->numbers.size() ? right->numbers[i] : 0;
    if (x != y) return x <=> y;
  }
  return std::strong_ordering::equal;
}

// ------------------------------------------------ strings in read-only data

util::Result<std::vector<std::string>> find_strings_with_prefix(const std::filesystem::path& path,
                                                                std::string_view prefix,
                                                                std::size_t max_results,
                                                                std::size_t max_length) {
  auto opened = open_elf(path);
  if (!opened) return tl::unexpected(std::move(opened.error()));
  Elf* elf = opened->elf->get();
  std::size_t names_index = 0;
  if (elf_getshdrstrndx(elf, &names_index) != 0) {
    return util::input_error(fmt::format("cannot find section names: {}", libelf_message()),
                             opened->context);
  }
  std::vector<Elf_Scn*> rodata;
  std::vector<Elf_Scn*> fallback;
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr;
       section = elf_nextscn(elf, section)) {
    GElf_Shdr header{};
    if (gelf_getshdr(section, &header) == nullptr || header.sh_type != SHT_PROGBITS) continue;
    const char* name = elf_strptr(elf, names_index, header.sh_name);
    if (name != nullptr && util::starts_with(name, ".rodata")) rodata.push_back(section);
    if ((header.sh_flags & SHF_ALLOC) != 0 && (header.sh_flags & SHF_EXECINSTR) == 0) {
      fallback.push_back(section);
    }
  }
  std::vector<std::string> found;
  if (prefix.empty() || max_results == 0) return found;
  for (Elf_Scn* section : rodata.empty() ? fallback : rodata) {
    // Raw data of a mapped file points into the mapping: nothing is copied.
    Elf_Data* data = elf_rawdata(section, nullptr);
    if (data == nullptr || data->d_buf == nullptr) {
      return util::input_error(
          fmt::format("cannot read read-only data (truncated?): {}", libelf_message()),
          opened->context);
    }
    const char* begin = static_cast<const char*>(data->d_buf);
    const char* end = begin + data->d_size;
    const char* at = begin;
    while (at < end) {
      const void* hit = ::memmem(at, static_cast<std::size_t>(end - at), prefix.data(), prefix.size());
      if (hit == nullptr) break;
      const char* start = static_cast<const char*>(hit);
      const std::size_t limit = std::min<std::size_t>(max_length, static_cast<std::size_t>(end - start));
      const void* nul = std::memchr(start, '\0', limit);
      const std::size_t length =
          nul != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nul) - start) : limit;
      std::string text(start, length);
      if (std::find(found.begin(), found.end(), text) == found.end()) {
        found.push_back(std::move(text));
        if (found.size() >= max_results) return found;
      }
      at = start + std::max<std::size_t>(length, 1);
    }
  }
  return found;
}

}  // namespace flashfit::binary
