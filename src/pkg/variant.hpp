#pragma once
// Decoding of the local version label that CUDA-extension wheels use to say
// which accelerator runtime, torch and C++ ABI they were built for
// ("2.8.3+cu12torch2.8cxx11abiTRUE" -> CUDA 12.x, torch 2.8, C++11 ABI).
//
// The label is a naming convention, not a standard: each publisher has its own
// dialect (docs/variant-labels.md). Decoding never fails: a label no dialect
// matches is VariantScheme::unknown with every field empty, so callers can say
// "cannot judge this wheel from its name" instead of guessing.

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace flashfit::pkg {

enum class VariantScheme {
  none,       // no label at all
  upstream,   // Dao-AILab: cu{CU}torch{M}.{m}cxx11abi{TRUE|FALSE}
  community,  // mjun0812: cu{MAJOR}{MINOR}torch{M}.{m}[git{hex}], no ABI token
  pyg,        // PyG: pt{M}{m}cu{XYZ} or pt{M}{m}cpu
  rocm,       // rocm{hipMajor}{hipMinor}torch{M}.{m}[cxx11abi{TRUE|FALSE}]
  unknown,    // something else; not an error
};

// "upstream", "community", ...; stable strings, usable in --json output.
std::string_view to_string(VariantScheme scheme);

// A CUDA version as a label states it. The minor is absent when the label
// names only the major (upstream cu11/cu12/cu13 from v2.7.0 on): such a wheel
// claims to work with every 12.x, not with 12.0.
struct CudaVersion {
  int major = 0;
  std::optional<int> minor;

  std::string str() const;  // "12.8", or "12.x" when only the major is known
  friend bool operator==(const CudaVersion&, const CudaVersion&) = default;
};
// The inverse of CudaVersion::str ("12.8", "12.x"; numbers below 1000); nullopt otherwise.
std::optional<CudaVersion> parse_cuda_version(std::string_view text);

// torch major.minor: the granularity every dialect binds at (patch releases
// share a token even where their C++ symbols differ, docs/background.md §14).
struct TorchVersion {
  int major = 0;
  int minor = 0;

  std::string str() const;  // "2.10"
  // clang-tidy 14 misreads a defaulted <=> as a literal 0 for a pointer.
  // NOLINTNEXTLINE(modernize-use-nullptr)
  friend auto operator<=>(const TorchVersion&, const TorchVersion&) = default;
};
class Version;
// A torch version's major.minor (2.9.1+cu128 -> 2.9); nullopt without two
// release segments or for absurdly large ones.
std::optional<TorchVersion> torch_minor(const Version& version);

// The HIP/ROCm version of a ROCm build: rocm62 -> 6.2.
struct RocmVersion {
  int major = 0;
  int minor = 0;

  std::string str() const;  // "6.2"
  friend auto operator<=>(const RocmVersion&, const RocmVersion&) = default;
};

struct VariantLabel {
  VariantScheme scheme = VariantScheme::none;
  std::optional<CudaVersion> cuda;
  std::optional<TorchVersion> torch;
  // nullopt when the dialect has no ABI token (community, PyG): the label then
  // says nothing about the ABI, which is not the same as "false". Where present
  // it is only the build matrix's claim (docs/background.md §14: it can be wrong).
  std::optional<bool> cxx11_abi;
  std::optional<RocmVersion> rocm;
  std::optional<std::string> git_hash;  // lower-case hex, without "git"
  bool cpu_only = false;                // PyG "cpu" builds: no accelerator at all
  std::string raw;                      // the label exactly as given

  bool known() const { return scheme != VariantScheme::none && scheme != VariantScheme::unknown; }
  // One line for people: "CUDA 12.x, torch 2.8, C++11 ABI".
  std::string describe() const;

  friend bool operator==(const VariantLabel&, const VariantLabel&) = default;
};

// Decodes a local label, case-insensitively: it may come lower-cased from
// Version::local() or verbatim from a file name. Pure and total: any input,
// including binary junk, gives a value (unknown when no dialect matches).
VariantLabel decode_variant(std::string_view local_label);

}  // namespace flashfit::pkg
