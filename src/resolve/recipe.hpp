#pragma once
// A recipe: what flashfit knows about one package built the way flash-attn is
// (docs/recipes.md). Recipes are TOML, built into the binary (recipes/*.toml)
// and overridable from the user's config. The resolver, install and build read
// only these values; nothing about a particular package is hard-coded in C++.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/specifier.hpp"
#include "pkg/variant.hpp"
#include "pkg/version.hpp"
#include "util/error.hpp"

namespace flashfit::resolve {

// How the C++11 ABI of a source's wheels is known.
enum class AbiRule {
  label,             // the variant label says it (upstream's cxx11abiTRUE/FALSE)
  pytorch_official,  // built against download.pytorch.org torch: <=2.5 false,
                     // 2.6 true only for cu126, >=2.7 true (docs/background.md §14, §18)
  unknown,           // nobody knows: the rule is not applied, and that is stated
};
std::string_view to_string(AbiRule rule);  // "label", "pytorch-official", "unknown"

// Where a source's wheel list comes from.
enum class SourceKind {
  github_releases,  // a built-in catalog (data/*.tsv) refreshed from a GitHub-releases-style API
};

// One wheel source a recipe knows (upstream, community).
struct RecipeSource {
  std::string name;  // "upstream", "community": stable, used by --source/--no-source
  SourceKind kind = SourceKind::github_releases;
  std::string description;   // "Dao-AILab release assets"
  std::string repository;    // "Dao-AILab/flash-attention"
  std::string catalog;       // built-in catalog file name under data/
  std::string url_template;  // "https://github.com/{repository}/releases/download/{tag}/{filename}"
  std::string api_url;       // releases API ("https://api.github.com/repos/{repository}/releases")
  pkg::VariantScheme labels = pkg::VariantScheme::upstream;  // the label dialect its file names use
  AbiRule abi = AbiRule::label;
  bool enabled_by_default = true;  // community builds: false (a trust decision)
  bool third_party = false;        // said in reports
  friend bool operator==(const RecipeSource&, const RecipeSource&) = default;
};

// A GPU architecture inside a wheel, with the CUDA needed to compile it.
struct GpuArch {
  int major = 0;  // sm_{major}{minor}
  int minor = 0;
  std::optional<pkg::CudaVersion>
      min_cuda;             // the arch exists only in builds with this CUDA or newer
  std::string str() const;  // "sm_80"
  friend bool operator==(const GpuArch&, const GpuArch&) = default;
};

// Facts about a range of releases (and optionally only some sources, some
// wheel CUDA versions). Every block whose conditions match a wheel applies, in
// file order; a later block's fields replace an earlier one's.
struct ReleaseFacts {
  pkg::SpecifierSet versions;        // which package versions (public part); empty: all
  std::vector<std::string> sources;  // which sources; empty: all
  std::optional<pkg::SpecifierSet>
      cuda;  // the wheel label's CUDA ("12.8"), when the label gives a minor
  // The CUDA token setup.py puts in the file name it guesses, by torch's CUDA
  // major ("12" -> "cu122"): docs/background.md §9. Used to reproduce upstream's guess.
  std::map<int, std::string> cuda_tokens;
  std::optional<std::vector<GpuArch>> gpu_archs;  // SASS inside the wheels; nullopt: unknown
  bool ptx = false;                               // whether they carry PTX (none of upstream's do)
  std::optional<std::string> min_glibc;           // "2.32"
  std::optional<std::string> min_compute_capability;  // "8.0"
  std::optional<std::string>
      max_compute_capability;               // "9.0" (<= 2.7.2 rejects Blackwell at run time)
  std::optional<pkg::SpecifierSet> torch;   // supported torch (">=2.2")
  std::optional<pkg::SpecifierSet> python;  // python_requires (">=3.9")
  std::string note;                         // where these facts come from
  friend bool operator==(const ReleaseFacts&, const ReleaseFacts&) = default;
};

// One artefact (or a family of them) known not to work, with the reason.
struct KnownBroken {
  pkg::SpecifierSet versions;        // package versions it concerns
  std::vector<std::string> sources;  // empty: all
  std::string filename_glob;         // fnmatch-style pattern over the file name ("*cxx11abiFALSE*")
  std::optional<pkg::SpecifierSet> torch;  // the label's torch ("2.6.*"), matched as "X.Y"
  std::string reason;                      // said to the user
  std::string reference;                   // "#1783, #1717"

  // Whether it concerns `version` (by its public part, as upstream's
  // version conditions are meant).
  bool concerns_version(const pkg::Version& version) const;
  // Whether it concerns a wheel of a version it concerns: by source, file
  // name and the label's torch.
  bool concerns_wheel(std::string_view source_name, std::string_view filename,
                      const std::optional<pkg::TorchVersion>& wheel_torch) const;
  friend bool operator==(const KnownBroken&, const KnownBroken&) = default;
};

// What the build issue uses. Values, not code: the build planner reads them.
struct BuildKnobs {
  std::map<std::string, std::string> env;  // always set: FLASH_ATTENTION_FORCE_BUILD=TRUE
  std::string arch_variable;               // "FLASH_ATTN_CUDA_ARCHS"
  std::string arch_separator = ";";
  // Accepted tokens and the compute capabilities each serves: "80" -> 8.0..8.9.
  struct ArchToken {
    std::string token;                    // "80"
    std::string min_cc;                   // "8.0": the lowest capability it runs on
    std::string max_cc;                   // "8.9": the highest (same major)
    std::optional<std::string> min_nvcc;  // "12.8"
    friend bool operator==(const ArchToken&, const ArchToken&) = default;
  };
  std::vector<ArchToken> arch_tokens;
  std::vector<std::string> default_archs;  // what a build compiles when not told
  std::string jobs_variable = "MAX_JOBS";
  std::string threads_variable;  // "NVCC_THREADS"; empty: the package has none
  int default_threads = 1;
  // Peak GiB of one nvcc thread, i.e. of compiling one -gencode target; a job
  // with T threads over A archs peaks near this x min(T, A). 0: not measured.
  double memory_per_thread_gib = 0;
  std::vector<std::string> build_requires;  // importable modules a no-isolation build needs
  bool needs_cuda = true;                   // preflight's CUDA checks apply

  // Which units a build compiles (docs/build.md "Compile units"): the
  // literal sources of this extension in setup.py, else these globs (paths
  // relative to the source root), else a scan of the whole tree.
  std::string extension;                  // "flash_attn_2_cuda"
  std::vector<std::string> source_globs;  // "csrc/flash_attn/src/*.cu"
  // The cost of one unit by its kind, measured compiling one arch with one
  // nvcc thread. A unit's kind is the first whose pattern matches its file
  // name, so "flash_fwd_split_*.cu" comes before "flash_fwd_*.cu".
  struct UnitKind {
    std::string name;                // "backward"
    std::vector<std::string> match;  // fnmatch patterns over the file name
    double seconds = 0;              // wall time of one unit on the measuring machine
    double peak_gib = 0;             // peak RSS of its largest process (cicc or ptxas)
    std::string note;                // "not measured: forward's figures"
    friend bool operator==(const UnitKind&, const UnitKind&) = default;
  };
  std::vector<UnitKind> unit_kinds;
  // Where the unit figures were measured, and what the calibration file took
  // there, so this machine can scale them (build/calibration.hpp).
  struct Measurement {
    std::string machine;             // "2 cores AMD EPYC, 24 GiB, gcc 12.2"
    std::string nvcc;                // "13.0"
    double calibration_seconds = 0;  // 0: no calibration figure
    std::string reference;           // "docs/background.md §11.1"
    friend bool operator==(const Measurement&, const Measurement&) = default;
  };
  std::optional<Measurement> measured;

  // The kind of a unit by its file name (a path's last component is used);
  // nullptr when no kind matches.
  const UnitKind* kind_of(std::string_view path) const;
  // The largest peak_gib over the kinds, 0 without kinds.
  double heaviest_peak_gib() const;
  friend bool operator==(const BuildKnobs&, const BuildKnobs&) = default;
};

struct Recipe {
  std::string name;                       // canonical distribution name: "flash-attn"
  std::string summary;                    // "FlashAttention-2"
  std::vector<std::string> aliases;       // names that mean this package ("flash_attn")
  std::vector<std::string> import_names;  // packages a user imports: "flash_attn"
  std::string binary_module;              // imported to prove the binary: "flash_attn_2_cuda"
  bool needs_cuda = true;                 // CPU torch can never run it
  std::string
      fallback;  // when no GPU can run it: "torch.nn.functional.scaled_dot_product_attention"
  std::vector<RecipeSource> sources;
  std::vector<ReleaseFacts> releases;
  std::vector<KnownBroken> known_broken;
  BuildKnobs build;
  std::string origin;  // "built-in", or the file it came from

  const RecipeSource* source(std::string_view source_name) const;
  // The merged facts for one wheel: every matching block, in order.
  ReleaseFacts facts_for(const pkg::Version& version, std::string_view source_name,
                         const std::optional<pkg::CudaVersion>& wheel_cuda) const;
  // The first known-broken entry that matches the wheel, if any.
  const KnownBroken* broken(const pkg::Version& version, std::string_view source_name,
                            std::string_view filename,
                            const std::optional<pkg::TorchVersion>& wheel_torch) const;
  friend bool operator==(const Recipe&, const Recipe&) = default;
};

// Parses one recipe file. `origin` names it in errors ("recipes/flash-attn.toml").
// Every malformed field is an input error that names the key and the file.
util::Result<Recipe> parse_recipe(std::string_view toml_text, std::string_view origin);

// A built-in recipe file (recipes/`file`) as the book holds it: parsed,
// its name canonical, its origin "built-in". What the compiled recipes
// (resolve/compiled_recipe.hpp) are made from, and what they are checked against.
util::Result<Recipe> parse_built_in_recipe(std::string_view file, std::string_view text);

// All recipes: the built-in ones, then the user's (a user recipe with the same
// name replaces the built-in one whole).
//
// The built-in recipes are parsed when first needed: `find` of a built-in
// recipe's own name (its file is named for it) parses that file alone, which
// is all a resolve needs (the TOML of all four was 8% of one over the full
// catalog); anything else parses them all first. A book is used from one
// thread at a time, like the other values of a resolve.
class RecipeBook {
 public:
  // The embedded recipes; they are tested (every one parses, no name or alias
  // claimed twice), so a failure is a bug: std::logic_error when it shows.
  static RecipeBook built_in();
  // Adds or replaces recipes from *.toml files in `dir` (missing dir: nothing).
  util::Result<void> add_directory(const std::filesystem::path& dir);
  util::Result<void> add(Recipe recipe);

  // By canonical name or alias (PEP 503 normalised); nullptr when unknown.
  const Recipe* find(std::string_view name) const;
  // Up to three known names close to `name`, for "did you mean".
  std::vector<std::string> similar(std::string_view name) const;
  const std::vector<Recipe>& recipes() const;

 private:
  // Parses the built-in recipe still pending at `index` into its place.
  void parse_pending(std::size_t index) const;
  // Parses every pending one and checks that no name is claimed twice.
  void parse_all() const;
  bool all_parsed() const;

  // Pointers into recipes_ are handed out: it is sized once by built_in() and
  // its pending entries are filled in place, never moved.
  mutable std::vector<Recipe> recipes_;
  // Per built-in entry of recipes_: the embedded file it is parsed from.
  struct BuiltIn {
    std::string_view file;  // "flash-attn.toml"
    std::string_view text;
    bool parsed = false;
  };
  mutable std::vector<BuiltIn> built_in_;
};

}  // namespace flashfit::resolve
