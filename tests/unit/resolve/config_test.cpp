#include "resolve/config.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../temp_dir.hpp"

namespace flashfit::resolve {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> default_priority{"cache", "index", "upstream", "community"};

using test::write;

util::Result<Config> parse(const std::string& text) {
  return parse_config(text, "/etc/flashfit.toml", "/home/me/proj");
}

std::string error_of(const std::string& text) {
  auto config = parse(text);
  if (config) {
    ADD_FAILURE() << "parsed:\n" << text;
    return {};
  }
  EXPECT_EQ(config.error().kind, util::ErrorKind::input);
  EXPECT_EQ(config.error().context, "/etc/flashfit.toml");
  return config.error().message + " | " + config.error().hint;
}

TEST(ConfigParse, EmptyIsDefaults) {
  auto config = parse("");
  ASSERT_TRUE(config) << util::render(config.error());
  EXPECT_TRUE(config->recipe_dirs.empty());
  EXPECT_TRUE(config->indexes.empty());
  EXPECT_TRUE(config->enable.empty());
  EXPECT_TRUE(config->disable.empty());
  EXPECT_EQ(config->priority, default_priority);
  EXPECT_FALSE(config->path);
}

TEST(ConfigParse, FullExample) {
  auto config = parse(R"(
recipe_dirs = ["recipes", "/opt/flashfit/recipes", "../shared/./recipes"]

[[index]]
name = "internal"
url = "https://pypi.example.com/simple"

[[index]]
name = "wheelhouse"
kind = "find-links"
url = "wheels"
enabled = false

[[index]]
name = "nightly"
kind = "find-links"
url = "https://example.com/nightly/index.html"

[sources]
enable = ["community"]
disable = ["upstream", "nightly"]
priority = ["wheelhouse", "community"]
)");
  ASSERT_TRUE(config) << util::render(config.error());
  EXPECT_EQ(config->recipe_dirs,
            (std::vector<fs::path>{"/home/me/proj/recipes", "/opt/flashfit/recipes",
                                   "/home/me/shared/recipes"}));
  ASSERT_EQ(config->indexes.size(), 3U);
  EXPECT_EQ(config->indexes[0].name, "internal");
  EXPECT_EQ(config->indexes[0].kind, IndexKind::simple);
  EXPECT_EQ(config->indexes[0].location, "https://pypi.example.com/simple");
  EXPECT_TRUE(config->indexes[0].enabled);
  EXPECT_EQ(config->indexes[1].kind, IndexKind::find_links);
  EXPECT_EQ(config->indexes[1].location, "/home/me/proj/wheels");
  EXPECT_FALSE(config->indexes[1].enabled);
  EXPECT_EQ(config->indexes[2].location, "https://example.com/nightly/index.html");
  EXPECT_EQ(config->enable, std::vector<std::string>{"community"});
  EXPECT_EQ(config->disable, (std::vector<std::string>{"upstream", "nightly"}));
  // The given order first, then the rest of the default order.
  EXPECT_EQ(config->priority,
            (std::vector<std::string>{"wheelhouse", "community", "cache", "index", "upstream"}));
}

TEST(ConfigParse, Errors) {
  EXPECT_NE(error_of("recipe_dir = [\"x\"]\n")
                .find("recipe_dir: unknown key (line 1) | did you mean 'recipe_dirs'?"),
            std::string::npos);
  EXPECT_NE(error_of("recipe_dirs = \"x\"\n")
                .find("recipe_dirs: expected an array of strings, got a string"),
            std::string::npos);
  EXPECT_NE(error_of("recipe_dirs = [1]\n")
                .find("recipe_dirs[0]: expected a directory path, got an integer"),
            std::string::npos);
  EXPECT_NE(error_of("recipe_dirs = [\"~/r\"]\n").find("'~' is not expanded"), std::string::npos);
  EXPECT_NE(error_of("recipe_dirs = [\"\"]\n").find("recipe_dirs[0]: empty path"),
            std::string::npos);
  for (const char* name : {"upstream", "community", "cache", "index"}) {
    EXPECT_NE(
        error_of(std::string("[[index]]\nname = \"") + name + "\"\nurl = \"https://x/simple\"\n")
            .find("is the name of a built-in source"),
        std::string::npos)
        << name;
  }
  EXPECT_NE(error_of("[[index]]\nname = \"a\"\nurl = \"https://x\"\n[[index]]\nname = \"a\"\nurl = "
                     "\"https://y\"\n")
                .find("index[1].name: duplicate index name \"a\""),
            std::string::npos);
  EXPECT_NE(error_of("[[index]]\nname = \"a b\"\nurl = \"https://x\"\n").find("index[0].name"),
            std::string::npos);
  EXPECT_NE(error_of("[[index]]\nurl = \"https://x\"\n").find("index[0].name: missing"),
            std::string::npos);
  EXPECT_NE(error_of("[[index]]\nname = \"a\"\n").find("index[0].url: missing"), std::string::npos);
  EXPECT_NE(error_of("[[index]]\nname = \"a\"\nurl = \"https://x\"\nkind = \"pep691\"\n")
                .find("unknown index kind"),
            std::string::npos);
  EXPECT_NE(error_of("[[index]]\nname = \"a\"\nurl = \"wheels\"\n")
                .find("index[0].url: expected an http://"),
            std::string::npos);
  EXPECT_NE(error_of("[[index]]\nname = \"a\"\nurl = \"https://x\"\nenabled = \"yes\"\n")
                .find("index[0].enabled"),
            std::string::npos);
  EXPECT_NE(error_of("[index]\nname = \"a\"\n").find("index: expected [[index]] blocks"),
            std::string::npos);
  EXPECT_NE(error_of("[sources]\npriority = [\"pypi\"]\n")
                .find("sources.priority[0]: unknown source \"pypi\""),
            std::string::npos);
  EXPECT_NE(error_of("[sources]\nenable = [\"index\"]\n").find("sources.enable[0]: unknown source"),
            std::string::npos);
  EXPECT_NE(error_of("[sources]\npriority = [\"cache\", \"cache\"]\n").find("listed twice"),
            std::string::npos);
  EXPECT_NE(error_of("[sources]\nenable = [\"community\"]\ndisable = [\"community\"]\n")
                .find("both enabled and disabled"),
            std::string::npos);
  EXPECT_NE(error_of("[sources]\nenabled = [\"community\"]\n").find("did you mean 'enable'?"),
            std::string::npos);
  EXPECT_NE(error_of("sources = [\"community\"]\n").find("sources: expected a table"),
            std::string::npos);
}

TEST(ConfigParse, PriorityMayNameIndexesAndTheKindWord) {
  auto config = parse(
      "[[index]]\nname = \"mine\"\nurl = \"file:///srv/simple\"\n[sources]\npriority = [\"mine\", "
      "\"index\", \"cache\"]\n");
  ASSERT_TRUE(config) << util::render(config.error());
  EXPECT_EQ(config->priority,
            (std::vector<std::string>{"mine", "index", "cache", "upstream", "community"}));
}

TEST(ConfigParse, HostileInput) {
  EXPECT_NE(error_of("[[index]]\nname = \"a\"\nurl = \"https://x").find("invalid TOML at line 3"),
            std::string::npos);
  EXPECT_NE(error_of(std::string("recipe_dirs = []\0", 17)).find("NUL byte"), std::string::npos);
  EXPECT_NE(error_of("recipe_dirs = [\"a\\u0000b\"]\n").find("control character"),
            std::string::npos);
  EXPECT_NE(error_of("x = " + std::string(50000, '[')).find("invalid TOML"), std::string::npos);
  EXPECT_NE(error_of(std::string(1024 * 1024 + 1, '#')).find("too large"), std::string::npos);
}

class LoadConfig : public ::testing::Test {
 protected:
  test::TempDir root{"config"};
  fs::path work() const { return root.path() / "work"; }
  fs::path xdg() const { return root.path() / "xdg"; }
  fs::path home() const { return root.path() / "home"; }
  ConfigLocation where() const {
    fs::create_directories(work());
    return ConfigLocation{std::nullopt, xdg().string(), home().string(), work()};
  }
};

TEST_F(LoadConfig, NoFileGivesDefaultsAndTheUserRecipeDir) {
  auto config = load_config(where());
  ASSERT_TRUE(config) << util::render(config.error());
  EXPECT_FALSE(config->path);
  EXPECT_EQ(config->priority, default_priority);
  EXPECT_EQ(config->recipe_dirs, std::vector<fs::path>{xdg() / "flashfit" / "recipes"});
}

TEST_F(LoadConfig, ExplicitPathMustExist) {
  ConfigLocation location = where();
  location.flashfit_config = (root.path() / "nope.toml").string();
  auto config = load_config(location);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().kind, util::ErrorKind::input);
  EXPECT_EQ(config.error().context, (root.path() / "nope.toml").string());

  write(work() / "custom.toml", "recipe_dirs = [\"r\"]\n");
  location.flashfit_config = "custom.toml";  // relative to the working directory
  config = load_config(location);
  ASSERT_TRUE(config) << util::render(config.error());
  EXPECT_EQ(config->path, work() / "custom.toml");
  EXPECT_EQ(config->recipe_dirs,
            (std::vector<fs::path>{xdg() / "flashfit" / "recipes", work() / "r"}));
  location.flashfit_config = "";  // empty means unset
  EXPECT_TRUE(load_config(location));
}

TEST_F(LoadConfig, SearchOrder) {
  write(xdg() / "flashfit" / "config.toml", "[sources]\nenable = [\"community\"]\n");
  write(home() / ".config" / "flashfit" / "config.toml", "[sources]\ndisable = [\"upstream\"]\n");
  auto config = load_config(where());
  ASSERT_TRUE(config) << util::render(config.error());
  EXPECT_EQ(config->path, xdg() / "flashfit" / "config.toml");

  write(work() / "flashfit.toml", "[sources]\ndisable = [\"community\"]\n");
  config = load_config(where());
  ASSERT_TRUE(config) << util::render(config.error());
  EXPECT_EQ(config->path, work() / "flashfit.toml");
  EXPECT_EQ(config->disable, std::vector<std::string>{"community"});

  fs::remove(work() / "flashfit.toml");
  ConfigLocation location = where();
  location.xdg_config_home = "relative/xdg";  // the XDG spec says to ignore it
  config = load_config(location);
  ASSERT_TRUE(config) << util::render(config.error());
  EXPECT_EQ(config->path, home() / ".config" / "flashfit" / "config.toml");
  EXPECT_EQ(config->recipe_dirs,
            std::vector<fs::path>{home() / ".config" / "flashfit" / "recipes"});

  location.xdg_config_home = std::nullopt;
  location.home = std::nullopt;
  config = load_config(location);
  ASSERT_TRUE(config);
  EXPECT_TRUE(config->recipe_dirs.empty());
}

TEST_F(LoadConfig, BadFilesAreErrorsNamingThem) {
  write(work() / "flashfit.toml", "[sources]\npriority = [\"pypi\"]\n");
  auto config = load_config(where());
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().context, (work() / "flashfit.toml").string());

  fs::remove(work() / "flashfit.toml");
  fs::create_directories(work() / "flashfit.toml");
  config = load_config(where());
  ASSERT_FALSE(config);
  EXPECT_NE(config.error().message.find("not a regular file"), std::string::npos);

  fs::remove(work() / "flashfit.toml");
  fs::create_symlink(work() / "gone", work() / "flashfit.toml");
  config = load_config(where());
  ASSERT_FALSE(config);
  EXPECT_NE(config.error().message.find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace flashfit::resolve
