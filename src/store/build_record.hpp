#pragma once
// What a cached wheel is and where it came from, as typed values: the build
// record (the key the resolver judges a wheel by when its name carries no
// variant label) and the entry's origin. `flashfit build` fills the record
// from the environment it compiled in; a fetched wheel's entry from its
// label. entry.json stores both field by field (store/cache_entry_json.cpp),
// and resolve/gather reads them back without parsing any text.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/variant.hpp"
#include "pkg/version.hpp"

namespace flashfit::store {

// The CUDA a wheel's code was built for: a version ("12.8"; "12.x" when a
// label names only the major), or none: a build against a CPU torch.
struct BuiltCuda {
  std::optional<pkg::CudaVersion> version;  // nullopt: CPU

  bool cpu() const { return !version.has_value(); }
  friend bool operator==(const BuiltCuda&, const BuiltCuda&) = default;
};
std::string to_string(const BuiltCuda& cuda);  // "12.8", "12.x", "cpu" (entry.json's form)
// The inverse of to_string; nullopt for anything else (the field is then unknown).
std::optional<BuiltCuda> parse_built_cuda(std::string_view text);

struct BuildRecord {
  std::optional<pkg::Version> torch;  // a build: torch's public version (2.8.0); a label: 2.8
  std::optional<BuiltCuda> cuda;
  std::optional<bool> cxx11_abi;
  std::optional<std::string> python;  // the wheel's interpreter tags ("cp311"; sets joined by '.')
  std::optional<std::string> platform;  // its platform tags ("linux_x86_64", ...)
  std::vector<std::string> archs;       // SASS in the wheel ("sm_80"); empty: none known
  // Built wheels: the toolkit that compiled them ("nvcc 13.0.88 at ... (found by PATH)").
  std::optional<std::string> toolkit;
};

// Where a cached wheel came from: fetched from a named source (a recipe's or
// the config's: "upstream", "pypi", "extra-index-1", ...), built by
// `flashfit build`, or added by `flashfit cache add`.
struct EntryOrigin {
  enum class Kind { fetched, built, added };
  Kind kind = Kind::fetched;
  std::string source;  // fetched: the source's name ("" when an entry.json did not say)

  static EntryOrigin fetched_from(std::string name) { return {Kind::fetched, std::move(name)}; }
  static EntryOrigin built() { return {Kind::built, {}}; }
  static EntryOrigin added() { return {Kind::added, {}}; }
  friend bool operator==(const EntryOrigin&, const EntryOrigin&) = default;
};
// entry.json's "source": the source's name, "build" or "add".
std::string to_string(const EntryOrigin& origin);
EntryOrigin parse_entry_origin(std::string_view text);

}  // namespace flashfit::store
