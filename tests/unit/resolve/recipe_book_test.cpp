#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../temp_dir.hpp"
#include "resolve/embedded.hpp"
#include "resolve/recipe.hpp"

namespace flashfit::resolve {
namespace {

namespace fs = std::filesystem;

using test::write;

std::string recipe_text(const std::string& name, const std::string& extra = "") {
  return "[package]\nname = \"" + name + "\"\n" + extra +
         "[[source]]\nname = \"upstream\"\nrepository = \"o/r\"\nurl_template = \"{filename}\"\n";
}

TEST(RecipeBook, BuiltInHasEveryEmbeddedRecipe) {
  const RecipeBook book = RecipeBook::built_in();
  EXPECT_EQ(book.recipes().size(), embedded_recipes().size());
  for (const Recipe& recipe : book.recipes()) EXPECT_EQ(recipe.origin, "built-in");
}

TEST(RecipeBook, FindByNormalisedNameOrAlias) {
  const RecipeBook book = RecipeBook::built_in();
  for (const char* name : {"flash-attn", "flash_attn", "Flash_Attn", "flash.attn", "FLASH--ATTN"}) {
    const Recipe* recipe = book.find(name);
    ASSERT_NE(recipe, nullptr) << name;
    EXPECT_EQ(recipe->name, "flash-attn");
  }
  ASSERT_NE(book.find("flash_attn_3"), nullptr);
  EXPECT_EQ(book.find("flash_attn_3")->name, "flash-attn-3");
  ASSERT_NE(book.find("causal_conv1d"), nullptr);
  EXPECT_EQ(book.find("causal_conv1d")->name, "causal-conv1d");
  EXPECT_EQ(book.find("xformers"), nullptr);
  EXPECT_EQ(book.find(""), nullptr);
  EXPECT_EQ(book.find(std::string("flash-attn\0x", 12)), nullptr);
}

// Built-in recipes are parsed when first needed; a fresh book answers every
// name and alias as one whose recipes were all read first, and what find()
// handed out stays valid when the rest are read.
TEST(RecipeBook, AFreshBookFindsWhatAFullyReadOneFinds) {
  const RecipeBook full = RecipeBook::built_in();
  ASSERT_EQ(full.recipes().size(), embedded_recipes().size());
  std::vector<std::string> names = {"xformers", "flash", "flash-attn-2"};
  for (const Recipe& recipe : full.recipes()) {
    names.push_back(recipe.name);
    for (const std::string& alias : recipe.aliases) names.push_back(alias);
  }
  for (const std::string& name : names) {
    const RecipeBook fresh = RecipeBook::built_in();
    const Recipe* found = fresh.find(name);
    const Recipe* expected = full.find(name);
    ASSERT_EQ(found == nullptr, expected == nullptr) << name;
    if (!found) continue;
    EXPECT_EQ(found->name, expected->name) << name;
    EXPECT_EQ(found->origin, "built-in");
    EXPECT_EQ(found->sources.size(), expected->sources.size()) << name;
    const std::string kept = found->name;
    // Reading every recipe afterwards moves none: the pointer still holds it.
    ASSERT_EQ(fresh.recipes().size(), full.recipes().size());
    EXPECT_EQ(found->name, kept);
    EXPECT_EQ(fresh.find(name), found) << name;
    for (std::size_t i = 0; i < full.recipes().size(); ++i)
      EXPECT_EQ(fresh.recipes()[i].name, full.recipes()[i].name) << "order, after " << name;
  }
}

TEST(RecipeBook, SimilarNames) {
  const RecipeBook book = RecipeBook::built_in();
  auto similar = book.similar("flash-atn");
  ASSERT_FALSE(similar.empty());
  EXPECT_EQ(similar.front(), "flash-attn");
  similar = book.similar("flash");
  EXPECT_NE(std::find(similar.begin(), similar.end(), "flash-attn"), similar.end());
  EXPECT_NE(std::find(similar.begin(), similar.end(), "flash-attn-3"), similar.end());
  EXPECT_LE(similar.size(), 3U);
  EXPECT_EQ(book.similar("causal-conv")[0], "causal-conv1d");
  EXPECT_TRUE(book.similar("numpy").empty());
  EXPECT_TRUE(book.similar("").empty());
  EXPECT_TRUE(book.similar(std::string(100000, 'f')).empty());
}

TEST(RecipeBook, DirectoryOverridesAndAdds) {
  test::TempDir dir("recipes");
  write(dir.path() / "flash-attn.toml", recipe_text("flash_attn", "summary = \"mine\"\n"));
  write(dir.path() / "example.toml", recipe_text("example-ext", "aliases = [\"example_ext\"]\n"));
  write(dir.path() / "README.md", "not a recipe");
  write(dir.path() / ".#lock.toml", "garbage [[[");  // editor files are skipped

  RecipeBook book = RecipeBook::built_in();
  const std::size_t before = book.recipes().size();
  ASSERT_TRUE(book.add_directory(dir.path()));
  EXPECT_EQ(book.recipes().size(), before + 1);
  const Recipe* flash = book.find("flash-attn");
  ASSERT_NE(flash, nullptr);
  EXPECT_EQ(flash->summary, "mine");  // replaced whole: nothing of the built-in one is left
  EXPECT_TRUE(flash->releases.empty());
  EXPECT_EQ(flash->origin, (dir.path() / "flash-attn.toml").string());
  ASSERT_NE(book.find("example_ext"), nullptr);
  EXPECT_EQ(book.find("example_ext")->name, "example-ext");
}

TEST(RecipeBook, MissingDirectoryIsNothing) {
  RecipeBook book = RecipeBook::built_in();
  EXPECT_TRUE(book.add_directory("/nonexistent/flashfit/recipes"));
  EXPECT_EQ(book.recipes().size(), embedded_recipes().size());
}

TEST(RecipeBook, BadFileLeavesTheBookAsItWas) {
  test::TempDir dir("recipes");
  write(dir.path() / "a.toml", recipe_text("aaa"));
  write(dir.path() / "b.toml", "[package]\nname = \"bbb\"\n[[release]]\ngpu_archs = [80]\n");
  RecipeBook book = RecipeBook::built_in();
  auto added = book.add_directory(dir.path());
  ASSERT_FALSE(added);
  EXPECT_EQ(added.error().kind, util::ErrorKind::input);
  EXPECT_EQ(added.error().context, (dir.path() / "b.toml").string());
  EXPECT_NE(added.error().message.find("release[0].gpu_archs[0]"), std::string::npos);
  EXPECT_EQ(book.find("aaa"), nullptr);
}

TEST(RecipeBook, UnreadableFiles) {
  {
    test::TempDir dir("recipes");
    fs::create_symlink(dir.path() / "missing-target", dir.path() / "dangling.toml");
    RecipeBook book;
    auto added = book.add_directory(dir.path());
    ASSERT_FALSE(added);
    EXPECT_NE(added.error().message.find("cannot open"), std::string::npos);
    EXPECT_EQ(added.error().context, (dir.path() / "dangling.toml").string());
  }
  {
    test::TempDir dir("recipes");
    fs::create_directories(dir.path() / "sub.toml");
    RecipeBook book;
    auto added = book.add_directory(dir.path());
    ASSERT_FALSE(added);
    EXPECT_NE(added.error().message.find("not a regular file"), std::string::npos);
  }
  {
    // A FIFO must be refused, not waited on.
    test::TempDir dir("recipes");
    ASSERT_EQ(::mkfifo((dir.path() / "pipe.toml").c_str(), 0600), 0);
    RecipeBook book;
    auto added = book.add_directory(dir.path());
    ASSERT_FALSE(added);
    EXPECT_NE(added.error().message.find("not a regular file"), std::string::npos);
  }
  if (::geteuid() != 0) {  // root reads through any mode
    test::TempDir dir("recipes");
    write(dir.path() / "secret.toml", recipe_text("secret"));
    ::chmod((dir.path() / "secret.toml").c_str(), 0);
    RecipeBook book;
    auto added = book.add_directory(dir.path());
    ASSERT_FALSE(added);
    EXPECT_NE(added.error().message.find("cannot open"), std::string::npos);
  }
  {
    test::TempDir dir("recipes");
    write(dir.path() / "big.toml", recipe_text("big") + "# " + std::string(1100000, 'x') + "\n");
    RecipeBook book;
    auto added = book.add_directory(dir.path());
    ASSERT_FALSE(added);
    EXPECT_NE(added.error().message.find("too large"), std::string::npos);
  }
  {
    test::TempDir dir("recipes");
    write(dir.path() / "file", "x");
    RecipeBook book;
    EXPECT_FALSE(book.add_directory(dir.path() / "file"));
  }
}

TEST(RecipeBook, NameClashes) {
  {
    test::TempDir dir("recipes");
    write(dir.path() / "one.toml", recipe_text("same"));
    write(dir.path() / "two.toml", recipe_text("Same"));
    RecipeBook book;
    auto added = book.add_directory(dir.path());
    ASSERT_FALSE(added);
    EXPECT_NE(added.error().message.find("also defined in"), std::string::npos);
  }
  {
    // An alias that already means another recipe would make find() ambiguous.
    test::TempDir dir("recipes");
    write(dir.path() / "fa.toml", recipe_text("fa", "aliases = [\"flash_attn\"]\n"));
    RecipeBook book = RecipeBook::built_in();
    auto added = book.add_directory(dir.path());
    ASSERT_FALSE(added);
    EXPECT_NE(added.error().message.find("already means recipe \"flash-attn\""), std::string::npos);
    EXPECT_EQ(book.find("fa"), nullptr);
  }
  {
    // Replacing a recipe may keep its own aliases.
    test::TempDir dir("recipes");
    write(dir.path() / "fa.toml",
          recipe_text("flash-attn", "aliases = [\"flash_attn\", \"fa2\"]\n"));
    RecipeBook book = RecipeBook::built_in();
    ASSERT_TRUE(book.add_directory(dir.path()));
    EXPECT_EQ(book.find("fa2")->name, "flash-attn");
  }
}

}  // namespace
}  // namespace flashfit::resolve
