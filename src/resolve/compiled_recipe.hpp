#pragma once
// The built-in recipes compiled at build time: src/tools/catalog_compile.cpp
// reads recipes/*.toml as the book does (parse_built_in_recipe) and writes
// each as a C++ function that builds the same Recipe, so a resolve reads no
// TOML (flash-attn.toml's was 6% of a resolve's instructions). A compiled
// recipe equals the runtime parse of its file
// (tests/unit/resolve/compiled_recipe_test.cpp checks every field).
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "resolve/recipe.hpp"
#include "util/error.hpp"

namespace flashfit::resolve {

struct CompiledRecipe {
  std::string_view file;  // "flash-attn.toml"
  Recipe (*make)();
};

// Every compiled recipe (the generated table; empty in the generator itself,
// which parses).
std::span<const CompiledRecipe> compiled_recipes();

// The compiled form of recipes/`file`, or nullptr.
const CompiledRecipe* find_compiled_recipe(std::string_view file);

// The C++ source of the generated functions and table for these recipes (the
// generator's output; pure). An error when a value would not read back as it
// is (a specifier set whose text parses to another).
struct RecipeToCompile {
  std::string_view file;
  const Recipe* recipe = nullptr;
};
util::Result<std::string> render_compiled_recipes(const std::vector<RecipeToCompile>& recipes);

// A specifier set as the generated code writes it: its specifiers as written,
// in order (parsing the text gives an equal set). For the generated code.
pkg::SpecifierSet compiled_specifiers(std::string_view text);

}  // namespace flashfit::resolve
