#include "resolve/compiled_recipe.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../temp_dir.hpp"
#include "resolve/embedded.hpp"

namespace flashfit::resolve {
namespace {

using ::testing::HasSubstr;

// The requirement for compiled data: every built-in recipe compiled
// into the binary is the runtime parse of its file in recipes/ (read here from
// the source tree, so a table older than its file fails), every field.
TEST(CompiledRecipe, EveryBuiltInRecipeIsTheRuntimeParseOfItsFile) {
  const auto files = embedded_recipes();
  ASSERT_GE(files.size(), 4U);
  EXPECT_EQ(compiled_recipes().size(), files.size());
  for (const EmbeddedFile& file : files) {
    SCOPED_TRACE(std::string(file.name));
    const CompiledRecipe* compiled = find_compiled_recipe(file.name);
    ASSERT_NE(compiled, nullptr);
    const std::string text = test::read(std::filesystem::path(FLASHFIT_DATA_DIR).parent_path() /
                                        "recipes" / std::string(file.name));
    EXPECT_EQ(text, file.text);
    auto parsed = parse_built_in_recipe(file.name, text);
    ASSERT_TRUE(parsed) << parsed.error().message;
    const Recipe made = compiled->make();
    EXPECT_TRUE(made == *parsed);
    // Field by field too, so a difference says where it is.
    EXPECT_EQ(made.name, parsed->name);
    EXPECT_EQ(made.aliases, parsed->aliases);
    EXPECT_TRUE(made.sources == parsed->sources);
    ASSERT_EQ(made.releases.size(), parsed->releases.size());
    for (std::size_t i = 0; i < made.releases.size(); ++i) {
      EXPECT_TRUE(made.releases[i] == parsed->releases[i]) << "release block " << i;
      EXPECT_EQ(made.releases[i].versions.str(), parsed->releases[i].versions.str());
    }
    ASSERT_EQ(made.known_broken.size(), parsed->known_broken.size());
    for (std::size_t i = 0; i < made.known_broken.size(); ++i)
      EXPECT_TRUE(made.known_broken[i] == parsed->known_broken[i]) << "known-broken entry " << i;
    EXPECT_TRUE(made.build == parsed->build);
    EXPECT_EQ(made.origin, "built-in");
  }
  EXPECT_EQ(find_compiled_recipe("no-such.toml"), nullptr);
}

// The book hands out the compiled recipe: the same answers as a parse.
TEST(CompiledRecipe, TheBookFindsTheCompiledRecipe) {
  const RecipeBook book = RecipeBook::built_in();
  const Recipe* recipe = book.find("flash-attn");
  ASSERT_NE(recipe, nullptr);
  const CompiledRecipe* compiled = find_compiled_recipe("flash-attn.toml");
  ASSERT_NE(compiled, nullptr);
  EXPECT_TRUE(*recipe == compiled->make());
  EXPECT_GT(recipe->releases.size(), 10U);
}

// What the rendering writes: each value as an expression of its type, a
// string with its length (a NUL byte survives), a specifier set as written.
TEST(CompiledRecipe, RenderingWritesEveryFieldAndReadsSpecifiersBack) {
  Recipe recipe;
  recipe.name = "x";
  recipe.summary = std::string("a\0b\"c", 5);
  ReleaseFacts facts;
  facts.versions = *pkg::SpecifierSet::parse("<3,>=2.1");
  facts.cuda_tokens = {{12, "cu12"}};
  facts.gpu_archs = std::vector<GpuArch>{{8, 0, pkg::CudaVersion{11, std::nullopt}}};
  recipe.releases.push_back(facts);
  recipe.build.memory_per_thread_gib = 0.1;
  auto text = render_compiled_recipes({{"x.toml", &recipe}});
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_THAT(*text, HasSubstr(".summary = std::string(\"a\\000b\\042c\", 5)"));
  EXPECT_THAT(*text, HasSubstr(".versions = compiled_specifiers(\"<3,>=2.1\")"));
  EXPECT_THAT(*text, HasSubstr(".cuda_tokens = std::map<int, std::string>{{12, std::string("));
  EXPECT_THAT(*text, HasSubstr("GpuArch{.major = 8, .minor = 0, .min_cuda = pkg::CudaVersion{"
                               ".major = 11, .minor = std::nullopt}}"));
  EXPECT_THAT(*text, HasSubstr(".memory_per_thread_gib = double(0.1)"));
  EXPECT_THAT(*text, HasSubstr("{\"x.toml\", &recipe_0},"));
  EXPECT_THAT(*text, HasSubstr("return {recipe_table, 1};"));
  // No recipes: a table without an (ill-formed) empty array.
  auto none = render_compiled_recipes({});
  ASSERT_TRUE(none);
  EXPECT_THAT(*none, HasSubstr("compiled_recipes() { return {}; }"));
  EXPECT_EQ(compiled_specifiers(">=2.2,<2.9").str(), pkg::SpecifierSet::parse("<2.9,>=2.2")->str());
}

// Specifier sets are equal when they hold the same specifiers as written, in
// the same order.
TEST(CompiledRecipe, SpecifierSetsCompareAsWritten) {
  EXPECT_TRUE(*pkg::SpecifierSet::parse(">=2.2,<2.9") == *pkg::SpecifierSet::parse(">=2.2, <2.9"));
  EXPECT_FALSE(*pkg::SpecifierSet::parse(">=2.2,<2.9") == *pkg::SpecifierSet::parse("<2.9,>=2.2"));
  EXPECT_FALSE(*pkg::SpecifierSet::parse(">=2.2") == *pkg::SpecifierSet::parse(">=2.2.0"));
  EXPECT_TRUE(*pkg::SpecifierSet::parse("") == pkg::SpecifierSet());
  EXPECT_FALSE(*pkg::SpecifierSet::parse(">=1") == pkg::SpecifierSet());
}

}  // namespace
}  // namespace flashfit::resolve
