// ELF shared objects (header, sections, dynamic section, symbols, verneed,
// verdef) and the fatbins inside them: hostile files are input errors, never
// crashes; what is read is consistent.
#include "binary/elf.hpp"
#include "binary/fatbin.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit;
  const auto file = fuzz::scratch() / "lib.so";
  fuzz::write_file(file, fuzz::as_text(data, size));
  auto elf = binary::read_elf(file);
  auto dynamic = binary::read_elf_dynamic(file);
  if (elf) {
    FUZZ_CHECK(dynamic.has_value(), "read_elf accepts what read_elf_dynamic refuses");
    FUZZ_CHECK(elf->soname == dynamic->soname && elf->needed == dynamic->needed,
               "the dynamic section reads differently");
    FUZZ_CHECK(!elf->machine_name().empty(), "no machine name");
    for (const auto& tag : elf->version_definitions) {
      FUZZ_CHECK(elf->defines_version(tag), "defines_version misses " + tag);
      (void)binary::parse_symbol_version(tag);
    }
    (void)elf->max_needed_version("GLIBC_");
  } else {
    FUZZ_CHECK(elf.error().kind == util::ErrorKind::input,
               "not an input error: " + elf.error().message);
  }
  if (auto fatbins = binary::read_fatbins(file)) {
    for (const auto& entry : fatbins->entries) (void)entry.name();
  }
  return 0;
}
