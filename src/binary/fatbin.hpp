#pragma once
// CUDA fatbinaries inside an ELF object (docs/background.md §1): which
// device code images (SASS cubins, PTX) a library carries, and whether one of
// them runs on a given GPU (§2). The section bytes are treated as hostile:
// every size and offset is checked, and only a small prefix of a compressed
// PTX entry is ever decompressed, so a lying header cannot cause a huge
// allocation.

#include <compare>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace flashfit::binary {

// The entry kinds seen in the wild; LTO-IR only appears in __nv_relfatbin.
enum class FatbinKind { ptx, cubin, lto_ir, unknown };
// `a` (bit 20) runs only on exactly that compute capability; `f` (bit 21) on
// the same family. The suffix is visible only in the fatbin flags.
enum class ArchVariant { none, a, f };
enum class FatbinCompression { none, lz4, zstd };
enum class FatbinSection { nv_fatbin, nv_relfatbin };

struct FatbinEntry {
  FatbinKind kind = FatbinKind::unknown;
  std::uint16_t raw_kind = 0;  // the header's kind field, for unknown kinds
  int arch = 0;                // SM number: 90 for sm_90 / compute_90
  ArchVariant variant = ArchVariant::none;
  FatbinCompression compression = FatbinCompression::none;
  std::uint64_t payload_size = 0;       // bytes in the file, padded to 8
  std::uint64_t compressed_size = 0;    // 0 when not compressed
  std::uint64_t uncompressed_size = 0;  // 0 when not compressed
  std::uint64_t flags = 0;
  // PTX only: "9.0", from the payload's `.version X.Y` line (the header's
  // version field when the text has none).
  std::optional<std::string> ptx_isa_version;
  // PTX only: "sm_90", from `.target`; its presence shows the text was read.
  std::optional<std::string> ptx_target;
  FatbinSection section = FatbinSection::nv_fatbin;
  std::size_t container = 0;  // index of its container within the section
  std::uint64_t offset = 0;   // of its header within the section

  // "sm_90a", "compute_90", "lto_80", "kind 16 arch 90".
  std::string name() const;
};

// Parses one or more containers laid back to back (zero padding between them
// is skipped). An empty span is no containers, not an error. Malformed input
// is ErrorKind::input with the offending offset in the message.
util::Result<std::vector<FatbinEntry>> parse_fatbin(std::span<const std::uint8_t> section,
                                                    FatbinSection which = FatbinSection::nv_fatbin);

struct FatbinInfo {
  // .nv_fatbin first, then __nv_relfatbin. An ELF without either section has
  // no entries (a CPU-only library), which is not an error.
  std::vector<FatbinEntry> entries;
  bool has_nv_fatbin = false;
  bool has_nv_relfatbin = false;
};

// Reads .nv_fatbin and __nv_relfatbin of an ELF object or shared library.
util::Result<FatbinInfo> read_fatbins(const std::filesystem::path& elf);

// ------------------------------------------------------------ run rules

struct CudaVersion {
  int major = 0;
  int minor = 0;
  // clang-tidy 14 mistakes the synthesized `ordering < 0` for a null pointer.
  friend auto operator<=>(const CudaVersion&,
                          const CudaVersion&) = default;  // NOLINT(modernize-use-nullptr)
};

// The oldest CUDA release whose driver can JIT this PTX ISA version ("9.0" ->
// 13.0, "7.8" -> 11.8); nullopt for text it does not recognise.
std::optional<CudaVersion> cuda_for_ptx_isa(const std::string& isa);

enum class KernelSource { sass, ptx_jit, none };

struct KernelVerdict {
  KernelSource source = KernelSource::none;
  std::optional<FatbinEntry> entry;  // the image that would be loaded
  // Why it may still fail or be slow (PTX JIT, driver too old for the PTX),
  // or why nothing fits. Empty for a plain SASS match.
  std::string warning;
  // For a PTX JIT: whether the driver can compile this PTX ISA; nullopt when
  // the driver's CUDA or the ISA's is unknown, or no JIT is needed.
  std::optional<bool> driver_ok;
};

// Which image the CUDA runtime would pick for a GPU of compute capability
// cc_major.cc_minor (docs/background.md §2): SASS first (the newest
// fitting one), else PTX to JIT (the newest arch <= the GPU), else none.
// driver_cuda is the newest CUDA the driver supports, when known.
KernelVerdict kernel_for_gpu(const std::vector<FatbinEntry>& entries, int cc_major, int cc_minor,
                             std::optional<CudaVersion> driver_cuda = std::nullopt);

}  // namespace flashfit::binary
