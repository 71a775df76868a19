// Variant labels (the local part of wheel versions): decoding never fails,
// keeps the raw text, and a label rebuilt from the decoded fields in the
// scheme's own spelling decodes to the same fields.
#include "fuzz_common.hpp"
#include "pkg/variant.hpp"

namespace {
using namespace flashfit::pkg;

std::string cuda_digits(const CudaVersion& cuda) {
  return std::to_string(cuda.major) + (cuda.minor ? std::to_string(*cuda.minor) : "");
}
std::string abi_token(const std::optional<bool>& abi) {
  if (!abi) return "";
  return *abi ? "cxx11abiTRUE" : "cxx11abiFALSE";
}

std::optional<std::string> encode(const VariantLabel& label) {
  switch (label.scheme) {
    case VariantScheme::upstream:
    case VariantScheme::community:
      if (!label.cuda || !label.torch) return std::nullopt;
      return "cu" + cuda_digits(*label.cuda) + "torch" + label.torch->str() +
             abi_token(label.cxx11_abi) + (label.git_hash ? "git" + *label.git_hash : "");
    case VariantScheme::pyg: {
      if (!label.torch) return std::nullopt;
      std::string out =
          "pt" + std::to_string(label.torch->major) + std::to_string(label.torch->minor);
      if (label.cpu_only) return out + "cpu";
      if (!label.cuda) return std::nullopt;
      return out + "cu" + cuda_digits(*label.cuda);
    }
    case VariantScheme::rocm:
      if (!label.rocm || !label.torch) return std::nullopt;
      return "rocm" + std::to_string(label.rocm->major) + std::to_string(label.rocm->minor) +
             "torch" + label.torch->str() + abi_token(label.cxx11_abi);
    default:
      return std::nullopt;
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = flashfit::fuzz::as_text(data, size);
  const VariantLabel label = decode_variant(text);
  FUZZ_CHECK(label.raw == text, "raw text not kept");
  FUZZ_CHECK(!label.describe().empty() || !label.known(), "a known label with no description");
  FUZZ_CHECK(decode_variant(text) == label, "decoding is not deterministic");
  if (!label.known()) return 0;
  const auto rebuilt = encode(label);
  FUZZ_CHECK(rebuilt.has_value(), "a known label lacks its scheme's fields: " + label.raw);
  VariantLabel again = decode_variant(*rebuilt);
  FUZZ_CHECK(again.scheme == label.scheme, "scheme differs: " + label.raw + " -> " + *rebuilt);
  again.raw = label.raw;
  FUZZ_CHECK(again == label, "fields differ: " + label.raw + " -> " + *rebuilt);
  return 0;
}
