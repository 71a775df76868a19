// parse_ld_so_cache against the real /etc/ld.so.cache (checked against
// `ldconfig -p`), and synthetic caches built byte by byte here: the three
// layouts glibc writes, both byte orders, and hostile counts and offsets.
#include "binary/ld_cache.hpp"

#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <tuple>

#include "../temp_dir.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;
using flashfit::test::TempDir;
using namespace flashfit;
using binary::LdCacheEntry;
using binary::parse_ld_so_cache;

namespace {

// ---- building caches ------------------------------------------------------

struct Spec {
  std::uint32_t flags;
  std::string soname;
  std::string path;
  std::uint64_t hwcap = 0;
};

enum class Layout { new_only, compat, old_only };

class Bytes {
 public:
  explicit Bytes(bool big = false) : big_(big) {}
  void text(std::string_view s) { out_.insert(out_.end(), s.begin(), s.end()); }
  void zeros(std::size_t n) { out_.insert(out_.end(), n, 0); }
  void u32(std::uint64_t v) { number(v, 4); }
  void u64(std::uint64_t v) { number(v, 8); }
  void pad_to(std::size_t align) {
    while (out_.size() % align != 0) out_.push_back(0);
  }
  std::size_t size() const { return out_.size(); }
  std::vector<std::uint8_t>& raw() { return out_; }

 private:
  void number(std::uint64_t v, int width) {
    for (int i = 0; i < width; ++i) {
      const int shift = big_ ? (width - 1 - i) * 8 : i * 8;
      out_.push_back(static_cast<std::uint8_t>(v >> shift));
    }
  }
  bool big_;
  std::vector<std::uint8_t> out_;
};

// Strings go after everything else, as ldconfig writes them; each string
// offset is relative to the start of its part (the new header, or the end of
// the old entries).
std::vector<std::uint8_t> build_cache(const std::vector<Spec>& specs,
                                      Layout layout = Layout::new_only, bool big = false,
                                      std::size_t compat_align = 8) {
  std::string strings;
  std::vector<std::pair<std::size_t, std::size_t>> at;  // soname, path offsets in `strings`
  for (const auto& spec : specs) {
    const std::size_t soname = strings.size();
    strings += spec.soname + '\0';
    const std::size_t path = strings.size();
    strings += spec.path + '\0';
    at.emplace_back(soname, path);
  }
  Bytes out(big);
  std::size_t old_end = 0;
  if (layout != Layout::new_only) {
    out.text("ld.so-1.7.0");
    out.zeros(1);
    out.u32(specs.size());
    old_end = 16 + specs.size() * 12;
  }
  const std::size_t new_start =
      layout == Layout::new_only ? 0 : (old_end + compat_align - 1) / compat_align * compat_align;
  const std::size_t new_end = new_start + 48 + specs.size() * 24;
  const std::size_t strings_at = layout == Layout::old_only ? old_end : new_end;
  if (layout != Layout::new_only) {
    for (std::size_t i = 0; i < specs.size(); ++i) {
      out.u32(specs[i].flags);
      out.u32(strings_at - old_end + at[i].first);
      out.u32(strings_at - old_end + at[i].second);
    }
  }
  if (layout != Layout::old_only) {
    out.zeros(new_start - out.size());
    out.text("glibc-ld.so.cache1.1");
    out.u32(specs.size());
    out.u32(strings.size());
    out.raw().push_back(big ? 3 : 2);
    out.zeros(3);
    out.u32(0);  // no extension
    out.zeros(12);
    for (std::size_t i = 0; i < specs.size(); ++i) {
      out.u32(specs[i].flags);
      out.u32(strings_at - new_start + at[i].first);
      out.u32(strings_at - new_start + at[i].second);
      out.u32(0);
      out.u64(specs[i].hwcap);
    }
  }
  out.text(strings);
  return std::move(out.raw());
}

const std::vector<Spec> sample = {
    {0x0303, "libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1"},
    {0x0003, "libz.so.1", "/lib32/libz.so.1"},
    {0x0303, "libfoo.so.2", "/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libfoo.so.2",
     (std::uint64_t{1} << 62) | 2},
    {0x0a03, "libbar.so", "/usr/lib/aarch64-linux-gnu/libbar.so"},
};

void expect_sample(const std::vector<LdCacheEntry>& got, bool with_hwcap = true) {
  ASSERT_EQ(got.size(), sample.size());
  for (std::size_t i = 0; i < sample.size(); ++i) {
    EXPECT_EQ(got[i].soname, sample[i].soname) << i;
    EXPECT_EQ(got[i].path, sample[i].path) << i;
    EXPECT_EQ(got[i].flags, sample[i].flags) << i;
    EXPECT_EQ(got[i].hwcap, with_hwcap ? sample[i].hwcap : 0) << i;
  }
}

void poke32(std::vector<std::uint8_t>& bytes, std::size_t at, std::uint32_t value) {
  std::memcpy(bytes.data() + at, &value, sizeof value);  // little-endian host and cache
}

std::string error_of(const std::vector<std::uint8_t>& bytes) {
  auto parsed = parse_ld_so_cache(bytes);
  EXPECT_FALSE(parsed);
  if (parsed) return {};
  EXPECT_EQ(parsed.error().kind, util::ErrorKind::input);
  EXPECT_FALSE(parsed.error().message.empty());
  return parsed.error().message;
}

}  // namespace

// ---- the real cache ---------------------------------------------------------

TEST(LdCache, RealCacheAgreesWithLdconfig) {
  auto entries = binary::read_ld_so_cache();
  ASSERT_TRUE(entries) << entries.error().message;
  ASSERT_FALSE(entries->empty());

  util::ProcessSpec spec;
  spec.argv = {"/sbin/ldconfig", "-p"};
  auto run = util::run_process(spec);
  ASSERT_TRUE(run && run->succeeded());
  // "901 libs found in cache `/etc/ld.so.cache'" then, per entry in file
  // order, "\tlibz.so.1 (libc6,x86-64[, hwcap: ...]) => /lib/.../libz.so.1".
  using Row = std::tuple<std::string, std::string, std::string>;  // soname, flags, path
  std::vector<Row> expected;
  std::size_t declared = 0;
  for (auto line : util::split(run->out, '\n')) {
    if (line.find(" libs found in cache") != std::string_view::npos) {
      declared = std::stoul(std::string(line.substr(0, line.find(' '))));
      continue;
    }
    const auto open = line.find(" (");
    const auto arrow = line.find(") => ");
    if (open == std::string_view::npos || arrow == std::string_view::npos) continue;
    auto flags = line.substr(open + 2, arrow - open - 2);
    flags = flags.substr(0, flags.find(", "));  // ", hwcap: ...", ", OS ABI: ..."
    expected.emplace_back(std::string(util::trim(line.substr(0, open))), std::string(flags),
                          std::string(line.substr(arrow + 5)));
  }
  EXPECT_EQ(declared, entries->size());
  std::vector<Row> got;
  for (const auto& entry : *entries) {
    got.emplace_back(entry.soname, binary::ld_cache_flags_name(entry.flags), entry.path);
  }
  EXPECT_EQ(got, expected);

#if defined(__x86_64__)
  // The entries this machine's 64-bit loader uses, as soname -> path.
  std::set<std::pair<std::string, std::string>> ours;
  std::set<std::pair<std::string, std::string>> theirs;
  for (const auto& entry : *entries) {
    if (binary::ld_cache_flags_match(entry.flags, binary::ElfClass::elf64, EM_X86_64)) {
      ours.emplace(entry.soname, entry.path);
    }
  }
  for (const auto& [soname, flags, path] : expected) {
    if (flags == "libc6,x86-64") theirs.emplace(soname, path);
  }
  EXPECT_EQ(ours, theirs);
  EXPECT_TRUE(ours.count({"libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6"}));
#endif
}

TEST(LdCache, ReadErrorsNameTheFile) {
  TempDir dir("ldcache");
  auto missing = binary::read_ld_so_cache(dir.path() / "nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, util::ErrorKind::input);
  EXPECT_NE(missing.error().context.find("nope"), std::string::npos);
  EXPECT_FALSE(binary::read_ld_so_cache(dir.path()));

  const fs::path bad = dir.path() / "ld.so.cache";
  std::ofstream(bad, std::ios::binary) << "glibc-ld.so.cache1.1 but cut short";
  auto parsed = binary::read_ld_so_cache(bad);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().context, bad.string());

  const auto good = build_cache(sample);
  std::ofstream(bad, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(good.data()), static_cast<std::streamsize>(good.size()));
  auto read = binary::read_ld_so_cache(bad);
  ASSERT_TRUE(read) << read.error().message;
  expect_sample(*read);
}

// ---- layouts ----------------------------------------------------------------

TEST(LdCache, ParsesEveryLayoutAndByteOrder) {
  auto plain = parse_ld_so_cache(build_cache(sample));
  ASSERT_TRUE(plain) << plain.error().message;
  expect_sample(*plain);

  // glibc's compat layout: the loader reads the new part, hwcaps included.
  for (std::size_t align : {8U, 4U}) {
    auto compat = parse_ld_so_cache(build_cache(sample, Layout::compat, false, align));
    ASSERT_TRUE(compat) << compat.error().message;
    expect_sample(*compat);
  }
  // An odd entry count makes 8- and 4-byte alignment differ.
  std::vector<Spec> three(sample.begin(), sample.begin() + 3);
  for (std::size_t align : {8U, 4U}) {
    auto compat = parse_ld_so_cache(build_cache(three, Layout::compat, false, align));
    ASSERT_TRUE(compat) << compat.error().message;
    ASSERT_EQ(compat->size(), 3u);
    EXPECT_EQ((*compat)[2].hwcap, sample[2].hwcap);
  }

  auto old = parse_ld_so_cache(build_cache(sample, Layout::old_only));
  ASSERT_TRUE(old) << old.error().message;
  expect_sample(*old, false);

  auto big = parse_ld_so_cache(build_cache(sample, Layout::new_only, true));
  ASSERT_TRUE(big) << big.error().message;
  expect_sample(*big);

  auto empty = parse_ld_so_cache(build_cache({}));
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(LdCache, FlagHelpers) {
  using binary::ElfClass;
  EXPECT_EQ(binary::ld_cache_default_flags(ElfClass::elf64, EM_X86_64), 0x0303u);
  EXPECT_EQ(binary::ld_cache_default_flags(ElfClass::elf64, EM_AARCH64), 0x0a03u);
  EXPECT_EQ(binary::ld_cache_default_flags(ElfClass::elf32, EM_386), 0x0003u);
  EXPECT_EQ(binary::ld_cache_default_flags(ElfClass::elf32, EM_X86_64), 0x0803u);
  EXPECT_FALSE(binary::ld_cache_default_flags(ElfClass::elf64, EM_386));
  EXPECT_FALSE(binary::ld_cache_default_flags(ElfClass::elf64, 4242));
  EXPECT_EQ(binary::kLdCacheFlagElfLibc6 | binary::kLdCacheFlagX8664Lib64, 0x0303u);

  auto x86_64 = binary::ld_cache_flags_abi(0x0303);
  ASSERT_TRUE(x86_64);
  EXPECT_EQ(x86_64->elf_class, ElfClass::elf64);
  EXPECT_EQ(x86_64->machine, EM_X86_64);
  auto aarch64 = binary::ld_cache_flags_abi(0x0a03);
  ASSERT_TRUE(aarch64);
  EXPECT_EQ(aarch64->machine, EM_AARCH64);
  auto i386 = binary::ld_cache_flags_abi(0x0003);
  ASSERT_TRUE(i386);
  EXPECT_EQ(i386->elf_class, ElfClass::elf32);
  EXPECT_EQ(i386->machine, EM_386);
  EXPECT_FALSE(binary::ld_cache_flags_abi(0x0001));
  EXPECT_FALSE(binary::ld_cache_flags_abi(0x7f03));

  EXPECT_TRUE(binary::ld_cache_flags_match(0x0303, ElfClass::elf64, EM_X86_64));
  EXPECT_FALSE(binary::ld_cache_flags_match(0x0003, ElfClass::elf64, EM_X86_64));
  EXPECT_FALSE(binary::ld_cache_flags_match(0x0303, ElfClass::elf32, EM_386));
  EXPECT_TRUE(binary::ld_cache_flags_match(0x0003, ElfClass::elf32, EM_386));
  // The bare ELF id: only loaders without an ABI id of their own take it.
  EXPECT_TRUE(binary::ld_cache_flags_match(0x0001, ElfClass::elf32, EM_386));
  EXPECT_FALSE(binary::ld_cache_flags_match(0x0001, ElfClass::elf64, EM_X86_64));
  EXPECT_FALSE(binary::ld_cache_flags_match(0x0001, ElfClass::elf64, EM_AARCH64));
  EXPECT_FALSE(binary::ld_cache_flags_match(0x0303, ElfClass::elf64, 4242));

  EXPECT_EQ(binary::ld_cache_flags_name(0x0303), "libc6,x86-64");
  EXPECT_EQ(binary::ld_cache_flags_name(0x0003), "libc6");
  EXPECT_EQ(binary::ld_cache_flags_name(0x0a03), "libc6,AArch64");
  EXPECT_EQ(binary::ld_cache_flags_name(0x0803), "libc6,x32");
  EXPECT_EQ(binary::ld_cache_flags_name(0x0001), "ELF");
}

// ---- hostile input ------------------------------------------------------------

TEST(LdCacheHostile, BadMagicAndShortHeaders) {
  EXPECT_NE(error_of({}).find("not an ld.so.cache"), std::string::npos);
  const std::string text = "#!/bin/sh\nexit 0\n";
  EXPECT_NE(error_of({text.begin(), text.end()}).find("not an ld.so.cache"), std::string::npos);
  std::vector<std::uint8_t> nearly = build_cache(sample);
  nearly[5] = 'X';  // "glibcXld.so.cache1.1"
  EXPECT_NE(error_of(nearly).find("not an ld.so.cache"), std::string::npos);
  nearly = build_cache(sample);
  nearly[19] = '2';  // version 1.2: a format this parser does not know
  EXPECT_NE(error_of(nearly).find("not an ld.so.cache"), std::string::npos);
  // Non-printable bytes are escaped in the message, not echoed raw.
  const std::vector<std::uint8_t> binary_junk = {0x7f, 0x1b, 0x5b, 0x32, 0x4a, 0xff};
  EXPECT_EQ(error_of(binary_junk).find('\x1b'), std::string::npos);
}

TEST(LdCacheHostile, CountsThatDoNotFit) {
  // 0x0aaaaaab * 24 and 0x15555556 * 12 wrap around to 8 in 32 bits.
  const auto fresh = build_cache(sample);
  const auto one_too_many = static_cast<std::uint32_t>((fresh.size() - 48) / 24 + 1);
  for (std::uint32_t count : {0xffffffffU, 0x80000000U, 0x0aaaaaabU, one_too_many}) {
    auto bytes = fresh;
    poke32(bytes, 20, count);
    EXPECT_NE(error_of(bytes).find("declares"), std::string::npos) << count;
  }
  const auto old = build_cache(sample, Layout::old_only);
  const auto old_too_many = static_cast<std::uint32_t>((old.size() - 16) / 12 + 1);
  for (std::uint32_t count : {0xffffffffU, 0x15555556U, old_too_many}) {
    auto bytes = old;
    poke32(bytes, 12, count);
    EXPECT_NE(error_of(bytes).find("declares"), std::string::npos) << count;
  }
  // In the compat layout a wrong old count moves where the new part is
  // looked for: either way the result is an error or the entries, never a
  // read out of bounds.
  for (std::uint32_t count : {0xffffffffU, 3U, 5U, 6U}) {
    auto bytes = build_cache(sample, Layout::compat);
    poke32(bytes, 12, count);
    (void)parse_ld_so_cache(bytes);
  }
}

TEST(LdCacheHostile, StringOffsetsOutsideOrUnterminated) {
  const std::size_t first_entry = 48;
  for (std::size_t field : {4U, 8U}) {
    for (std::uint32_t offset : {0xffffffffU, 0x7fffffffU}) {
      auto bytes = build_cache(sample);
      poke32(bytes, first_entry + field, offset);
      EXPECT_NE(error_of(bytes).find("past the end"), std::string::npos);
    }
    // Exactly the size: one past the last byte.
    auto bytes = build_cache(sample);
    poke32(bytes, first_entry + 24 + field, static_cast<std::uint32_t>(bytes.size()));
    EXPECT_NE(error_of(bytes).find("past the end"), std::string::npos);
  }
  // The last string loses its NUL: it would run off the end.
  auto bytes = build_cache(sample);
  bytes.back() = 'x';
  EXPECT_NE(error_of(bytes).find("no terminating NUL"), std::string::npos);
  // An offset pointing at a NUL is an empty name.
  bytes = build_cache(sample);
  poke32(bytes, first_entry + 4, static_cast<std::uint32_t>(bytes.size() - 1));
  EXPECT_NE(error_of(bytes).find("empty"), std::string::npos);
  // Old-format entries are checked the same way.
  bytes = build_cache(sample, Layout::old_only);
  poke32(bytes, 16 + 4, 0xfffffff0U);
  EXPECT_NE(error_of(bytes).find("past the end"), std::string::npos);
}

TEST(LdCacheHostile, InvalidByteOrderMark) {
  auto bytes = build_cache(sample);
  bytes[28] = 1;
  EXPECT_NE(error_of(bytes).find("byte order"), std::string::npos);
  // 0 (written before glibc 2.33) means the host's order.
  bytes[28] = 0;
  auto parsed = parse_ld_so_cache(bytes);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->size(), sample.size());
}

TEST(LdCacheHostile, EveryTruncationFails) {
  for (Layout layout : {Layout::new_only, Layout::compat, Layout::old_only}) {
    const auto bytes = build_cache(sample, layout);
    ASSERT_TRUE(parse_ld_so_cache(bytes));
    for (std::size_t size = 0; size < bytes.size(); ++size) {
      auto parsed = parse_ld_so_cache(std::span(bytes.data(), size));
      EXPECT_FALSE(parsed) << "layout " << static_cast<int>(layout) << " size " << size;
      if (!parsed) {
        EXPECT_FALSE(parsed.error().message.empty());
      }
    }
  }
}

TEST(LdCacheHostile, GarbageAfterAValidHeaderNeverCrashes) {
  const auto original = build_cache(sample, Layout::compat);
  std::uint32_t state = 12345;  // fixed: a failure reproduces
  auto next = [&] {
    state = state * 1103515245U + 12345U;
    return state >> 8;
  };
  for (int round = 0; round < 2000; ++round) {
    auto bytes = original;
    for (int k = 0; k < 4; ++k) bytes[next() % bytes.size()] = static_cast<std::uint8_t>(next());
    auto parsed = parse_ld_so_cache(bytes);
    if (parsed) {
      for (const auto& entry : *parsed) {
        EXPECT_FALSE(entry.soname.empty());
        EXPECT_FALSE(entry.path.empty());
      }
    }
  }
}
