// Section contents by name: what the fatbin reader needs from libelf.
#include <fmt/core.h>

#include <memory>

#include "binary/elf.hpp"
#include "binary/elf_handle.hpp"

namespace flashfit::binary {

using detail::libelf_message;

util::Result<std::optional<SectionBytes>> read_section(const std::filesystem::path& path,
                                                       std::string_view name) {
  auto opened = detail::open_elf_sections(path);
  if (!opened) return tl::unexpected(std::move(opened.error()));
  Elf* elf = opened->elf->get();
  const std::size_t names_index = opened->section_names;
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr;
       section = elf_nextscn(elf, section)) {
    GElf_Shdr header{};
    if (gelf_getshdr(section, &header) == nullptr) continue;
    const char* section_name = elf_strptr(elf, names_index, header.sh_name);
    if (section_name == nullptr || std::string_view(section_name) != name) continue;
    // The mapping must outlive the span, so the opened file moves into a
    // shared owner the caller keeps.
    auto owner = std::make_shared<detail::OpenElf>(std::move(*opened));
    SectionBytes result;
    result.keep_alive = owner;
    if (header.sh_type == SHT_NOBITS || header.sh_size == 0) return result;
    // Raw data of a mapped file points into the mapping; libelf refuses a
    // section that extends past the end of the file.
    Elf_Data* data = elf_rawdata(section, nullptr);
    if (data == nullptr || data->d_buf == nullptr) {
      return util::input_error(
          fmt::format("cannot read section {} (truncated file?): {}", name, libelf_message()),
          owner->context);
    }
    result.bytes =
        std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(data->d_buf), data->d_size);
    return result;
  }
  return std::optional<SectionBytes>{};
}

}  // namespace flashfit::binary
