#include "binary/fatbin.hpp"

#include <fmt/core.h>
#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <cstring>
#include <memory>
#include <string_view>

#include "binary/elf.hpp"

namespace flashfit::binary {

namespace {

constexpr std::uint32_t kContainerMagic = 0xBA55ED50;
constexpr std::size_t kContainerHeaderMin = 16;
// Every entry header seen is at least 0x40 bytes; the fields read live there.
constexpr std::size_t kEntryHeaderMin = 0x40;
constexpr std::uint64_t kFlagLz4 = 0x2000;
constexpr std::uint64_t kFlagZstd = 0x8000;
constexpr std::uint64_t kFlagArchSpecific = 0x100000;
constexpr std::uint64_t kFlagFamilySpecific = 0x200000;
// No real device image comes near this; a larger declared size is a lie.
constexpr std::uint64_t kMaxUncompressed = std::uint64_t{1} << 30;
// `.version X.Y` sits within the first ~40 bytes of PTX text; 4 KiB leaves
// room for long comments without decompressing whole entries.
constexpr std::size_t kPtxPrefix = 4096;

// Fields are read with memcpy: containers are not guaranteed to be aligned.
template <class T>
T load(std::span<const std::uint8_t> bytes, std::size_t at) {
  T value{};
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

util::Result<std::string> ptx_prefix(std::span<const std::uint8_t> payload,
                                     FatbinCompression compression,
                                     std::uint64_t uncompressed_size) {
  if (compression == FatbinCompression::none) {
    const std::size_t n = std::min(payload.size(), kPtxPrefix);
    return std::string(reinterpret_cast<const char*>(payload.data()), n);
  }
  const std::size_t want =
      static_cast<std::size_t>(std::min<std::uint64_t>(uncompressed_size, kPtxPrefix));
  std::string out(want, '\0');
  if (compression == FatbinCompression::lz4) {
    // The partial decoder stops once `want` bytes are out and never writes
    // past the buffer, whatever the block claims.
    const int n = LZ4_decompress_safe_partial(
        reinterpret_cast<const char*>(payload.data()), out.data(),
        static_cast<int>(std::min<std::size_t>(payload.size(), INT_MAX)), static_cast<int>(want),
        static_cast<int>(want));
    if (n < 0) return util::input_error("corrupt LZ4 payload");
    out.resize(static_cast<std::size_t>(n));
    return out;
  }
  // zstd: stream into a small buffer and stop when it is full.
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> context(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  if (!context) return util::fail(util::ErrorKind::internal, "cannot create a zstd context");
  ZSTD_inBuffer in{payload.data(), payload.size(), 0};
  ZSTD_outBuffer to{out.data(), out.size(), 0};
  while (to.pos < to.size && in.pos < in.size) {
    const std::size_t in_before = in.pos;
    const std::size_t out_before = to.pos;
    const std::size_t rc = ZSTD_decompressStream(context.get(), &to, &in);
    if (ZSTD_isError(rc) != 0) {
      return util::input_error(fmt::format("corrupt zstd payload: {}", ZSTD_getErrorName(rc)));
    }
    if (rc == 0) break;  // end of frame
    // A stalled decoder must not spin on hostile input.
    if (in.pos == in_before && to.pos == out_before) break;
  }
  out.resize(to.pos);
  return out;
}

// The operand of a PTX directive: "9.0" for `.version 9.0`, "sm_90" for
// `.target sm_90, debug`; nullopt when absent or empty.
std::optional<std::string> ptx_directive(std::string_view text, std::string_view key) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  std::size_t at = text.find(key);
  while (at != std::string_view::npos) {
    std::size_t i = at + key.size();
    if (i < text.size() && is_space(text[i])) {
      while (i < text.size() && is_space(text[i])) ++i;
      const std::size_t start = i;
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) != 0 ||
                                 text[i] == '.' || text[i] == '_')) {
        ++i;
      }
      if (i > start) return std::string(text.substr(start, i - start));
    }
    at = text.find(key, at + key.size());
  }
  return std::nullopt;
}

std::string hex(std::uint64_t value) {
  return fmt::format("{:#x}", value);
}

// One container's entries; `end` is the container's end within `bytes`.
util::Result<void> parse_entries(std::span<const std::uint8_t> bytes, std::size_t at,
                                 std::size_t end, std::size_t container, FatbinSection which,
                                 std::vector<FatbinEntry>& out) {
  while (at < end) {
    const std::size_t left = end - at;
    if (left < kEntryHeaderMin) {
      return util::input_error(fmt::format(
          "fatbin entry at offset {} has only {} bytes left in its container, less than an "
          "entry header",
          hex(at), left));
    }
    const auto header_size = load<std::uint32_t>(bytes, at + 0x04);
    const auto payload_size = load<std::uint64_t>(bytes, at + 0x08);
    if (header_size < kEntryHeaderMin || header_size > left) {
      return util::input_error(fmt::format(
          "fatbin entry at offset {} declares a header of {} bytes (at least {:#x} and at most "
          "{} expected)",
          hex(at), header_size, kEntryHeaderMin, left));
    }
    if (payload_size > left - header_size) {
      return util::input_error(fmt::format(
          "fatbin entry at offset {} declares a payload of {} bytes but only {} remain in its "
          "container",
          hex(at), payload_size, left - header_size));
    }
    FatbinEntry entry;
    entry.section = which;
    entry.container = container;
    entry.offset = at;
    entry.raw_kind = load<std::uint16_t>(bytes, at);
    switch (entry.raw_kind) {
      case 1:
        entry.kind = FatbinKind::ptx;
        break;
      case 2:
        entry.kind = FatbinKind::cubin;
        break;
      case 8:
        entry.kind = FatbinKind::lto_ir;
        break;
      default:
        entry.kind = FatbinKind::unknown;
        break;
    }
    entry.payload_size = payload_size;
    entry.compressed_size = load<std::uint32_t>(bytes, at + 0x10);
    const auto isa_minor = load<std::uint16_t>(bytes, at + 0x18);
    const auto isa_major = load<std::uint16_t>(bytes, at + 0x1A);
    entry.arch =
        static_cast<int>(std::min<std::uint32_t>(load<std::uint32_t>(bytes, at + 0x1C), 1'000'000));
    entry.flags = load<std::uint64_t>(bytes, at + 0x28);
    entry.uncompressed_size = load<std::uint64_t>(bytes, at + 0x38);
    if ((entry.flags & kFlagArchSpecific) != 0) {
      entry.variant = ArchVariant::a;
    } else if ((entry.flags & kFlagFamilySpecific) != 0) {
      entry.variant = ArchVariant::f;
    }
    const bool lz4 = (entry.flags & kFlagLz4) != 0;
    const bool zstd = (entry.flags & kFlagZstd) != 0;
    if (lz4 && zstd) {
      return util::input_error(
          fmt::format("fatbin entry at offset {} is flagged both LZ4 and zstd", hex(at)));
    }
    entry.compression = lz4    ? FatbinCompression::lz4
                        : zstd ? FatbinCompression::zstd
                               : FatbinCompression::none;
    if (entry.compression != FatbinCompression::none) {
      if (entry.compressed_size == 0 || entry.compressed_size > payload_size) {
        return util::input_error(
            fmt::format("fatbin entry at offset {} declares {} compressed bytes in a payload of {}",
                        hex(at), entry.compressed_size, payload_size));
      }
      if (entry.uncompressed_size == 0 || entry.uncompressed_size > kMaxUncompressed) {
        return util::input_error(fmt::format(
            "fatbin entry at offset {} declares an uncompressed size of {} bytes (limit {})",
            hex(at), entry.uncompressed_size, kMaxUncompressed));
      }
    }
    if (entry.kind == FatbinKind::ptx) {
      const std::size_t stored = entry.compression == FatbinCompression::none
                                     ? static_cast<std::size_t>(payload_size)
                                     : static_cast<std::size_t>(entry.compressed_size);
      auto text = ptx_prefix(bytes.subspan(at + header_size, stored), entry.compression,
                             entry.uncompressed_size);
      if (!text) {
        return tl::unexpected(
            std::move(text.error()).with_context(fmt::format("PTX entry at offset {}", hex(at))));
      }
      entry.ptx_isa_version = ptx_directive(*text, ".version");
      entry.ptx_target = ptx_directive(*text, ".target");
      if (!entry.ptx_isa_version && (isa_major != 0 || isa_minor != 0)) {
        entry.ptx_isa_version = fmt::format("{}.{}", isa_major, isa_minor);
      }
    }
    out.push_back(std::move(entry));
    at += header_size + static_cast<std::size_t>(payload_size);
  }
  return {};
}

}  // namespace

std::string FatbinEntry::name() const {
  const char* suffix = variant == ArchVariant::a ? "a" : variant == ArchVariant::f ? "f" : "";
  switch (kind) {
    case FatbinKind::ptx:
      return fmt::format("compute_{}{}", arch, suffix);
    case FatbinKind::cubin:
      return fmt::format("sm_{}{}", arch, suffix);
    case FatbinKind::lto_ir:
      return fmt::format("lto_{}{}", arch, suffix);
    case FatbinKind::unknown:
      break;
  }
  return fmt::format("kind {} arch {}{}", raw_kind, arch, suffix);
}

util::Result<std::vector<FatbinEntry>> parse_fatbin(std::span<const std::uint8_t> section,
                                                    FatbinSection which) {
  std::vector<FatbinEntry> entries;
  std::size_t at = 0;
  std::size_t container = 0;
  while (true) {
    // Containers may be padded to 8 with zeros; trailing zeros end the section.
    while (at < section.size() && section[at] == 0) ++at;
    if (at >= section.size()) break;
    const std::size_t left = section.size() - at;
    if (left < kContainerHeaderMin) {
      return util::input_error(fmt::format(
          "truncated fatbin: {} bytes at offset {}, less than a container header", left, hex(at)));
    }
    const auto magic = load<std::uint32_t>(section, at);
    if (magic != kContainerMagic) {
      return util::input_error(
          fmt::format("no fatbin container magic at offset {} (found {:#010x}, expected {:#010x})",
                      hex(at), magic, kContainerMagic));
    }
    const auto version = load<std::uint16_t>(section, at + 0x04);
    const auto header_size = load<std::uint16_t>(section, at + 0x06);
    const auto fat_size = load<std::uint64_t>(section, at + 0x08);
    if (version != 1) {
      return util::input_error(fmt::format(
          "fatbin container at offset {} has version {}, expected 1", hex(at), version));
    }
    if (header_size < kContainerHeaderMin || header_size > left) {
      return util::input_error(fmt::format(
          "fatbin container at offset {} declares a header of {} bytes", hex(at), header_size));
    }
    if (fat_size > left - header_size) {
      return util::input_error(fmt::format(
          "truncated fatbin: container at offset {} declares {} bytes of entries but only {} "
          "remain in the section",
          hex(at), fat_size, left - header_size));
    }
    const std::size_t end = at + header_size + static_cast<std::size_t>(fat_size);
    auto parsed = parse_entries(section, at + header_size, end, container, which, entries);
    if (!parsed) return tl::unexpected(std::move(parsed.error()));
    at = end;
    ++container;
  }
  return entries;
}

util::Result<FatbinInfo> read_fatbins(const std::filesystem::path& elf) {
  FatbinInfo info;
  const std::array<std::pair<std::string_view, FatbinSection>, 2> sections{{
      {".nv_fatbin", FatbinSection::nv_fatbin},
      {"__nv_relfatbin", FatbinSection::nv_relfatbin},
  }};
  for (const auto& [name, which] : sections) {
    auto section = read_section(elf, name);
    if (!section) return tl::unexpected(std::move(section.error()));
    if (!*section) continue;
    (which == FatbinSection::nv_fatbin ? info.has_nv_fatbin : info.has_nv_relfatbin) = true;
    auto entries = parse_fatbin((*section)->bytes, which);
    if (!entries) {
      return tl::unexpected(
          std::move(entries.error()).with_context(fmt::format("{}: {}", elf.string(), name)));
    }
    info.entries.insert(info.entries.end(), entries->begin(), entries->end());
  }
  return info;
}

}  // namespace flashfit::binary
