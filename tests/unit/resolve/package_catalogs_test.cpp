// The built-in catalogs of causal-conv1d and mamba-ssm (data/*.tsv, imported
// from the shared data set): loaded for their recipes, judged with the recipes'
// CUDA-token eras, and the oddities kept as they are (mamba-ssm v2.3.2's wheels
// are named 2.3.1). A recipe whose catalog lists nothing says how to fill it.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "../temp_dir.hpp"
#include "resolve/gather.hpp"
#include "resolve/resolver.hpp"
#include "targets.hpp"

namespace flashfit::resolve {
namespace {

using testing::make_target;

struct Loaded {
  std::vector<Candidate> candidates;
  std::vector<std::string> warnings;
};

Loaded load(const RecipeBook& book, const std::string& name) {
  const Recipe* recipe = book.find(name);
  EXPECT_NE(recipe, nullptr) << name;
  Config config;
  auto plan = plan_sources(recipe, config, SourceFlags{}, std::nullopt);
  EXPECT_TRUE(plan);
  Gathered g = gather(name, recipe, *plan, std::nullopt);
  return {std::move(g.candidates), std::move(g.warnings)};
}

std::string pick(const Resolution& r) {
  return r.selected ? r.candidates[*r.selected].candidate->filename : "(none)";
}

TEST(PackageCatalogs, CausalConv1dAndMambaSsmAreBuiltIn) {
  RecipeBook book = RecipeBook::built_in();
  Loaded conv = load(book, "causal-conv1d");
  Loaded mamba = load(book, "mamba-ssm");
  EXPECT_EQ(conv.candidates.size(), 2582u);
  EXPECT_EQ(mamba.candidates.size(), 2647u);
  EXPECT_TRUE(conv.warnings.empty());
  EXPECT_TRUE(mamba.warnings.empty());
}

TEST(PackageCatalogs, PicksForARealEnvironment) {
  RecipeBook book = RecipeBook::built_in();
  // Python 3.12, torch 2.6.0+cu124 (pre-C++11 ABI), an A100.
  auto target = make_target({.python = "3.12",
                             .torch = "2.6.0+cu124",
                             .cuda = "12.4",
                             .abi = false,
                             .gpus = std::vector<std::string>{"8.0"}});
  for (const char* name : {"causal-conv1d", "mamba-ssm"}) {
    Resolution r =
        resolve(Request{name, {}, name}, book.find(name), target, load(book, name).candidates);
    ASSERT_TRUE(r.selected) << name;
    const std::string file = pick(r);
    EXPECT_NE(file.find("torch2.6cxx11abiFALSE-cp312-cp312-linux_x86_64.whl"), std::string::npos)
        << file;
    EXPECT_NE(file.find("+cu12"), std::string::npos) << file;
  }
}

TEST(PackageCatalogs, MambaV232ShipsWheelsNamed231) {
  RecipeBook book = RecipeBook::built_in();
  Loaded mamba = load(book, "mamba-ssm");
  std::size_t under_232 = 0;
  for (const Candidate& c : mamba.candidates) {
    if (c.release_tag == "v2.3.2") {
      ++under_232;
      EXPECT_EQ(c.filename.rfind("mamba_ssm-2.3.1+", 0), 0u) << c.filename;
    }
  }
  EXPECT_GT(under_232, 0u);
  // A pin on 2.3.1 prefers the file under its own release.
  auto target =
      make_target({.python = "3.12", .torch = "2.7.1+cu128", .cuda = "12.8", .abi = true});
  Request pinned{"mamba-ssm", *pkg::SpecifierSet::parse("==2.3.1"), "mamba-ssm==2.3.1"};
  Resolution r = resolve(pinned, book.find("mamba-ssm"), target, mamba.candidates);
  ASSERT_TRUE(r.selected);
  EXPECT_EQ(r.candidates[*r.selected].candidate->release_tag, "v2.3.1") << pick(r);
}

TEST(PackageCatalogs, ARecipeWithoutCatalogRowsSaysHowToFillIt) {
  RecipeBook book = RecipeBook::built_in();
  Recipe empty = *book.find("causal-conv1d");
  empty.name = "empty-ext";
  empty.aliases.clear();
  empty.sources.front().catalog = "";
  Config config;
  auto plan = plan_sources(&empty, config, SourceFlags{}, std::nullopt);
  ASSERT_TRUE(plan);
  Gathered g = gather("empty-ext", &empty, *plan, std::nullopt);
  EXPECT_TRUE(g.candidates.empty());
  ASSERT_EQ(g.warnings.size(), 1u);
  EXPECT_NE(g.warnings[0].find("lists no wheels"), std::string::npos) << g.warnings[0];
  EXPECT_NE(g.warnings[0].find("flashfit catalog update --package empty-ext --source upstream"),
            std::string::npos)
      << g.warnings[0];
  auto report = std::find_if(g.sources.begin(), g.sources.end(),
                             [](const SourceReport& s) { return s.plan.name == "upstream"; });
  ASSERT_NE(report, g.sources.end());
  EXPECT_EQ(report->status, "no wheels in its catalog");
}

// The config file is the team's, for every package: enabling flash-attn's
// community source must not break causal-conv1d, which has none. A flag, being
// about the one package asked, still refuses a source that package lacks.
TEST(PackageCatalogs, ConfigSourceAPackageLacksDoesNotApplyToIt) {
  RecipeBook book = RecipeBook::built_in();
  Config config;
  config.enable = {"community"};
  auto conv = plan_sources(book.find("causal-conv1d"), config, SourceFlags{}, std::nullopt);
  ASSERT_TRUE(conv) << conv.error().message;
  EXPECT_TRUE(std::none_of(conv->begin(), conv->end(),
                           [](const SourcePlan& p) { return p.name == "community"; }));
  auto fa = plan_sources(book.find("flash-attn"), config, SourceFlags{}, std::nullopt);
  ASSERT_TRUE(fa);
  auto community = std::find_if(fa->begin(), fa->end(),
                                [](const SourcePlan& p) { return p.name == "community"; });
  ASSERT_NE(community, fa->end());
  EXPECT_TRUE(community->enabled);

  config.enable.clear();
  config.disable = {"community"};
  EXPECT_TRUE(plan_sources(book.find("mamba-ssm"), config, SourceFlags{}, std::nullopt));

  SourceFlags flags;
  flags.enable = {"community"};
  auto refused = plan_sources(book.find("causal-conv1d"), Config{}, flags, std::nullopt);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("--source: no source named 'community'"),
            std::string::npos)
      << refused.error().message;
}

// A requirements file's --no-index, as pip reads it: indexes and the release
// catalogs (wheels on GitHub) are not consulted; find-links directories are.
TEST(PackageCatalogs, NoIndexConsultsOnlyLocalFindLinks) {
  RecipeBook book = RecipeBook::built_in();
  const Recipe* recipe = book.find("flash-attn");
  test::TempDir links("no-index-links");
  const std::string local = "flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl";
  std::ofstream(links.path() / local) << "not read by gather";
  SourceFlags flags;
  flags.index_url = "http://127.0.0.1:9/simple";
  flags.find_links = {links.path().string()};
  flags.no_index = true;
  auto plan = plan_sources(recipe, Config{}, flags, std::nullopt);
  ASSERT_TRUE(plan) << plan.error().message;
  const Gathered g = gather("flash-attn", recipe, *plan, std::nullopt);
  ASSERT_FALSE(g.candidates.empty());
  for (const Candidate& c : g.candidates) EXPECT_EQ(c.filename, local) << c.source;
  for (const SourceReport& r : g.sources) {
    const bool local_source = r.plan.role == SourceRole::find_links;
    const bool off = r.plan.name == "community";  // off by default: said as off
    EXPECT_EQ(r.status == "not consulted (--no-index)", !local_source && !off) << r.plan.name;
    if (off) {
      EXPECT_EQ(r.status, "not consulted (disabled)");
    }
  }
  ASSERT_EQ(g.warnings.size(), 1U);
  EXPECT_NE(g.warnings[0].find("--no-index: index, upstream not consulted"), std::string::npos)
      << g.warnings[0];
  // Without it the catalog's thousands of wheels are there again.
  flags.no_index = false;
  flags.index_url.reset();
  plan = plan_sources(recipe, Config{}, flags, std::nullopt);
  ASSERT_TRUE(plan);
  EXPECT_GT(gather("flash-attn", recipe, *plan, std::nullopt).candidates.size(), 1000U);
}

}  // namespace
}  // namespace flashfit::resolve
