#pragma once
// Splits a parsed requirements file into the lines flashfit installs itself
// (packages with a recipe: flash-attn, mamba-ssm, user recipes, ...) and the
// lines handed to the installer unchanged. Pure: `flashfit install -r` and
// `flashfit lock` both plan from this.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/requirements_file.hpp"
#include "pkg/specifier.hpp"
#include "resolve/recipe.hpp"

namespace flashfit::workflow {

// How a recipe package was written in the file.
enum class RecipeLineForm {
  spec,       // "flash-attn==2.8.3" (a PEP 508 requirement without URL)
  wheel_url,  // "flash-attn @ https://.../x.whl" or a bare path/URL to a wheel
  sdist,      // a path/URL to an sdist of a recipe package
  // A source that names no version: a VCS URL ("git+https://...@v2.7.4#egg=flash-attn",
  // "flash-attn @ git+https://..."), a directory, any other archive.
  source,
};

struct RecipeLine {
  pkg::RequirementLine line;
  std::string recipe;  // the recipe's canonical name
  RecipeLineForm form = RecipeLineForm::spec;
  // What flashfit resolves against: the line's specifier, or "==<version>"
  // taken from the wheel/sdist file name (the URL itself is only reported).
  pkg::SpecifierSet pin;
  std::optional<std::string> url;  // the wheel/sdist URL or path, when given
};

struct RequirementsSplit {
  std::vector<RecipeLine> flashfit;             // in file order
  std::vector<pkg::RequirementLine> installer;  // in file order, unchanged
  // Recipe lines flashfit cannot take: their specifier is one only pip's
  // legacy grammar reads (`flash-attn>=2.0.*`, see loose_specifier).
  std::vector<pkg::RequirementLine> refused;
};

// Lines whose name (from the requirement, or from the archive's file name)
// has a recipe go to `flashfit`; everything else, constraints included, to
// `installer`. An archive name that cannot be read goes to the installer.
// A line with a legacy specifier goes to the installer unchanged, or, when it
// names a recipe, to `refused`.
RequirementsSplit split_requirements(const pkg::RequirementsFile& file,
                                     const resolve::RecipeBook& recipes);

}  // namespace flashfit::workflow
