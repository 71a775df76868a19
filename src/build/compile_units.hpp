#pragma once
// The translation units a build really compiles. A source tree holds far
// more .cu files than its default build compiles (flash-attn 2.8.3: 72 of
// its 1,118; the rest are cutlass examples, FA3's hopper/, the ROCm back
// ends), so counting the tree makes a plan 8x too long. In order:
//   1. setup.py's literal `sources=[...]` of the extension the recipe names
//      ("counted from setup.py");
//   2. the recipe's `sources` globs ("from the recipe");
//   3. every .cu / C++ file of the tree ("estimated from the tree").
// Each step that was skipped says why in `notes`.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "build/setup_py.hpp"
#include "build/source.hpp"
#include "resolve/recipe.hpp"
#include "util/error.hpp"

namespace flashfit::build {

enum class UnitsBasis { setup_py, recipe, tree };
// "counted from setup.py", "from the recipe", "estimated from the tree"
const char* describe(UnitsBasis basis);
const char* to_string(UnitsBasis basis);  // "setup.py", "recipe", "tree" (JSON)

struct CompileUnits {
  UnitsBasis basis = UnitsBasis::tree;
  std::vector<std::string> cuda;  // paths relative to the root; empty when estimated from the tree
  std::vector<std::string> cxx;   // .cpp .cc .cxx .c
  std::size_t cuda_count = 0;     // == cuda.size() unless estimated from the tree
  std::size_t cxx_count = 0;
  // C++ units that include torch's headers (torch/extension.h pulls in most
  // of ATen: ~20 s and 1.5 GiB where a plain file takes a second); nullopt
  // when estimated from the tree (then all are taken to).
  std::optional<std::size_t> cxx_torch;
  std::string detail;              // "CUDAExtension flash_attn_2_cuda, setup.py line 227"
  std::vector<std::string> notes;  // why setup.py / the recipe was not used; listed files missing
  // setup.py's literal setup_requires, for preflight's build-dependency check.
  std::optional<std::vector<std::string>> setup_requires;
  // setup.py's own literal -gencode values and --threads, when it fixes them
  // (causal-conv1d, mamba-ssm): what the plan counts archs by for a recipe
  // without an arch variable.
  std::vector<SetupGencode> gencode;
  std::optional<unsigned> nvcc_threads;
  // setup.py's variable-shaped string literals (SetupPyFacts::variable_names);
  // nullopt when setup.py was not read, so whether it reads one is unknown.
  std::optional<std::vector<std::string>> setup_variables;
};

// The tree scan's counts, as units "estimated from the tree".
CompileUnits units_from_scan(const SourceScan& scan);

// Pure: the choice above, from what setup.py said (or the error reading it;
// nullopt: no setup.py), the files the recipe's globs matched (nullopt: the
// recipe has none) and the scan.
CompileUnits choose_compile_units(const std::optional<util::Result<SetupPyFacts>>& setup,
                                  const resolve::Recipe* recipe,
                                  const std::optional<std::vector<std::string>>& glob_matches,
                                  const SourceScan& scan);

// The shell: reads <root>/setup.py (at most 1 MiB), expands the recipe's
// globs over the tree (bounded walk, links not followed), checks that listed
// files exist, then chooses. Never fails: what cannot be read falls back.
CompileUnits find_compile_units(const std::filesystem::path& root, const resolve::Recipe* recipe,
                                const SourceScan& scan);

}  // namespace flashfit::build
