#pragma once
// A wheel some source offers, before and after the resolver judged it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/variant.hpp"
#include "pkg/wheel_name.hpp"

namespace flashfit::resolve {

// Where sources rank by default, best first (configurable): cache, indexes,
// upstream, community.
enum class SourceRole { cache, index, find_links, upstream, community };
std::string_view to_string(
    SourceRole role);  // "cache", "index", "find-links", "upstream", "community"

struct CompiledCatalog;

// A compiled catalog row's place in its catalog's URLs sorted as strings
// (std::string's order; the generator ranks them): two rows of one catalog
// compare by rank as their URLs compare, without reading the URLs.
struct CatalogUrlRank {
  const CompiledCatalog* catalog = nullptr;  // whose rows are ranked
  std::uint32_t rank = 0;
};

struct Candidate {
  std::string filename;  // percent-decoded file name
  // Where the file name's parts lie, known ahead (a compiled catalog's row):
  // the judge reads the name by it instead of parsing it (the same answer).
  std::optional<pkg::WheelNameLayout> name_layout;
  std::string url;  // http(s) URL, or an absolute path for local wheels
  // Known ahead for a compiled catalog's row whose URL is used as the table has it.
  std::optional<CatalogUrlRank> url_rank;
  std::string source;  // the source's name ("upstream", "team", "cache")
  SourceRole role = SourceRole::upstream;
  int priority = 0;            // lower is preferred (from the source order)
  bool source_enabled = true;  // false: a disabled source's wheel, judged only for suggestions
  std::optional<std::string> sha256;
  std::string release_tag;  // catalog sources: the release it hangs under
  std::string evidence;     // catalog sources: how it is known to exist
  std::optional<std::string> requires_python;
  bool yanked = false;
  std::string yanked_reason;
  // What the wheel was built against when its file name does not say: a
  // `flashfit build` records torch, CUDA (or CPU), C++11 ABI and the SASS it
  // compiled in the cache entry, and a plain `name-1.0-cp311-cp311-linux_x86_64.whl`
  // is judged by that record as if it were a label.
  std::optional<pkg::VariantLabel> built_variant;
  std::optional<std::vector<std::string>> built_archs;  // "sm_80"; empty: no CUDA code
  // PTX a variant record names ("sm_90": JIT-compiled on that compute capability and newer).
  std::vector<std::string> built_ptx;
  // A wheel from an index or find-links page with no label flashfit reads, whose
  // published variant record (<url>.variant.json, store/variant_record.hpp) is
  // read into built_variant / built_archs like a cache entry's build record.
  // Set when that record was missing, unreadable, refused or silent on torch:
  // why. Its torch facts stay unknown and the fit rests on an assumption.
  std::optional<std::string> record_doubt;
  // Set when its URL answered 404 to flashfit's check (resolve/url_check):
  // "HTTP 404 when flashfit asked on 2026-...". Rejected with `missing`.
  std::optional<std::string> missing;
  // An index serves its METADATA at "<url>.metadata" (PEP 658): "" or its sha256 (IndexLink).
  std::optional<std::string> core_metadata;
};

// Stable reason codes (docs/json.md); the message says the particulars.
enum class ReasonCode {
  version,             // does not satisfy the requirement
  yanked,              // the index yanked it (PEP 592)
  known_broken,        // the recipe lists it as broken
  source_disabled,     // its source is not enabled
  python,              // Python tag / ABI / requires-python
  platform,            // OS or CPU architecture
  glibc,               // needs a newer glibc than the machine has
  torch,               // torch major.minor (or torch missing / too old)
  cuda,                // CUDA major (a CPU torch rejects every CUDA wheel)
  cxx11_abi,           // C++11 ABI differs from torch's
  gpu_arch,            // no kernel image for a GPU present
  compute_capability,  // a GPU outside the package's supported range
  pure_wheel,          // a py3-none-any wheel of a package that needs its compiled module
  missing,             // its URL answered 404: the file does not exist
};
std::string_view to_string(ReasonCode code);  // "cxx11-abi", "gpu-arch", ...

struct Reason {
  ReasonCode code;
  std::string message;
};

// A fact a candidate's fit rests on that is not known here (no interpreter,
// torch's ABI or CUDA unknown, the GPUs unreadable, glibc unknown): the rule
// could not be applied, so the candidate is uncertain, not compatible.
struct Assumption {
  std::string fact;     // stable: "python", "glibc", "torch", "torch-cuda", "cxx11-abi", "gpu"
  std::string message;  // what is assumed ("torch uses the C++11 ABI, as this wheel does")
  std::string flag;     // what removes the doubt ("--cxx11-abi TRUE")
};

struct Judged {
  const Candidate* candidate = nullptr;  // owned by the caller (Resolution::inputs)
  std::optional<pkg::WheelName> wheel;   // nullopt: the file name is not a valid wheel name
  pkg::VariantLabel variant;
  std::optional<bool> cxx11_abi;   // what the wheel was built with, and how it is known
  std::string abi_basis;           // "label", "inferred from torch 2.7 (official wheels)", ""
  std::vector<Reason> reasons;     // empty: compatible
  bool explained = false;          // messages and notes filled in (see JudgeOptions)
  std::vector<std::string> notes;  // doubts about the label, rules the wheel's name leaves open
  std::vector<Assumption> assumptions;  // unknown facts of this environment the fit rests on
  std::size_t tag_rank = 0;             // pip's preference among the interpreter's tags
  // The number the judge's cache gave its version's spelling (pkg::WheelNameParser::PartIds):
  // the wheels one resolve judged with one cache share a number per spelling.
  std::optional<std::uint32_t> version_id;
  // No rule rejects it. It is `certain` only when no rule was skipped for an
  // unknown fact; otherwise it is uncertain, picked only when nothing certain fits.
  bool compatible() const { return reasons.empty(); }
  bool certain() const { return reasons.empty() && assumptions.empty(); }
  bool has(ReasonCode code) const;
};

}  // namespace flashfit::resolve
