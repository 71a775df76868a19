// Which units a build compiles: setup.py's literal list, the recipe's globs,
// or the whole tree, in that order of trust.
#include "build/compile_units.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <fstream>

#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxSetupPyBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxMissingShown = 3;

bool has_suffix(const std::string& path, std::initializer_list<const char*> suffixes) {
  for (const char* s : suffixes) {
    if (util::ends_with(path, s) && path.size() > std::string_view(s).size()) return true;
  }
  return false;
}

// Sorts listed or matched files into CUDA and C++ units; anything else
// (headers, .hip) is no unit of a CUDA build.
CompileUnits classify(UnitsBasis basis, const std::vector<std::string>& files, std::string detail) {
  CompileUnits units;
  units.basis = basis;
  units.detail = std::move(detail);
  std::vector<std::string> other;
  for (const std::string& f : files) {
    if (has_suffix(f, {".cu"})) {
      units.cuda.push_back(f);
    } else if (has_suffix(f, {".cpp", ".cc", ".cxx", ".c"})) {
      units.cxx.push_back(f);
    } else {
      other.push_back(f);
    }
  }
  units.cuda_count = units.cuda.size();
  units.cxx_count = units.cxx.size();
  if (!other.empty()) {
    units.notes.push_back(
        fmt::format("{} listed file(s) are neither CUDA nor C++ units and are not counted ({})",
                    other.size(), util::printable(other.front(), 120)));
  }
  return units;
}

// The extension's literal sources, or why there are none.
std::optional<CompileUnits> from_setup_py(const SetupPyFacts& facts, const resolve::Recipe* recipe,
                                          std::vector<std::string>& notes) {
  const std::string wanted = recipe ? recipe->build.extension : "";
  std::vector<const SetupExtension*> named;
  for (const SetupExtension& ext : facts.extensions) {
    if (wanted.empty() || (ext.name && *ext.name == wanted)) named.push_back(&ext);
  }
  if (named.empty()) {
    notes.push_back(wanted.empty() ? "setup.py: no Extension/CUDAExtension/CppExtension call"
                                   : fmt::format("setup.py: no extension named {}", wanted));
    return std::nullopt;
  }
  if (wanted.empty() && named.size() > 1) {
    notes.push_back(fmt::format("setup.py: {} extension calls and no recipe naming the one built",
                                named.size()));
    return std::nullopt;
  }
  // flash-attn names flash_attn_2_cuda twice: literally for CUDA, from a
  // generated list for ROCm. The literal lists must agree; computed ones are
  // the other back ends.
  const SetupExtension* literal = nullptr;
  for (const SetupExtension* ext : named) {
    if (!ext->sources) continue;
    if (literal && *literal->sources != *ext->sources) {
      notes.push_back(
          fmt::format("setup.py: {} has different literal source lists (lines {} and {})",
                      wanted.empty() ? "the extension" : wanted, literal->line, ext->line));
      return std::nullopt;
    }
    if (!literal) literal = ext;
  }
  if (!literal) {
    notes.push_back(fmt::format("setup.py: {} {} (line {})",
                                named.front()->name.value_or("the extension"),
                                named.front()->not_literal, named.front()->line));
    return std::nullopt;
  }
  return classify(UnitsBasis::setup_py, *literal->sources,
                  fmt::format("{} {}, setup.py line {}", literal->constructor,
                              literal->name.value_or("(unnamed)"), literal->line));
}

std::vector<std::string> expand_globs(const fs::path& root, const std::vector<std::string>& globs) {
  std::vector<std::string> out;
  for_each_source_file(root, [&](const fs::path& path) {
    const std::string relative = path.lexically_relative(root).generic_string();
    if (relative.find('\0') != std::string::npos) return;
    for (const std::string& glob : globs) {
      if (::fnmatch(glob.c_str(), relative.c_str(), FNM_PATHNAME) == 0) {
        out.push_back(relative);
        break;
      }
    }
  });
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

const char* describe(UnitsBasis basis) {
  switch (basis) {
    case UnitsBasis::setup_py:
      return "counted from setup.py";
    case UnitsBasis::recipe:
      return "from the recipe";
    case UnitsBasis::tree:
      return "estimated from the tree";
  }
  return "estimated from the tree";
}

const char* to_string(UnitsBasis basis) {
  switch (basis) {
    case UnitsBasis::setup_py:
      return "setup.py";
    case UnitsBasis::recipe:
      return "recipe";
    case UnitsBasis::tree:
      return "tree";
  }
  return "tree";
}

CompileUnits units_from_scan(const SourceScan& scan) {
  CompileUnits units;
  units.basis = UnitsBasis::tree;
  units.cuda_count = scan.cuda_files;
  units.cxx_count = scan.cpp_files;
  units.detail = "every .cu and C/C++ file of the tree";
  return units;
}

CompileUnits choose_compile_units(const std::optional<util::Result<SetupPyFacts>>& setup,
                                  const resolve::Recipe* recipe,
                                  const std::optional<std::vector<std::string>>& glob_matches,
                                  const SourceScan& scan) {
  std::vector<std::string> notes;
  std::optional<std::vector<std::string>> setup_requires;
  std::vector<SetupGencode> gencode;
  std::optional<unsigned> nvcc_threads;
  std::optional<std::vector<std::string>> setup_variables;
  std::optional<CompileUnits> chosen;
  if (!setup) {
    notes.push_back("no setup.py");
  } else if (!*setup) {
    notes.push_back("setup.py not read: " + setup->error().message);
  } else {
    setup_requires = (*setup)->setup_requires;
    gencode = (*setup)->gencode;
    nvcc_threads = (*setup)->nvcc_threads;
    setup_variables = (*setup)->variable_names;
    chosen = from_setup_py(**setup, recipe, notes);
  }
  if (!chosen && glob_matches) {
    if (glob_matches->empty()) {
      notes.push_back("the recipe's sources patterns match no file");
    } else {
      chosen = classify(
          UnitsBasis::recipe, *glob_matches,
          fmt::format("the {} recipe's sources patterns", recipe ? recipe->name : "package"));
    }
  }
  if (!chosen) chosen = units_from_scan(scan);
  // Why earlier steps were skipped, then what the step used could not count.
  chosen->notes.insert(chosen->notes.begin(), notes.begin(), notes.end());
  chosen->setup_requires = std::move(setup_requires);
  chosen->gencode = std::move(gencode);
  chosen->nvcc_threads = nvcc_threads;
  chosen->setup_variables = std::move(setup_variables);
  return *chosen;
}

// Whether a C++ unit includes torch's or ATen's headers, from its first 256 KiB.
bool includes_torch(const fs::path& file) {
  constexpr std::size_t kHead = std::size_t{256} << 10;
  std::ifstream in(file, std::ios::binary);
  if (!in) return true;  // unreadable: assume the heavier kind
  std::string text(kHead, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  for (const char* header : {"<torch/", "\"torch/", "<ATen/", "\"ATen/", "<c10/", "<pybind11/"}) {
    if (text.find(header) != std::string::npos) return true;
  }
  return false;
}

CompileUnits find_compile_units(const fs::path& root, const resolve::Recipe* recipe,
                                const SourceScan& scan) {
  std::optional<util::Result<SetupPyFacts>> setup;
  std::error_code ec;
  if (fs::is_regular_file(root / "setup.py", ec)) {
    std::optional<std::string> text = util::read_small_file(root / "setup.py", kMaxSetupPyBytes);
    if (text) {
      setup = read_setup_py(*text);
    } else {
      setup = util::Result<SetupPyFacts>(
          util::fail(util::ErrorKind::input, "unreadable or larger than 1 MiB"));
    }
  }
  std::optional<std::vector<std::string>> matches;
  if (recipe && !recipe->build.source_globs.empty())
    matches = expand_globs(root, recipe->build.source_globs);
  CompileUnits units = choose_compile_units(setup, recipe, matches, scan);
  if (units.basis != UnitsBasis::tree) {
    std::size_t torch = 0;
    for (const std::string& path : units.cxx) torch += includes_torch(root / path) ? 1 : 0;
    units.cxx_torch = torch;
  }
  if (units.basis == UnitsBasis::setup_py) {
    std::vector<std::string> missing;
    for (const auto* list : {&units.cuda, &units.cxx}) {
      for (const std::string& path : *list) {
        if (!fs::is_regular_file(root / path, ec)) missing.push_back(path);
      }
    }
    if (!missing.empty()) {
      std::vector<std::string> shown(
          missing.begin(),
          missing.begin() + static_cast<long>(std::min(missing.size(), kMaxMissingShown)));
      for (std::string& s : shown) s = util::printable(s, 120);
      units.notes.push_back(
          fmt::format("{} of the listed sources are not in the tree ({}{}): the build will fail",
                      missing.size(), util::join(shown, ", "),
                      missing.size() > kMaxMissingShown ? ", ..." : ""));
    }
  }
  return units;
}

}  // namespace flashfit::build
