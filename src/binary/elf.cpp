#include "binary/elf.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "binary/elf_handle.hpp"
#include "util/strings.hpp"

namespace flashfit::binary {

namespace {

using detail::libelf_message;
using detail::OpenElf;

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
      case DT_NEEDED:
        out.needed.emplace_back(*text);
        break;
      case DT_SONAME:
        out.soname = std::string(*text);
        break;
      case DT_RPATH:
        out.rpath = split_path_list(*text);
        break;
      default:
        out.runpath = split_path_list(*text);
        break;
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
      return util::input_error(
          fmt::format("cannot read dynamic symbol {}: {}", i, libelf_message()), opened.context);
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

util::Result<void> read_verdef(const OpenElf& opened, Elf_Scn* section, const GElf_Shdr& header,
                               ElfFile& out) {
  auto data = section_data(opened, section, ".gnu.version_d");
  if (!data) return tl::unexpected(std::move(data.error()));
  const std::size_t size = (*data)->d_size;
  // As in read_verneed, sh_info is only a claim and a "next" of zero or one
  // leaving the section ends the walk. A "next" shorter than an entry would
  // make entries overlap, which no linker writes; refusing it also means
  // every step advances by a whole entry, so the walk is bounded by the
  // section size whatever the claimed count.
  const std::size_t entry_size = sizeof(Elf32_Verdef);  // the same in both classes
  const std::size_t max_offset = static_cast<std::size_t>(std::numeric_limits<int>::max());
  // Views into the mapped string table, valid while `opened` lives: they
  // only serve to skip repeats without a quadratic search.
  std::unordered_set<std::string_view> seen;
  std::size_t offset = 0;
  for (std::size_t i = 0; i < header.sh_info && offset < size && offset < max_offset; ++i) {
    GElf_Verdef definition{};
    if (gelf_getverdef(*data, static_cast<int>(offset), &definition) == nullptr) {
      return util::input_error(fmt::format("truncated version-definition entry at offset {}: {}",
                                           offset, libelf_message()),
                               opened.context);
    }
    // The first auxiliary entry names the version; any further ones name
    // its parents, which are defined by entries of their own.
    const std::size_t aux = offset + definition.vd_aux;
    const bool is_base = (definition.vd_flags & VER_FLG_BASE) != 0;
    if (!is_base && definition.vd_cnt > 0 && aux < size && aux < max_offset) {
      GElf_Verdaux name_entry{};
      if (gelf_getverdaux(*data, static_cast<int>(aux), &name_entry) == nullptr) {
        return util::input_error(
            fmt::format("truncated version-definition name entry at offset {}: {}", aux,
                        libelf_message()),
            opened.context);
      }
      auto name = string_at(opened, header.sh_link, name_entry.vda_name, "version definition");
      if (!name) return tl::unexpected(std::move(name.error()));
      if (!name->empty() && seen.insert(*name).second) {
        out.version_definitions.emplace_back(*name);
      }
    }
    if (definition.vd_next == 0) break;
    if (definition.vd_next < entry_size) {
      return util::input_error(
          fmt::format("version-definition entry at offset {} overlaps the next ({} bytes on)",
                      offset, definition.vd_next),
          opened.context);
    }
    offset += definition.vd_next;
  }
  return {};
}

}  // namespace

// ---------------------------------------------------------------- read_elf

namespace {

enum class ReadScope { everything, dynamic_only };

util::Result<ElfFile> read_elf_sections(const std::filesystem::path& path, ReadScope scope) {
  auto opened = detail::open_elf(path);
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
    } else if (scope == ReadScope::dynamic_only) {
      continue;
    } else if (header.sh_type == SHT_DYNSYM) {
      step = read_dynsym(*opened, section, header, out);
    } else if (header.sh_type == SHT_GNU_verneed) {
      step = read_verneed(*opened, section, header, out);
    } else if (header.sh_type == SHT_GNU_verdef) {
      step = read_verdef(*opened, section, header, out);
    }
    if (!step) return tl::unexpected(std::move(step.error()));
  }
  return out;
}

}  // namespace

util::Result<ElfFile> read_elf(const std::filesystem::path& path) {
  return read_elf_sections(path, ReadScope::everything);
}

util::Result<ElfFile> read_elf_dynamic(const std::filesystem::path& path) {
  return read_elf_sections(path, ReadScope::dynamic_only);
}

std::string ElfFile::machine_name() const {
  switch (machine) {
    case EM_X86_64:
      return "x86_64";
    case EM_AARCH64:
      return "aarch64";
    case EM_386:
      return "i386";
    case EM_ARM:
      return "arm";
    case EM_PPC64:
      return "ppc64";
    case EM_S390:
      return "s390x";
    case EM_RISCV:
      return "riscv";
    default:
      return fmt::format("e_machine {}", machine);
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
      if (order && std::is_gt(*order)) best = tag;
    }
  }
  return best;
}

bool ElfFile::defines_version(std::string_view tag) const {
  return std::find(version_definitions.begin(), version_definitions.end(), tag) !=
         version_definitions.end();
}

}  // namespace flashfit::binary
