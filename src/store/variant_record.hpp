#pragma once
// The variant record: the JSON sidecar `<wheel>.variant.json` that `flashfit
// publish` writes beside every published wheel (docs/publish.md, "Variant
// record"), and that resolve/ reads back from an index or find-links page to
// judge a wheel whose name carries no variant label, as it judges a cache
// entry's BuildRecord. This is the format's one home: the typed value, the
// writer and the strict reader.
//
// Reading is strict about what it uses (types, ranges, a 64 KiB bound, schema
// 1, the sha256 and file name) and ignores keys it does not know, so a later
// flashfit may add facts without breaking older readers.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/build_record.hpp"
#include "util/error.hpp"

namespace flashfit::store {

// A torch build a publisher placed the wheel on (`publish --for-torch`).
struct TorchPlacement {
  std::string torch;  // torch.__version__: "2.9.1+cu128"
  bool cxx11_abi = true;
  friend bool operator==(const TorchPlacement&, const TorchPlacement&) = default;
};

struct VariantRecord {
  std::string filename;  // the wheel's file name (a basename)
  std::string name;      // PEP 503 normalised project name
  std::string version;   // the file name's version
  std::string sha256;    // of the wheel as published (64 lower-case hex)
  std::uint64_t size = 0;
  std::string metadata_sha256;     // of <wheel>.metadata; "" when none
  std::string metadata_name;       // METADATA's Name as written; "" when unknown
  std::string requires_python;     // "" when absent
  std::string python_tag;          // "cp311"
  std::string platform;            // "linux_x86_64"
  std::optional<int> torch_major;  // from a label or a build record; unknown: nullopt
  std::optional<int> torch_minor;
  bool uses_cuda = false;  // links a CUDA runtime, carries kernels or says cuXY
  std::optional<int> cuda_major;
  std::optional<int> cuda_minor;
  std::optional<bool> cxx11_abi;  // from its symbols (else its label)
  std::vector<int> sass_archs;    // SM numbers: 80, 90
  std::vector<int> ptx_archs;
  std::string source;           // "file", "cache", "build"
  std::string original_url;     // where a cached wheel was fetched from; "" when none
  std::string original_sha256;  // before a METADATA rewrite; "" when none
  std::vector<TorchPlacement> for_torch;
  friend bool operator==(const VariantRecord&, const VariantRecord&) = default;
};

inline constexpr std::size_t kMaxVariantRecordBytes = std::size_t{64} * 1024;

// The sidecar's bytes (pretty JSON, one trailing newline).
std::string variant_record_json(const VariantRecord& record);
// Refuses what is not a schema-1 record: bad JSON, wrong types, numbers out
// of range, a bad sha256 or file name, more than kMaxVariantRecordBytes.
// Keys it does not know are ignored.
util::Result<VariantRecord> parse_variant_record(std::string_view text);

// What the record says the wheel was built for, in the cache's terms (the
// resolver judges both alike): torch major.minor from the record, else from
// its --for-torch placements when they all name one torch minor; the C++11
// ABI from the record, else from placements that agree; CUDA (or CPU for a
// wheel that uses none); the SASS archs ("sm_80"); python and platform tags.
BuildRecord build_record_of(const VariantRecord& record);
// Its PTX archs as "sm_90" names (the JIT floor), for the GPU rule.
std::vector<std::string> ptx_arch_names(const VariantRecord& record);

}  // namespace flashfit::store
