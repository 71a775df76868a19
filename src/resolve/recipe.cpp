// What a parsed recipe says about one wheel: the merged release facts and
// the known-broken entries (docs/recipes.md, "How blocks apply").
#include "resolve/recipe.hpp"

#include <fmt/core.h>
#include <fnmatch.h>

#include <algorithm>

namespace flashfit::resolve {
namespace {

bool names_source(const std::vector<std::string>& sources, std::string_view source_name) {
  if (sources.empty()) return true;
  for (const std::string& name : sources) {
    if (name == source_name) return true;
  }
  return false;
}

// Conditions on package versions use the public part: upstream's
// "2.8.3+cu12torch2.8cxx11abiTRUE" is release 2.8.3. Pre-releases are
// admitted because a recipe's range is a statement about code, not a pick.
bool version_in(const pkg::SpecifierSet& versions, const pkg::Version& version) {
  return versions.contains(version.without_local(), true);
}

std::optional<pkg::Version> as_version(int major, int minor) {
  auto parsed = pkg::Version::parse(fmt::format("{}.{}", major, minor));
  if (!parsed) return std::nullopt;
  return std::move(*parsed);
}

// A label CUDA without a minor ("cu12") cannot satisfy a condition that
// needs one: "12.x" is not ">=12.8".
bool cuda_matches(const std::optional<pkg::SpecifierSet>& condition,
                  const std::optional<pkg::CudaVersion>& wheel_cuda) {
  if (!condition) return true;
  if (!wheel_cuda || !wheel_cuda->minor) return false;
  auto version = as_version(wheel_cuda->major, *wheel_cuda->minor);
  return version && condition->contains(*version, true);
}

bool torch_matches(const std::optional<pkg::SpecifierSet>& condition,
                   const std::optional<pkg::TorchVersion>& wheel_torch) {
  if (!condition) return true;
  if (!wheel_torch) return false;
  auto version = as_version(wheel_torch->major, wheel_torch->minor);
  return version && condition->contains(*version, true);
}

bool glob_matches(const std::string& glob, std::string_view filename) {
  if (glob.empty()) return true;
  // fnmatch reads C strings; a name with a NUL in it is no real file name.
  if (filename.find('\0') != std::string_view::npos) return false;
  // The two shapes recipes write, answered as fnmatch answers them (flags 0)
  // without copying the name: no wildcard (the name itself) and "*text*"
  // (the name holds the text). The resolver asks it of thousands of wheels.
  constexpr std::string_view kSpecial = "*?[\\";
  const std::string_view pattern(glob);
  if (pattern.find_first_of(kSpecial) == std::string_view::npos) return filename == pattern;
  if (pattern.size() >= 2 && pattern.front() == '*' && pattern.back() == '*') {
    const std::string_view inner = pattern.substr(1, pattern.size() - 2);
    if (inner.find_first_of(kSpecial) == std::string_view::npos)
      return filename.find(inner) != std::string_view::npos;
  }
  return ::fnmatch(glob.c_str(), std::string(filename).c_str(), 0) == 0;
}

}  // namespace

std::string_view to_string(AbiRule rule) {
  switch (rule) {
    case AbiRule::label:
      return "label";
    case AbiRule::pytorch_official:
      return "pytorch-official";
    case AbiRule::unknown:
      return "unknown";
  }
  return "unknown";
}

std::string GpuArch::str() const {
  return fmt::format("sm_{}{}", major, minor);
}

const RecipeSource* Recipe::source(std::string_view source_name) const {
  for (const RecipeSource& candidate : sources) {
    if (candidate.name == source_name) return &candidate;
  }
  return nullptr;
}

ReleaseFacts Recipe::facts_for(const pkg::Version& version, std::string_view source_name,
                               const std::optional<pkg::CudaVersion>& wheel_cuda) const {
  // The result describes one wheel, so its own conditions stay empty.
  ReleaseFacts merged;
  // Without its label once, not once per block (each a copy of its parts).
  const pkg::Version public_version = version.without_local();
  for (const ReleaseFacts& block : releases) {
    // The source first: half the blocks are another source's, and its test is a
    // string compare where the version's is a range check.
    if (!names_source(block.sources, source_name) ||
        !block.versions.contains(public_version, true) || !cuda_matches(block.cuda, wheel_cuda)) {
      continue;
    }
    for (const auto& [major, token] : block.cuda_tokens) merged.cuda_tokens[major] = token;
    if (block.gpu_archs) {
      merged.gpu_archs = block.gpu_archs;
      merged.ptx = block.ptx;  // ptx travels with the arch list it describes
    }
    if (block.min_glibc) merged.min_glibc = block.min_glibc;
    if (block.min_compute_capability) merged.min_compute_capability = block.min_compute_capability;
    if (block.max_compute_capability) merged.max_compute_capability = block.max_compute_capability;
    if (block.torch) merged.torch = block.torch;
    if (block.python) merged.python = block.python;
    // Every matching block's note: together they say where the facts came from.
    if (!block.note.empty()) {
      merged.note = merged.note.empty() ? block.note : merged.note + "; " + block.note;
    }
  }
  return merged;
}

bool KnownBroken::concerns_version(const pkg::Version& version) const {
  return version_in(versions, version);
}

bool KnownBroken::concerns_wheel(std::string_view source_name, std::string_view filename,
                                 const std::optional<pkg::TorchVersion>& wheel_torch) const {
  return names_source(sources, source_name) && glob_matches(filename_glob, filename) &&
         torch_matches(torch, wheel_torch);
}

const KnownBroken* Recipe::broken(const pkg::Version& version, std::string_view source_name,
                                  std::string_view filename,
                                  const std::optional<pkg::TorchVersion>& wheel_torch) const {
  for (const KnownBroken& entry : known_broken) {
    if (entry.concerns_version(version) && entry.concerns_wheel(source_name, filename, wheel_torch))
      return &entry;
  }
  return nullptr;
}

}  // namespace flashfit::resolve

namespace flashfit::resolve {

const BuildKnobs::UnitKind* BuildKnobs::kind_of(std::string_view path) const {
  const std::size_t slash = path.rfind('/');
  const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (file.empty()) return nullptr;
  for (const UnitKind& kind : unit_kinds) {
    for (const std::string& pattern : kind.match) {
      if (glob_matches(pattern, file)) return &kind;
    }
  }
  return nullptr;
}

double BuildKnobs::heaviest_peak_gib() const {
  double heaviest = 0;
  for (const UnitKind& kind : unit_kinds) heaviest = std::max(heaviest, kind.peak_gib);
  return heaviest;
}

}  // namespace flashfit::resolve
