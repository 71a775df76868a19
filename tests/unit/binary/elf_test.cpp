// read_elf against real Debian torch libraries (checked against binutils),
// test-built fixtures, and hostile files made at test time by truncating and
// corrupting real objects.
#include "binary/elf.hpp"

#include <elf.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <fstream>
#include <random>
#include <set>

#include "../temp_dir.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;
using flashfit::test::TempDir;
using namespace flashfit;
using binary::read_elf;

namespace {

const fs::path debian_torch_lib = "/usr/lib/python3/dist-packages/torch/lib";

// Debian's torch/lib entries are symlinks into the multiarch directory.
fs::path debian_lib(const char* name) {
  return fs::canonical(debian_torch_lib / name);
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_bytes(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string run_tool(std::vector<std::string> argv) {
  util::ProcessSpec spec;
  spec.argv = std::move(argv);
  auto result = util::run_process(spec);
  EXPECT_TRUE(result && result->succeeded());
  return result ? result->out : std::string();
}

// nm -D names, without the "@VERSION" suffix binutils 2.40 appends.
std::set<std::string> nm_names(const fs::path& path, const char* filter) {
  std::set<std::string> names;
  const std::string out = run_tool({"nm", "-D", filter, path.string()});
  for (auto line : util::split(out, '\n')) {
    const auto space = line.rfind(' ');
    if (line.empty() || space == std::string_view::npos) continue;
    auto name = line.substr(space + 1);
    name = name.substr(0, name.find('@'));
    if (!name.empty()) names.emplace(name);
  }
  return names;
}

std::set<std::string> as_set(const binary::SymbolNames& names) {
  std::set<std::string> out;
  for (std::size_t i = 0; i < names.size(); ++i) out.emplace(names[i]);
  return out;
}

}  // namespace

TEST(Elf, ReadsDebianLibc10) {
  auto elf = read_elf(debian_lib("libc10.so"));
  ASSERT_TRUE(elf) << elf.error().message;
  EXPECT_EQ(elf->machine_name(), "x86_64");
  EXPECT_EQ(elf->elf_class, binary::ElfClass::elf64);
  EXPECT_EQ(elf->type, ET_DYN);
  EXPECT_EQ(elf->soname, "libc10.so.1.13");
  EXPECT_NE(std::find(elf->needed.begin(), elf->needed.end(), "libstdc++.so.6"), elf->needed.end());
  EXPECT_EQ(elf->defined_symbols.size(), 524u);  // docs/background.md §6
  EXPECT_TRUE(
      elf->defined_symbols.contains("_ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_"
                                    "stringIcSt11char_traitsIcESaIcEEE"));
  EXPECT_FALSE(elf->defined_symbols.contains("_ZN3c106detail14torchCheckFailEPKcS2_jRKSs"));
}

TEST(Elf, DynamicSymbolsMatchNmOnLibtorchCpu) {
  const auto path = debian_lib("libtorch_cpu.so");
  auto elf = read_elf(path);
  ASSERT_TRUE(elf) << elf.error().message;
  EXPECT_GT(elf->defined_symbols.size(), 30000u);
  EXPECT_EQ(as_set(elf->defined_symbols), nm_names(path, "--defined-only"));
  EXPECT_EQ(as_set(elf->undefined_symbols), nm_names(path, "--undefined-only"));
}

TEST(Elf, NeededAndVersionNeedsMatchReadelf) {
  const auto path = debian_lib("libtorch_cpu.so");
  auto elf = read_elf(path);
  ASSERT_TRUE(elf);
  const std::string dynamic = run_tool({"readelf", "-d", "-W", path.string()});
  for (const auto& needed : elf->needed) {
    EXPECT_NE(dynamic.find("Shared library: [" + needed + "]"), std::string::npos) << needed;
  }
  // readelf -V: "File: libc.so.6  Cnt: 9" then "Name: GLIBC_2.2.5  Flags: ...".
  std::set<std::string> files;
  std::set<std::string> versions;
  const std::string text = run_tool({"readelf", "-V", "-W", path.string()});
  const auto section = text.find(".gnu.version_r");
  ASSERT_NE(section, std::string::npos);
  for (auto line : util::split(std::string_view(text).substr(section), '\n')) {
    for (auto [key, set] : {std::pair{"File: ", &files}, std::pair{"Name: ", &versions}}) {
      const auto at = line.find(key);
      if (at == std::string_view::npos) continue;
      auto rest = line.substr(at + std::strlen(key));
      set->emplace(rest.substr(0, rest.find(' ')));
    }
  }
  std::set<std::string> got_files;
  std::set<std::string> got_versions;
  for (const auto& need : elf->version_needs) {
    got_files.insert(need.file);
    got_versions.insert(need.versions.begin(), need.versions.end());
  }
  EXPECT_EQ(got_files, files);
  EXPECT_EQ(got_versions, versions);
  EXPECT_TRUE(got_files.count("libstdc++.so.6"));
  auto glibcxx = elf->max_needed_version("GLIBCXX_");
  ASSERT_TRUE(glibcxx);
  EXPECT_TRUE(*binary::compare_symbol_versions(*glibcxx, "GLIBCXX_3.4.21") >= 0);
  EXPECT_TRUE(elf->max_needed_version("GLIBC_"));
  EXPECT_FALSE(elf->max_needed_version("NOSUCH_"));
}

TEST(Elf, FixtureSonameRpathRunpathAndSymbols) {
  auto abi0 = read_elf(FLASHFIT_FIXTURE_C10_ABI0);
  auto abi1 = read_elf(FLASHFIT_FIXTURE_C10_ABI1);
  ASSERT_TRUE(abi0) << abi0.error().message;
  ASSERT_TRUE(abi1) << abi1.error().message;
  const std::vector<std::string> paths = {"$ORIGIN/lib", "/opt/flashfit-fixture/lib"};
  EXPECT_EQ(abi0->soname, "libc10.so");
  EXPECT_EQ(abi0->rpath, paths);
  EXPECT_TRUE(abi0->runpath.empty());
  EXPECT_EQ(abi1->runpath, paths);
  EXPECT_TRUE(abi1->rpath.empty());
  for (const auto* elf : {&*abi0, &*abi1}) {
    EXPECT_TRUE(elf->defined_symbols.contains("flashfit_fixture_call"));
    EXPECT_TRUE(elf->undefined_symbols.contains("flashfit_fixture_elsewhere"));
    EXPECT_FALSE(elf->defined_symbols.contains("flashfit_fixture_elsewhere"));
  }
  auto plain = read_elf(FLASHFIT_FIXTURE_PLAIN_C);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->soname, "libplain_c.so");  // CMake's default SONAME
  EXPECT_TRUE(plain->defined_symbols.contains("flashfit_fixture_add"));
}

TEST(Elf, SymbolNamesAreSortedUniqueAndSearchable) {
  binary::SymbolNames names({"b", "a", "c", "a", "abc"});
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(names[0], "a");
  EXPECT_EQ(names[3], "c");
  EXPECT_TRUE(names.contains("abc"));
  EXPECT_FALSE(names.contains("ab"));
  EXPECT_EQ(names.find_containing("bc"), "abc");
  EXPECT_FALSE(binary::SymbolNames().contains(""));
}

TEST(Elf, SymbolVersionsCompareNumerically) {
  using binary::compare_symbol_versions;
  EXPECT_EQ(compare_symbol_versions("GLIBC_2.34", "GLIBC_2.4"), std::strong_ordering::greater);
  EXPECT_EQ(compare_symbol_versions("GLIBC_2.2.5", "GLIBC_2.3"), std::strong_ordering::less);
  EXPECT_EQ(compare_symbol_versions("GLIBCXX_3.4.30", "GLIBCXX_3.4.9"),
            std::strong_ordering::greater);
  EXPECT_EQ(compare_symbol_versions("CXXABI_1.3.13", "CXXABI_1.3.13"), std::strong_ordering::equal);
  EXPECT_EQ(compare_symbol_versions("GLIBC_2.17", "GLIBC_2.17.0"), std::strong_ordering::equal);
  EXPECT_FALSE(compare_symbol_versions("GLIBC_2.34", "GLIBCXX_3.4"));
  EXPECT_FALSE(compare_symbol_versions("GLIBC_PRIVATE", "GLIBC_2.4"));
  EXPECT_FALSE(compare_symbol_versions("GLIBC_2..4", "GLIBC_2.4"));
  EXPECT_FALSE(compare_symbol_versions("GLIBC_99999999999", "GLIBC_2.4"));
  EXPECT_FALSE(compare_symbol_versions("libc.so.6", "GLIBC_2.4"));
  auto parsed = binary::parse_symbol_version("GLIBCXX_3.4.30");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->name, "GLIBCXX");
  EXPECT_EQ(parsed->numbers, (std::vector<std::uint32_t>{3, 4, 30}));
}

TEST(Elf, FindsPybind11IdInReadOnlyData) {
  auto fixture =
      binary::find_strings_with_prefix(FLASHFIT_FIXTURE_C10_ABI1, "__pybind11_internals_v");
  ASSERT_TRUE(fixture) << fixture.error().message;
  EXPECT_EQ(*fixture,
            std::vector<std::string>{"__pybind11_internals_v4_gcc_libstdcpp_cxxabi1017__"});
  auto debian = binary::find_strings_with_prefix(debian_lib("libtorch_python.so"), "__pybind11_");
  ASSERT_TRUE(debian) << debian.error().message;
  EXPECT_EQ(*debian,
            (std::vector<std::string>{"__pybind11_internals_v4_gcc_libstdcpp_cxxabi1017__",
                                      "__pybind11_module_local_v4_gcc_libstdcpp_cxxabi1017__"}));
  auto one = binary::find_strings_with_prefix(debian_lib("libtorch_python.so"), "__pybind11_", 1);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->size(), 1u);
  auto cut =
      binary::find_strings_with_prefix(FLASHFIT_FIXTURE_C10_ABI1, "__pybind11_internals_v", 4, 10);
  ASSERT_TRUE(cut);
  EXPECT_EQ(*cut, std::vector<std::string>{"__pybind11"});
  auto none = binary::find_strings_with_prefix(FLASHFIT_FIXTURE_PLAIN_C, "__pybind11_");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

// ---- hostile input ---------------------------------------------------------

TEST(ElfHostile, MissingDirectoryEmptyAndNonElf) {
  TempDir dir("elf");
  auto missing = read_elf(dir.path() / "nope.so");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, util::ErrorKind::input);
  EXPECT_NE(missing.error().message.find("cannot open"), std::string::npos);
  EXPECT_NE(missing.error().context.find("nope.so"), std::string::npos);

  auto directory = read_elf(dir.path());
  ASSERT_FALSE(directory);
  EXPECT_NE(directory.error().message, "");

  write_bytes(dir.path() / "empty.so", "");
  auto empty = read_elf(dir.path() / "empty.so");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("not an ELF file"), std::string::npos);

  write_bytes(dir.path() / "text.so", "#!/bin/sh\necho this is not a library at all\n");
  auto text = read_elf(dir.path() / "text.so");
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find("not an ELF file"), std::string::npos);
  EXPECT_FALSE(binary::find_strings_with_prefix(dir.path() / "text.so", "x"));

  write_bytes(dir.path() / "magic.so",
              "\x7f"
              "ELF\x02\x01\x01");
  auto magic = read_elf(dir.path() / "magic.so");
  ASSERT_FALSE(magic);
  EXPECT_NE(magic.error().message.find("ELF"), std::string::npos);
}

TEST(ElfHostile, TruncatedCopiesFailCleanly) {
  TempDir dir("elf");
  const std::string bytes = read_bytes(debian_lib("libc10.so"));
  ASSERT_GT(bytes.size(), 100000u);
  const fs::path path = dir.path() / "libc10.so";
  // The header, inside the tables, just before the section headers at the end.
  std::vector<std::size_t> sizes = {4,
                                    16,
                                    52,
                                    63,
                                    64,
                                    65,
                                    200,
                                    0x1500,
                                    0x5000,
                                    bytes.size() / 2,
                                    bytes.size() - 64,
                                    bytes.size() - 1};
  for (std::size_t size : sizes) {
    write_bytes(path, std::string_view(bytes).substr(0, size));
    auto elf = read_elf(path);
    EXPECT_FALSE(elf) << "size " << size;
    if (!elf) {
      EXPECT_FALSE(elf.error().message.empty());
      EXPECT_EQ(elf.error().context, path.string());
    }
    (void)binary::find_strings_with_prefix(path, "__pybind11");
  }
}

namespace {
Elf64_Ehdr header_of(const std::string& bytes) {
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  return header;
}
// Index of the first section of a type, and a pointer to its header's bytes.
char* section_header(std::string& bytes, std::uint32_t type) {
  const auto header = header_of(bytes);
  for (std::size_t i = 0; i < header.e_shnum; ++i) {
    char* at = bytes.data() + header.e_shoff + i * sizeof(Elf64_Shdr);
    Elf64_Shdr section;
    std::memcpy(&section, at, sizeof section);
    if (section.sh_type == type) return at;
  }
  return nullptr;
}
template <class T>
void poke(char* at, std::size_t offset, T value) {
  std::memcpy(at + offset, &value, sizeof value);
}
}  // namespace

TEST(ElfHostile, CorruptHeadersAndTablesFailCleanly) {
  TempDir dir("elf");
  const std::string original = read_bytes(FLASHFIT_FIXTURE_C10_ABI1);
  const fs::path path = dir.path() / "bad.so";
  struct Case {
    const char* name;
    void (*corrupt)(std::string&);
  };
  const Case cases[] = {
      {"e_shoff past EOF",
       [](std::string& b) {
         poke(b.data(), offsetof(Elf64_Ehdr, e_shoff), std::uint64_t{1} << 40);
       }},
      {"e_shnum huge",
       [](std::string& b) {
         poke(b.data(), offsetof(Elf64_Ehdr, e_shnum), std::uint16_t{0xfff0});
       }},
      {"dynsym offset past EOF",
       [](std::string& b) {
         poke(section_header(b, SHT_DYNSYM), offsetof(Elf64_Shdr, sh_offset),
              std::uint64_t{1} << 40);
       }},
      {"dynsym size huge",
       [](std::string& b) {
         poke(section_header(b, SHT_DYNSYM), offsetof(Elf64_Shdr, sh_size), std::uint64_t{1} << 50);
       }},
      {"dynsym string table index invalid",
       [](std::string& b) {
         poke(section_header(b, SHT_DYNSYM), offsetof(Elf64_Shdr, sh_link), std::uint32_t{9999});
       }},
      {"dynamic offset past EOF",
       [](std::string& b) {
         poke(section_header(b, SHT_DYNAMIC), offsetof(Elf64_Shdr, sh_offset),
              std::uint64_t{1} << 40);
       }},
      {"verneed size huge",
       [](std::string& b) {
         poke(section_header(b, SHT_GNU_verneed), offsetof(Elf64_Shdr, sh_size),
              std::uint64_t{1} << 40);
       }},
      {"dynstr shrunk to nothing",
       [](std::string& b) {
         char* dynsym = section_header(b, SHT_DYNSYM);
         Elf64_Shdr symbols;
         std::memcpy(&symbols, dynsym, sizeof symbols);
         const auto header = header_of(b);
         char* strtab = b.data() + header.e_shoff + symbols.sh_link * sizeof(Elf64_Shdr);
         poke(strtab, offsetof(Elf64_Shdr, sh_size), std::uint64_t{1});
       }},
  };
  for (const auto& c : cases) {
    std::string bytes = original;
    c.corrupt(bytes);
    write_bytes(path, bytes);
    auto elf = read_elf(path);
    EXPECT_FALSE(elf) << c.name;
    if (!elf) {
      EXPECT_FALSE(elf.error().message.empty()) << c.name;
    }
  }
  // A huge verneed count in sh_info alone is only a claim: the walk stops at vn_next == 0.
  std::string bytes = original;
  poke(section_header(bytes, SHT_GNU_verneed), offsetof(Elf64_Shdr, sh_info),
       std::uint32_t{0xffffffff});
  write_bytes(path, bytes);
  auto elf = read_elf(path);
  ASSERT_TRUE(elf) << elf.error().message;
  EXPECT_FALSE(elf->version_needs.empty());
}

TEST(ElfHostile, RandomByteFlipsNeverCrash) {
  TempDir dir("elf");
  const std::string original = read_bytes(FLASHFIT_FIXTURE_C10_ABI0);
  const fs::path path = dir.path() / "flipped.so";
  std::mt19937 random(12345);  // fixed seed: a failure reproduces
  std::uniform_int_distribution<std::size_t> where(0, original.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  int ok = 0;
  for (int round = 0; round < 300; ++round) {
    std::string bytes = original;
    for (int k = 0; k < 16; ++k) bytes[where(random)] = static_cast<char>(byte(random));
    write_bytes(path, bytes);
    auto elf = read_elf(path);
    if (elf) {
      ++ok;
    } else {
      EXPECT_FALSE(elf.error().message.empty());
    }
    (void)binary::find_strings_with_prefix(path, "__pybind11");
  }
  EXPECT_GT(ok, 0);  // most flips land in code and change nothing we read
}

TEST(ElfHostile, OtherMachinesAreReportedNotRejected) {
  // No cross compiler here: an x86_64 fixture relabelled as aarch64 reads the
  // same, since only e_machine changes.
  TempDir dir("elf");
  std::string bytes = read_bytes(FLASHFIT_FIXTURE_PLAIN_C);
  const fs::path path = dir.path() / "aarch64.so";
  for (auto [machine, name] : {std::pair{std::uint16_t{EM_AARCH64}, "aarch64"},
                               std::pair{std::uint16_t{EM_RISCV}, "riscv"},
                               std::pair{std::uint16_t{4242}, "e_machine 4242"}}) {
    poke(bytes.data(), offsetof(Elf64_Ehdr, e_machine), machine);
    write_bytes(path, bytes);
    auto elf = read_elf(path);
    ASSERT_TRUE(elf) << elf.error().message;
    EXPECT_EQ(elf->machine_name(), name);
    EXPECT_TRUE(elf->defined_symbols.contains("flashfit_fixture_add"));
  }
}

// ---- version definitions (DT_VERDEF) -----------------------------------------

namespace {

const fs::path system_libc = "/lib/x86_64-linux-gnu/libc.so.6";
const fs::path system_libstdcxx = "/lib/x86_64-linux-gnu/libstdc++.so.6";

// readelf -V: "0x001c: Rev: 1  Flags: none  Index: 2  Cnt: 1  Name: GLIBC_2.2.5",
// the base entry flagged "BASE", parents on "Parent 1: ..." lines.
std::vector<std::string> readelf_definitions(const fs::path& path) {
  std::vector<std::string> names;
  const std::string text = run_tool({"readelf", "-V", "-W", path.string()});
  const auto begin = text.find(".gnu.version_d");
  const auto end = text.find(".gnu.version_r");
  if (begin == std::string::npos) return names;
  for (auto line : util::split(std::string_view(text).substr(begin, end - begin), '\n')) {
    const auto at = line.find("Name: ");
    if (at == std::string_view::npos || line.find("Flags: BASE") != std::string_view::npos) {
      continue;
    }
    names.emplace_back(util::trim(line.substr(at + 6)));
  }
  return names;
}

}  // namespace

TEST(ElfVersionDefinitions, MatchReadelfOnLibcAndLibstdcxx) {
  auto libc = read_elf(system_libc);
  ASSERT_TRUE(libc) << libc.error().message;
  EXPECT_EQ(libc->version_definitions, readelf_definitions(system_libc));
  ASSERT_FALSE(libc->version_definitions.empty());
  EXPECT_EQ(libc->version_definitions.front(), "GLIBC_2.2.5");
  EXPECT_TRUE(libc->defines_version("GLIBC_2.34"));
  EXPECT_TRUE(libc->defines_version("GLIBC_2.36"));
  EXPECT_TRUE(libc->defines_version("GLIBC_PRIVATE"));
  EXPECT_FALSE(libc->defines_version("GLIBC_2.99"));
  EXPECT_FALSE(libc->defines_version("libc.so.6"));  // the base entry is the file's own name
  EXPECT_FALSE(libc->defines_version("GLIBC_2"));    // exact names, not prefixes

  auto cxx = read_elf(system_libstdcxx);
  ASSERT_TRUE(cxx) << cxx.error().message;
  EXPECT_EQ(cxx->version_definitions, readelf_definitions(system_libstdcxx));
  EXPECT_TRUE(cxx->defines_version("GLIBCXX_3.4"));
  EXPECT_TRUE(cxx->defines_version("GLIBCXX_3.4.30"));
  EXPECT_TRUE(cxx->defines_version("CXXABI_1.3"));
  EXPECT_FALSE(cxx->defines_version("GLIBCXX_3.4.99"));
  EXPECT_FALSE(cxx->defines_version("libstdc++.so.6"));
  const std::set<std::string> unique(cxx->version_definitions.begin(),
                                     cxx->version_definitions.end());
  EXPECT_EQ(unique.size(), cxx->version_definitions.size());

  // No version script, no definitions.
  auto plain = read_elf(FLASHFIT_FIXTURE_PLAIN_C);
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->version_definitions.empty());
  EXPECT_FALSE(plain->defines_version(""));
}

TEST(ElfVersionDefinitions, DynamicOnlyReadSkipsTables) {
  auto full = read_elf(system_libstdcxx);
  auto dynamic = binary::read_elf_dynamic(system_libstdcxx);
  ASSERT_TRUE(full && dynamic);
  EXPECT_EQ(dynamic->soname, full->soname);
  EXPECT_EQ(dynamic->needed, full->needed);
  EXPECT_EQ(dynamic->machine, full->machine);
  EXPECT_TRUE(dynamic->defined_symbols.empty());
  EXPECT_TRUE(dynamic->version_needs.empty());
  EXPECT_TRUE(dynamic->version_definitions.empty());
  EXPECT_FALSE(binary::read_elf_dynamic("/nonexistent/libnope.so"));
}

namespace {

struct VerdefCopy {
  std::string bytes;
  char* header = nullptr;  // the section header of .gnu.version_d
  std::size_t offset = 0;  // where the section's contents start

  explicit VerdefCopy(const fs::path& from) : bytes(read_bytes(from)) {
    header = section_header(bytes, SHT_GNU_verdef);
    if (header != nullptr) {
      Elf64_Shdr section;
      std::memcpy(&section, header, sizeof section);
      offset = section.sh_offset;
    }
  }
  // The n-th definition entry (following vd_next) and its first aux entry.
  char* entry(int n) {
    std::size_t at = offset;
    for (int i = 0; i < n; ++i) {
      Elf64_Verdef definition;
      std::memcpy(&definition, bytes.data() + at, sizeof definition);
      at += definition.vd_next;
    }
    return bytes.data() + at;
  }
  char* aux(int n) {
    Elf64_Verdef definition;
    std::memcpy(&definition, entry(n), sizeof definition);
    return entry(n) + definition.vd_aux;
  }
};

}  // namespace

TEST(ElfVersionDefinitionsHostile, GarbledSectionsFailOrStaySafe) {
  TempDir dir("verdef");
  const fs::path path = dir.path() / "libc.so.6";
  auto original = read_elf(system_libc);
  ASSERT_TRUE(original);
  const auto& all = original->version_definitions;
  ASSERT_GT(all.size(), 3u);

  struct Case {
    const char* name;
    void (*corrupt)(VerdefCopy&);
    // nullopt: must be an error; otherwise the definitions expected.
    std::optional<std::vector<std::string>> expected;
  };
  std::vector<std::string> without_first(all.begin() + 1, all.end());
  std::vector<std::string> merged = all;
  merged.erase(merged.begin() + 1);  // GLIBC_2.2.6 renamed to GLIBC_2.2.5, kept once
  const Case cases[] = {
      {"count claims 2^32-1 entries (walk ends at vd_next == 0)",
       [](VerdefCopy& c) {
         poke(c.header, offsetof(Elf64_Shdr, sh_info), std::uint32_t{0xffffffff});
       },
       all},
      {"count claims 2 entries",
       [](VerdefCopy& c) { poke(c.header, offsetof(Elf64_Shdr, sh_info), std::uint32_t{2}); },
       std::vector<std::string>{"GLIBC_2.2.5"}},
      {"section size huge",
       [](VerdefCopy& c) { poke(c.header, offsetof(Elf64_Shdr, sh_size), std::uint64_t{1} << 40); },
       std::nullopt},
      {"section offset past EOF",
       [](VerdefCopy& c) {
         poke(c.header, offsetof(Elf64_Shdr, sh_offset), std::uint64_t{1} << 40);
       },
       std::nullopt},
      {"section cut inside the second entry",
       [](VerdefCopy& c) {
         poke(c.header, offsetof(Elf64_Shdr, sh_size), std::uint64_t{0x1c + 10});
       },
       std::nullopt},
      {"string table index invalid",
       [](VerdefCopy& c) { poke(c.header, offsetof(Elf64_Shdr, sh_link), std::uint32_t{9999}); },
       std::nullopt},
      {"vd_next overlaps the entry",
       [](VerdefCopy& c) { poke(c.entry(0), offsetof(Elf64_Verdef, vd_next), std::uint32_t{4}); },
       std::nullopt},
      {"vd_next leaves the section",
       [](VerdefCopy& c) {
         poke(c.entry(1), offsetof(Elf64_Verdef, vd_next), std::uint32_t{0x7fffffff});
       },
       std::vector<std::string>{"GLIBC_2.2.5"}},
      {"vd_next wraps past 2^32",
       [](VerdefCopy& c) {
         poke(c.entry(1), offsetof(Elf64_Verdef, vd_next), std::uint32_t{0xffffffe4});
       },
       std::vector<std::string>{"GLIBC_2.2.5"}},
      {"vd_aux leaves the section",
       [](VerdefCopy& c) {
         poke(c.entry(1), offsetof(Elf64_Verdef, vd_aux), std::uint32_t{0xfffffff0});
       },
       without_first},
      {"vd_cnt 0",
       [](VerdefCopy& c) { poke(c.entry(1), offsetof(Elf64_Verdef, vd_cnt), std::uint16_t{0}); },
       without_first},
      {"every entry flagged as the base",
       [](VerdefCopy& c) {
         for (int i = 0; i < 3; ++i) {
           poke(c.entry(i), offsetof(Elf64_Verdef, vd_flags), std::uint16_t{VER_FLG_BASE});
         }
         poke(c.header, offsetof(Elf64_Shdr, sh_info), std::uint32_t{3});
       },
       std::vector<std::string>{}},
      {"name offset past the string table",
       [](VerdefCopy& c) {
         poke(c.aux(1), offsetof(Elf64_Verdaux, vda_name), std::uint32_t{0x7ffffff0});
       },
       std::nullopt},
      {"two entries with the same name",
       [](VerdefCopy& c) {
         Elf64_Verdaux first;
         std::memcpy(&first, c.aux(1), sizeof first);
         poke(c.aux(2), offsetof(Elf64_Verdaux, vda_name), first.vda_name);
       },
       merged},
  };
  for (const auto& c : cases) {
    VerdefCopy copy(system_libc);
    ASSERT_NE(copy.header, nullptr);
    c.corrupt(copy);
    write_bytes(path, copy.bytes);
    auto elf = read_elf(path);
    if (c.expected) {
      ASSERT_TRUE(elf) << c.name << ": " << elf.error().message;
      EXPECT_EQ(elf->version_definitions, *c.expected) << c.name;
    } else {
      ASSERT_FALSE(elf) << c.name;
      EXPECT_EQ(elf.error().kind, util::ErrorKind::input) << c.name;
      EXPECT_EQ(elf.error().context, path.string()) << c.name;
    }
  }
}

TEST(ElfVersionDefinitionsHostile, TruncatedAndFlippedCopiesNeverCrash) {
  TempDir dir("verdef");
  const fs::path path = dir.path() / "libstdc++.so.6";
  VerdefCopy copy(system_libstdcxx);
  ASSERT_NE(copy.header, nullptr);
  Elf64_Shdr section;
  std::memcpy(&section, copy.header, sizeof section);
  // Cut inside the version definitions: the section headers at the end go too.
  for (std::size_t cut : {section.sh_offset + 3, section.sh_offset + 0x1c + 7,
                          section.sh_offset + section.sh_size - 1}) {
    write_bytes(path, std::string_view(copy.bytes).substr(0, cut));
    auto elf = read_elf(path);
    ASSERT_FALSE(elf) << cut;
    EXPECT_FALSE(elf.error().message.empty());
  }
  // Random bytes inside the section: an error or some definitions, never a crash.
  std::mt19937 random(4242);
  std::uniform_int_distribution<std::size_t> where(section.sh_offset,
                                                   section.sh_offset + section.sh_size - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  int ok = 0;
  for (int round = 0; round < 200; ++round) {
    std::string bytes = copy.bytes;
    for (int k = 0; k < 6; ++k) bytes[where(random)] = static_cast<char>(byte(random));
    write_bytes(path, bytes);
    auto elf = read_elf(path);
    if (elf) {
      ++ok;
      EXPECT_LE(elf->version_definitions.size(), section.sh_size / sizeof(Elf64_Verdef));
    } else {
      EXPECT_FALSE(elf.error().message.empty());
    }
  }
  EXPECT_GT(ok, 0);
}
