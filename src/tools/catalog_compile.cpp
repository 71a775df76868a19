// flashfit_catalog_compile OUTPUT.cpp: the build's host tool that compiles the
// built-in catalogs (data/*.tsv, embedded in the core library) into the table
// resolve/compiled_catalog.hpp declares, and the built-in recipes
// (recipes/*.toml) into the functions resolve/compiled_recipe.hpp declares. It
// parses each built-in recipe source's catalog with the runtime parser
// (parse_catalog_tsv), and each recipe as the book does, so a file the runtime
// would refuse fails the build here, and rewrites OUTPUT only when the text
// changed (no rebuild of the table otherwise).
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "resolve/compiled_catalog.hpp"
#include "resolve/compiled_recipe.hpp"
#include "resolve/embedded.hpp"
#include "util/atomic_file.hpp"

namespace flashfit::resolve {
// The generator runs before there is a table: every catalog and recipe it reads is parsed.
std::span<const CompiledCatalog> compiled_catalogs() {
  return {};
}
std::span<const CompiledRecipe> compiled_recipes() {
  return {};
}
}  // namespace flashfit::resolve

namespace {

using namespace flashfit;

std::string read_existing(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: flashfit_catalog_compile OUTPUT.cpp\n");
    return 2;
  }
  const resolve::RecipeBook book = resolve::RecipeBook::built_in();
  std::vector<resolve::Catalog> parsed;
  std::vector<const resolve::RecipeSource*> sources;
  for (const resolve::Recipe& recipe : book.recipes()) {
    for (const resolve::RecipeSource& source : recipe.sources) {
      if (source.catalog.empty()) continue;
      bool known = false;  // two recipes' sources may name one file the same way
      for (const resolve::RecipeSource* s : sources) {
        known |= s->catalog == source.catalog && s->url_template == source.url_template &&
                 s->repository == source.repository;
      }
      if (known) continue;
      const resolve::EmbeddedFile* file =
          resolve::find_embedded(resolve::embedded_catalogs(), source.catalog);
      if (file == nullptr) {
        std::fprintf(stderr,
                     "flashfit_catalog_compile: recipe %s names catalog %s, not under data/\n",
                     recipe.name.c_str(), source.catalog.c_str());
        return 1;
      }
      auto catalog = resolve::parse_catalog_tsv(file->text, recipe.name, source, "built-in");
      if (!catalog) {
        std::fprintf(stderr, "flashfit_catalog_compile: %s: %s\n", catalog.error().context.c_str(),
                     catalog.error().message.c_str());
        return 1;
      }
      parsed.push_back(std::move(*catalog));
      sources.push_back(&source);
    }
  }
  std::vector<resolve::CatalogToCompile> inputs;
  for (std::size_t i = 0; i < parsed.size(); ++i) inputs.push_back({sources[i], &parsed[i]});
  // Each recipe file as the book reads it (the book above has checked them together).
  std::vector<resolve::Recipe> recipes;
  std::vector<resolve::RecipeToCompile> recipe_inputs;
  const auto files = resolve::embedded_recipes();
  recipes.reserve(files.size());  // the inputs point into it
  for (const resolve::EmbeddedFile& file : files) {
    auto recipe = resolve::parse_built_in_recipe(file.name, file.text);
    if (!recipe) {
      std::fprintf(stderr, "flashfit_catalog_compile: %s\n", recipe.error().message.c_str());
      return 1;
    }
    recipes.push_back(std::move(*recipe));
    recipe_inputs.push_back({file.name, &recipes.back()});
  }
  auto recipe_text = resolve::render_compiled_recipes(recipe_inputs);
  if (!recipe_text) {
    std::fprintf(stderr, "flashfit_catalog_compile: %s\n", recipe_text.error().message.c_str());
    return 1;
  }
  const std::string text = resolve::render_compiled_catalogs(inputs) + *recipe_text;
  if (read_existing(argv[1]) == text) return 0;
  if (auto written = util::write_file_atomic(argv[1], text); !written) {
    std::fprintf(stderr, "flashfit_catalog_compile: %s\n", written.error().message.c_str());
    return 1;
  }
  return 0;
}
