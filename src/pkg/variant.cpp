#include "pkg/variant.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <utility>

#include "pkg/version.hpp"
#include "util/strings.hpp"

namespace flashfit::pkg {

namespace {

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_hex(char c) {
  const char l = lower(c);
  return is_digit(l) || (l >= 'a' && l <= 'f');
}

// Walks a label left to right. Matching ignores case here, so the decoder needs
// no lower-cased copy of its input (it runs once per candidate wheel).
class Cursor {
 public:
  explicit Cursor(std::string_view text) : input_(text) {}

  bool done() const { return pos_ == input_.size(); }

  // Consumes `word` (given in lower case) if the text continues with it.
  bool take(std::string_view word) {
    if (input_.size() - pos_ < word.size()) return false;
    for (std::size_t i = 0; i < word.size(); ++i) {
      if (lower(input_[pos_ + i]) != word[i]) return false;
    }
    pos_ += word.size();
    return true;
  }

  // Consumes the longest run of characters that satisfy `accept` (may be empty).
  template <class Predicate>
  std::string_view take_run(Predicate accept) {
    const std::size_t start = pos_;
    while (pos_ < input_.size() && accept(input_[pos_])) ++pos_;
    return input_.substr(start, pos_ - start);
  }
  std::string_view take_digits() { return take_run(is_digit); }

 private:
  std::string_view input_;
  std::size_t pos_ = 0;
};

// A version component: 1..max_digits digits and no leading zero ("0" itself is
// fine). Leading zeros never occur in real labels, so "cu1205" or "torch2.08"
// are treated as malformed rather than guessed at.
std::optional<int> component(std::string_view digits, std::size_t max_digits) {
  if (digits.empty() || digits.size() > max_digits) return std::nullopt;
  if (digits.size() > 1 && digits.front() == '0') return std::nullopt;
  int value = 0;
  for (const char c : digits) {
    if (!is_digit(c)) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// The digits after "cu". Labels drop the dot, so the split relies on CUDA's
// history: majors 10-19 have two digits and start with '1', majors 2-9 have one
// (PyG's cu92 = 9.2, cu102 = 10.2). What remains is the minor; nothing remains
// when the label names only the major (cu12). This holds until CUDA 20.
std::optional<CudaVersion> split_cuda(std::string_view digits) {
  if (digits.empty() || digits.size() > 4 || digits.front() == '0') return std::nullopt;
  const std::size_t major_digits = digits.front() == '1' ? 2 : 1;
  if (digits.size() < major_digits) return std::nullopt;  // "cu1"
  CudaVersion cuda;
  cuda.major = *component(digits.substr(0, major_digits), 2);
  const std::string_view rest = digits.substr(major_digits);
  if (!rest.empty()) {
    cuda.minor = component(rest, 2);
    if (!cuda.minor) return std::nullopt;
  }
  return cuda;
}

// Dotless "{major}{minor}" of PyG's pt112 and of rocm62: the major is one digit
// (torch has had majors 0-2, ROCm 1-7), the minor is the rest, so pt112 = 1.12,
// pt210 = 2.10, pt20 = 2.0, rocm62 = 6.2. Both digits are required.
std::optional<std::pair<int, int>> split_dotless(std::string_view digits) {
  if (digits.size() < 2 || digits.size() > 3 || digits.front() == '0') return std::nullopt;
  const auto minor = component(digits.substr(1), 2);
  if (!minor) return std::nullopt;
  return std::pair<int, int>{digits.front() - '0', *minor};
}

// "torch{M}.{m}" with the word already consumed. The minor is greedy: it stops at
// the first non-digit, which is how "torch2.10gite2743ab" keeps its 10.
std::optional<TorchVersion> take_dotted_torch(Cursor& cursor) {
  const auto major = component(cursor.take_digits(), 2);
  if (!major || !cursor.take(".")) return std::nullopt;
  const auto minor = component(cursor.take_digits(), 2);
  if (!minor) return std::nullopt;
  return TorchVersion{*major, *minor};
}

// "cxx11abi{true|false}" if present. Returns false only for a malformed token,
// leaving `abi` empty when the label simply has none.
bool take_abi(Cursor& cursor, std::optional<bool>& abi) {
  if (!cursor.take("cxx11abi")) return true;
  if (cursor.take("true")) {
    abi = true;
  } else if (cursor.take("false")) {
    abi = false;
  } else {
    return false;
  }
  return true;
}

// cu{digits}torch{M}.{m} followed by an ABI token (upstream) or an optional
// git{hex} suffix (community); one or the other, never both.
std::optional<VariantLabel> decode_cuda_torch(Cursor cursor) {
  if (!cursor.take("cu")) return std::nullopt;
  VariantLabel out;
  out.cuda = split_cuda(cursor.take_digits());
  if (!out.cuda || !cursor.take("torch")) return std::nullopt;
  out.torch = take_dotted_torch(cursor);
  if (!out.torch || !take_abi(cursor, out.cxx11_abi)) return std::nullopt;
  if (out.cxx11_abi) {
    out.scheme = VariantScheme::upstream;
  } else {
    out.scheme = VariantScheme::community;
    if (cursor.take("git")) {
      // git's shortest abbreviation is 4 hex digits, a full SHA-1 40.
      const std::string_view hash = cursor.take_run(is_hex);
      if (hash.size() < 4 || hash.size() > 40) return std::nullopt;
      out.git_hash = util::ascii_lower(hash);
    }
  }
  if (!cursor.done()) return std::nullopt;
  return out;
}

// rocm{hipMajor}{hipMinor}torch{M}.{m}, with upstream's ABI token or without it
// (mjun0812's ROCm builds). Their "…triton" back-end suffix is left unknown.
std::optional<VariantLabel> decode_rocm(Cursor cursor) {
  if (!cursor.take("rocm")) return std::nullopt;
  const auto hip = split_dotless(cursor.take_digits());
  if (!hip || !cursor.take("torch")) return std::nullopt;
  VariantLabel out;
  out.scheme = VariantScheme::rocm;
  out.rocm = RocmVersion{hip->first, hip->second};
  out.torch = take_dotted_torch(cursor);
  if (!out.torch || !take_abi(cursor, out.cxx11_abi) || !cursor.done()) return std::nullopt;
  return out;
}

// pt{M}{m} then cu{XYZ} or cpu.
std::optional<VariantLabel> decode_pyg(Cursor cursor) {
  if (!cursor.take("pt")) return std::nullopt;
  const auto torch = split_dotless(cursor.take_digits());
  if (!torch) return std::nullopt;
  VariantLabel out;
  out.scheme = VariantScheme::pyg;
  out.torch = TorchVersion{torch->first, torch->second};
  if (cursor.take("cpu")) {
    out.cpu_only = true;
  } else if (cursor.take("cu")) {
    out.cuda = split_cuda(cursor.take_digits());
    if (!out.cuda) return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (!cursor.done()) return std::nullopt;
  return out;
}

}  // namespace

std::string_view to_string(VariantScheme scheme) {
  switch (scheme) {
    case VariantScheme::none:
      return "none";
    case VariantScheme::upstream:
      return "upstream";
    case VariantScheme::community:
      return "community";
    case VariantScheme::pyg:
      return "pyg";
    case VariantScheme::rocm:
      return "rocm";
    case VariantScheme::unknown:
      return "unknown";
  }
  return "unknown";
}

std::string CudaVersion::str() const {
  return minor ? fmt::format("{}.{}", major, *minor) : fmt::format("{}.x", major);
}

namespace {
// A decimal number below 1000 (CUDA and torch numbers), the whole of `text`.
std::optional<int> small_number(std::string_view text) {
  if (text.empty() || text.size() > 3) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (!is_digit(c)) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}
}  // namespace

std::optional<CudaVersion> parse_cuda_version(std::string_view text) {
  const auto dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto major = small_number(text.substr(0, dot));
  if (!major) return std::nullopt;
  const std::string_view rest = text.substr(dot + 1);
  if (rest == "x") return CudaVersion{*major, std::nullopt};
  const auto minor = small_number(rest);
  if (!minor) return std::nullopt;
  return CudaVersion{*major, *minor};
}

std::optional<TorchVersion> torch_minor(const Version& version) {
  const auto& release = version.release();
  if (release.size() < 2) return std::nullopt;
  const auto major = small_number(release[0]);
  const auto minor = small_number(release[1]);
  if (!major || !minor) return std::nullopt;
  return TorchVersion{*major, *minor};
}

std::string TorchVersion::str() const {
  return fmt::format("{}.{}", major, minor);
}

std::string RocmVersion::str() const {
  return fmt::format("{}.{}", major, minor);
}

std::string VariantLabel::describe() const {
  if (scheme == VariantScheme::none) return "no variant label";
  if (scheme == VariantScheme::unknown) {
    return fmt::format("unrecognised variant label '{}'", util::printable(raw, 60));
  }
  std::string out;
  const auto add = [&out](std::string_view part) {
    if (!out.empty()) out += ", ";
    out += part;
  };
  if (cpu_only) add("CPU only");
  if (cuda) add("CUDA " + cuda->str());
  if (rocm) add("ROCm " + rocm->str());
  if (torch) add("torch " + torch->str());
  if (cxx11_abi) add(*cxx11_abi ? "C++11 ABI" : "pre-C++11 ABI");
  if (git_hash) add("git " + *git_hash);
  return out;
}

VariantLabel decode_variant(std::string_view local_label) {
  VariantLabel out;
  if (!local_label.empty()) {
    // The dialects start with distinct words, so at most one decoder can match.
    std::optional<VariantLabel> decoded = decode_cuda_torch(Cursor(local_label));
    if (!decoded) decoded = decode_rocm(Cursor(local_label));
    if (!decoded) decoded = decode_pyg(Cursor(local_label));
    if (decoded) {
      out = std::move(*decoded);
    } else {
      out.scheme = VariantScheme::unknown;  // every field stays empty: no half-decoded guesses
    }
  }
  out.raw = std::string(local_label);
  return out;
}

}  // namespace flashfit::pkg
