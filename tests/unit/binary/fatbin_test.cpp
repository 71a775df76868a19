// parse_fatbin / read_fatbins against fixtures nvcc builds at test time
// (tests/fixtures/fatbin), hostile bytes made by patching copies of a real
// container, and the run rules of kernel_for_gpu.
#include "binary/fatbin.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>

#include "binary/elf.hpp"
#include "fatbin_fixtures.hpp"

namespace fs = std::filesystem;
using namespace flashfit;
using namespace flashfit::binary;
using flashfit::binary::fixtures::read_ok;

namespace {

// "<container>:<image>:<compression>[:<ptx isa>:<ptx target>]", one string per entry, so a
// whole list compares in one assertion with a readable diff.
std::string describe(const FatbinEntry& entry) {
  const char* codec = entry.compression == FatbinCompression::lz4    ? "lz4"
                      : entry.compression == FatbinCompression::zstd ? "zstd"
                                                                     : "none";
  std::string text = std::to_string(entry.container) + ":" + entry.name() + ":" + codec;
  if (entry.ptx_isa_version) text += ":" + *entry.ptx_isa_version;
  if (entry.ptx_target) text += ":" + *entry.ptx_target;
  return text;
}

std::vector<std::string> describe(const std::vector<FatbinEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& entry : entries) out.push_back(describe(entry));
  return out;
}

std::set<std::string> images(const std::vector<FatbinEntry>& entries) {
  std::set<std::string> out;
  for (const auto& entry : entries) out.insert(entry.name());
  return out;
}

std::vector<std::uint8_t> section_copy(const char* path, const char* name) {
  auto section = read_section(path, name);
  EXPECT_TRUE(section.has_value() && section->has_value());
  if (!section || !*section) return {};
  return std::vector<std::uint8_t>((*section)->bytes.begin(), (*section)->bytes.end());
}

template <class T>
void patch(std::vector<std::uint8_t>& bytes, std::size_t at, T value) {
  ASSERT_LE(at + sizeof(T), bytes.size());
  std::memcpy(bytes.data() + at, &value, sizeof(T));
}

std::string parse_error(const std::vector<std::uint8_t>& bytes) {
  auto parsed = parse_fatbin(bytes);
  EXPECT_FALSE(parsed.has_value()) << "parsed " << (parsed ? parsed->size() : 0) << " entries";
  return parsed ? std::string() : parsed.error().message;
}

const std::set<std::string> kMultiImages{"sm_80", "sm_90", "compute_90"};

// ------------------------------------------------------------ nvcc fixtures

TEST(FatbinFixtures, SharedDefaultCompressionHasDlinkAndTranslationUnitContainers) {
  REQUIRE_NVCC();
  const FatbinInfo info = read_ok(FLASHFIT_FATBIN_DEFAULT);
  EXPECT_TRUE(info.has_nv_fatbin);
  EXPECT_FALSE(info.has_nv_relfatbin);
  // nvcc -shared adds a device-link container first (docs/background.md §1); nvcc 13
  // compresses PTX only, with zstd.
  EXPECT_EQ(describe(info.entries),
            (std::vector<std::string>{"0:sm_80:none", "0:sm_90:none", "1:sm_80:none",
                                      "1:compute_90:zstd:9.0:sm_90", "1:sm_90:none"}));
  EXPECT_EQ(images(info.entries), kMultiImages);
  for (const auto& entry : info.entries) {
    EXPECT_EQ(entry.section, FatbinSection::nv_fatbin);
    EXPECT_EQ(entry.variant, ArchVariant::none);
    if (entry.compression == FatbinCompression::zstd) {
      EXPECT_GT(entry.uncompressed_size, entry.compressed_size);
      EXPECT_LE(entry.compressed_size, entry.payload_size);
    }
  }
}

TEST(FatbinFixtures, SharedNoCompress) {
  REQUIRE_NVCC();
  const FatbinInfo info = read_ok(FLASHFIT_FATBIN_NOCOMPRESS);
  EXPECT_EQ(describe(info.entries),
            (std::vector<std::string>{"0:sm_80:none", "0:sm_90:none", "1:sm_80:none",
                                      "1:compute_90:none:9.0:sm_90", "1:sm_90:none"}));
  for (const auto& entry : info.entries) {
    EXPECT_EQ(entry.compressed_size, 0u);
    EXPECT_EQ(entry.uncompressed_size, 0u);
  }
}

TEST(FatbinFixtures, ArchSpecificOnly) {
  REQUIRE_NVCC();
  const FatbinInfo info = read_ok(FLASHFIT_FATBIN_SM90A);
  EXPECT_EQ(describe(info.entries), (std::vector<std::string>{"0:sm_90a:none"}));
  ASSERT_EQ(info.entries.size(), 1u);
  EXPECT_EQ(info.entries[0].kind, FatbinKind::cubin);
  EXPECT_EQ(info.entries[0].arch, 90);
  EXPECT_EQ(info.entries[0].variant, ArchVariant::a);
}

TEST(FatbinFixtures, CompiledThenLinkedByHostCompilerLikeTorch) {
  REQUIRE_NVCC();
  const FatbinInfo info = read_ok(FLASHFIT_FATBIN_TORCHLIKE);
  // One container per .cu file and no dlink container; -compress-all with
  // --compress-mode=speed makes every entry LZ4.
  EXPECT_EQ(describe(info.entries),
            (std::vector<std::string>{"0:sm_80:lz4", "0:compute_90:lz4:9.0:sm_90", "0:sm_90:lz4"}));
  EXPECT_EQ(images(info.entries), kMultiImages);
}

TEST(FatbinFixtures, RelocatableDeviceCodeLivesInRelfatbin) {
  REQUIRE_NVCC();
  const FatbinInfo info = read_ok(FLASHFIT_FATBIN_RDC);
  EXPECT_FALSE(info.has_nv_fatbin);
  EXPECT_TRUE(info.has_nv_relfatbin);
  // nvcc 13 compresses SASS in relocatable objects too.
  EXPECT_EQ(
      describe(info.entries),
      (std::vector<std::string>{"0:sm_80:zstd", "0:compute_90:zstd:9.0:sm_90", "0:sm_90:zstd"}));
  for (const auto& entry : info.entries) EXPECT_EQ(entry.section, FatbinSection::nv_relfatbin);
}

TEST(FatbinFixtures, ElfWithoutFatbinHasNoEntries) {
  const FatbinInfo info = read_ok(FLASHFIT_FIXTURE_PLAIN_C);
  EXPECT_TRUE(info.entries.empty());
  EXPECT_FALSE(info.has_nv_fatbin);
  EXPECT_FALSE(info.has_nv_relfatbin);
}

TEST(FatbinFixtures, NotElfIsAnError) {
  auto info = read_fatbins(fs::path(FLASHFIT_FIXTURES_DIR) / "fatbin" / "kernel.cu");
  ASSERT_FALSE(info.has_value());
  EXPECT_EQ(info.error().kind, util::ErrorKind::input);
}

// ------------------------------------------------------------ hostile bytes

TEST(FatbinHostile, EmptyAndZeroPaddingAreNoContainers) {
  EXPECT_TRUE(parse_fatbin({}).value().empty());
  const std::vector<std::uint8_t> zeros(64, 0);
  EXPECT_TRUE(parse_fatbin(zeros).value().empty());
}

TEST(FatbinHostile, TruncatedSection) {
  REQUIRE_NVCC();
  auto bytes = section_copy(FLASHFIT_FATBIN_NOCOMPRESS, ".nv_fatbin");
  ASSERT_GT(bytes.size(), 64u);
  for (std::size_t cut : {std::size_t{8}, std::size_t{100}, bytes.size() - 10}) {
    std::vector<std::uint8_t> truncated(bytes.begin(), bytes.end() - static_cast<long>(cut));
    EXPECT_NE(parse_error(truncated).find("truncated"), std::string::npos) << cut;
  }
}

TEST(FatbinHostile, SizesPastTheEnd) {
  REQUIRE_NVCC();
  const auto real = section_copy(FLASHFIT_FATBIN_NOCOMPRESS, ".nv_fatbin");
  ASSERT_GT(real.size(), 64u);
  const std::size_t entry = 16;  // the first entry follows the 16-byte container header

  auto bytes = real;
  patch<std::uint64_t>(bytes, entry + 0x08, 0xFFFFFFFFFFFFFFF0ull);  // payload size
  EXPECT_NE(parse_error(bytes).find("declares a payload"), std::string::npos);

  bytes = real;
  patch<std::uint32_t>(bytes, entry + 0x04, 0);  // zero-size entry header: no progress
  EXPECT_NE(parse_error(bytes).find("declares a header"), std::string::npos);

  bytes = real;
  patch<std::uint32_t>(bytes, entry + 0x04, 0xFFFFFFFF);
  EXPECT_NE(parse_error(bytes).find("declares a header"), std::string::npos);

  bytes = real;
  patch<std::uint64_t>(bytes, 8, 0xFFFFFFFFFFFFFF00ull);  // container fat_size
  EXPECT_NE(parse_error(bytes).find("truncated"), std::string::npos);

  bytes = real;
  patch<std::uint16_t>(bytes, 6, 0);  // zero-size container header
  EXPECT_NE(parse_error(bytes).find("declares a header"), std::string::npos);

  bytes = real;
  patch<std::uint16_t>(bytes, 4, 7);  // container version
  EXPECT_NE(parse_error(bytes).find("version 7"), std::string::npos);

  bytes = real;
  bytes[0] ^= 0xFF;
  EXPECT_NE(parse_error(bytes).find("magic"), std::string::npos);
}

TEST(FatbinHostile, LyingCompressedEntries) {
  REQUIRE_NVCC();
  const auto real = section_copy(FLASHFIT_FATBIN_DEFAULT, ".nv_fatbin");
  const auto entries = parse_fatbin(real).value();
  const FatbinEntry* ptx = nullptr;
  for (const auto& entry : entries) {
    if (entry.compression == FatbinCompression::zstd) ptx = &entry;
  }
  ASSERT_NE(ptx, nullptr);
  const std::size_t at = ptx->offset;

  auto bytes = real;
  patch<std::uint64_t>(bytes, at + 0x38, std::uint64_t{1} << 40);  // absurd uncompressed size
  EXPECT_NE(parse_error(bytes).find("uncompressed size"), std::string::npos);

  bytes = real;
  patch<std::uint32_t>(bytes, at + 0x10, 0x7FFFFFFF);  // compressed size past the payload
  EXPECT_NE(parse_error(bytes).find("compressed bytes"), std::string::npos);

  bytes = real;
  patch<std::uint64_t>(bytes, at + 0x28, ptx->flags | 0x2000);  // both codecs
  EXPECT_NE(parse_error(bytes).find("both"), std::string::npos);

  bytes = real;
  const std::uint32_t header_size = [&] {
    std::uint32_t value = 0;
    std::memcpy(&value, real.data() + at + 4, 4);
    return value;
  }();
  for (std::size_t i = 0; i < 16; ++i) bytes[at + header_size + i] = 0xAB;  // frame magic gone
  EXPECT_NE(parse_error(bytes).find("corrupt zstd"), std::string::npos);
}

TEST(FatbinHostile, PtxVersionFromTextElseHeader) {
  REQUIRE_NVCC();
  const auto real = section_copy(FLASHFIT_FATBIN_NOCOMPRESS, ".nv_fatbin");
  const auto entries = parse_fatbin(real).value();
  ASSERT_EQ(entries.size(), 5u);
  const FatbinEntry& ptx = entries[3];
  ASSERT_EQ(ptx.kind, FatbinKind::ptx);
  std::uint32_t header_size = 0;
  std::memcpy(&header_size, real.data() + ptx.offset + 4, 4);

  // The text wins over the header's version field.
  auto bytes = real;
  patch<std::uint16_t>(bytes, ptx.offset + 0x18, 1);
  patch<std::uint16_t>(bytes, ptx.offset + 0x1A, 8);
  EXPECT_EQ(parse_fatbin(bytes).value()[3].ptx_isa_version, "9.0");

  // Without a readable `.version` the header's field is the answer.
  const std::string text(reinterpret_cast<const char*>(bytes.data() + ptx.offset + header_size),
                         static_cast<std::size_t>(ptx.payload_size));
  const auto at = text.find(".version");
  ASSERT_NE(at, std::string::npos);
  bytes[ptx.offset + header_size + at + 1] = 'X';
  EXPECT_EQ(parse_fatbin(bytes).value()[3].ptx_isa_version, "8.1");
}

TEST(FatbinHostile, CorruptLz4PayloadIsAnError) {
  REQUIRE_NVCC();
  auto bytes = section_copy(FLASHFIT_FATBIN_TORCHLIKE, ".nv_fatbin");
  const auto entries = parse_fatbin(bytes).value();
  ASSERT_EQ(entries.size(), 3u);
  const FatbinEntry& ptx = entries[1];
  ASSERT_EQ(ptx.kind, FatbinKind::ptx);
  // An LZ4 token asking for a match offset before the start of the output.
  std::uint32_t header_size = 0;
  std::memcpy(&header_size, bytes.data() + ptx.offset + 4, 4);
  const std::size_t payload = ptx.offset + header_size;
  bytes[payload] = 0x0F;
  bytes[payload + 1] = 0xFF;
  bytes[payload + 2] = 0xFF;
  EXPECT_NE(parse_error(bytes).find("corrupt LZ4"), std::string::npos);
}

TEST(FatbinHostile, RandomBytesAndMutationsNeverCrash) {
  std::mt19937 random(1234);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int round = 0; round < 500; ++round) {
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(random() % 512));
    for (auto& b : bytes) b = static_cast<std::uint8_t>(byte(random));
    // Half the time start with a valid container header so entries are reached.
    if (round % 2 == 0 && bytes.size() >= 16) {
      const std::uint32_t magic = 0xBA55ED50;
      std::memcpy(bytes.data(), &magic, 4);
      bytes[4] = 1, bytes[5] = 0, bytes[6] = 16, bytes[7] = 0;
    }
    (void)parse_fatbin(bytes);
  }
#ifndef FLASHFIT_FATBIN_NVCC_MISSING
  // Single-byte mutations of real containers (every codec) must fail cleanly or parse.
  for (const char* path : {FLASHFIT_FATBIN_DEFAULT, FLASHFIT_FATBIN_TORCHLIKE}) {
    const auto real = section_copy(path, ".nv_fatbin");
    for (int round = 0; round < 2000 && !real.empty(); ++round) {
      auto bytes = real;
      const std::size_t at = random() % bytes.size();
      bytes[at] = static_cast<std::uint8_t>(byte(random));
      (void)parse_fatbin(bytes);
    }
  }
#endif
  EXPECT_FALSE(parse_fatbin(std::vector<std::uint8_t>{1, 2, 3}).has_value());
}

}  // namespace
