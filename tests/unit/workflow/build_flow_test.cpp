// build's pure decisions: where sdists are looked for, and which what-if
// flags turn a build into a plan.
#include "workflow/build_flow.hpp"

#include <gtest/gtest.h>

namespace flashfit::workflow {
namespace {

resolve::IndexConfig index(std::string name, resolve::IndexKind kind, std::string location,
                           bool enabled = true) {
  return {std::move(name), kind, std::move(location), enabled};
}

TEST(SdistSources, NothingConfiguredIsPypiAsPipDoes) {
  const SdistSources out = sdist_sources(resolve::Config{}, resolve::SourceFlags{});
  EXPECT_EQ(out.index_urls, (std::vector<std::string>{"https://pypi.org/simple"}));
  EXPECT_TRUE(out.find_links.empty());
  EXPECT_TRUE(out.defaulted);
}

TEST(SdistSources, ConfiguredEnabledIndexesAndFindLinksThenTheFlags) {
  resolve::Config config;
  config.indexes = {index("mirror", resolve::IndexKind::simple, "https://m.example/simple"),
                    index("off", resolve::IndexKind::simple, "https://off.example/simple", false),
                    index("dir", resolve::IndexKind::find_links, "/wheels")};
  resolve::SourceFlags flags;
  flags.extra_index_urls = {"https://extra.example/simple"};
  flags.find_links = {"/more"};
  const SdistSources out = sdist_sources(config, flags);
  EXPECT_EQ(out.index_urls,
            (std::vector<std::string>{"https://m.example/simple", "https://extra.example/simple"}));
  EXPECT_EQ(out.find_links, (std::vector<std::string>{"/wheels", "/more"}));
  EXPECT_FALSE(out.defaulted);
}

TEST(SdistSources, IndexUrlReplacesTheConfiguredIndexesNotTheFindLinks) {
  resolve::Config config;
  config.indexes = {index("mirror", resolve::IndexKind::simple, "https://m.example/simple"),
                    index("dir", resolve::IndexKind::find_links, "/wheels")};
  resolve::SourceFlags flags;
  flags.index_url = "https://only.example/simple";
  const SdistSources out = sdist_sources(config, flags);
  EXPECT_EQ(out.index_urls, (std::vector<std::string>{"https://only.example/simple"}));
  EXPECT_EQ(out.find_links, (std::vector<std::string>{"/wheels"}));
}

// --offline contacts no network: no index (not even PyPI's default), no
// find-links URL; local directories stay.
TEST(SdistSources, OfflineKeepsOnlyLocalDirectories) {
  resolve::Config config;
  config.indexes = {index("mirror", resolve::IndexKind::simple, "https://m.example/simple"),
                    index("dir", resolve::IndexKind::find_links, "/wheels"),
                    index("page", resolve::IndexKind::find_links, "https://p.example/links.html")};
  resolve::SourceFlags flags;
  flags.offline = true;
  flags.find_links = {"/more", "http://q.example/"};
  const SdistSources out = sdist_sources(config, flags);
  EXPECT_TRUE(out.index_urls.empty());
  EXPECT_EQ(out.find_links, (std::vector<std::string>{"/wheels", "/more"}));
  EXPECT_FALSE(out.defaulted);
  EXPECT_EQ(out.offline_skipped,
            (std::vector<std::string>{"https://m.example/simple", "https://p.example/links.html",
                                      "http://q.example/"}));
  const SdistSources nothing = sdist_sources(resolve::Config{}, flags);
  EXPECT_TRUE(nothing.index_urls.empty());
  EXPECT_EQ(nothing.find_links, (std::vector<std::string>{"/more"}));
}

TEST(BuildPlansOnly, GpusAlonePickArchsAndStillBuild) {
  env::WhatIf what_if;
  EXPECT_FALSE(build_plans_only(what_if));
  what_if.gpus = std::vector<env::MajorMinor>{{8, 0}};
  EXPECT_FALSE(build_plans_only(what_if));
}

TEST(BuildPlansOnly, AnotherTorchOrPythonIsAPlan) {
  env::WhatIf torch;
  torch.cxx11_abi = true;
  EXPECT_TRUE(build_plans_only(torch));
  env::WhatIf both;
  both.gpus = std::vector<env::MajorMinor>{{9, 0}};
  both.python_version = env::MajorMinor{3, 11};
  EXPECT_TRUE(build_plans_only(both));
}

}  // namespace
}  // namespace flashfit::workflow
