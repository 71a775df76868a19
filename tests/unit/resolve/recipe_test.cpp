#include "resolve/recipe.hpp"

#include <fnmatch.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "resolve/embedded.hpp"
#include "resolve/recipe_values.hpp"
#include "resolve/required_modules.hpp"

namespace flashfit::resolve {
namespace {

pkg::Version v(const std::string& text) {
  return pkg::Version::parse(text).value();
}

Recipe built_in(const std::string& file) {
  const EmbeddedFile* embedded = find_embedded(embedded_recipes(), file);
  if (embedded == nullptr) throw std::runtime_error("no embedded recipe " + file);
  auto recipe = parse_recipe(embedded->text, "recipes/" + file);
  if (!recipe) throw std::runtime_error(util::render(recipe.error()));
  return *recipe;
}

std::vector<std::string> arch_strings(const std::optional<std::vector<GpuArch>>& archs) {
  std::vector<std::string> out;
  if (!archs) return out;
  for (const GpuArch& arch : *archs) {
    out.push_back(arch.str() + (arch.min_cuda ? "@" + arch.min_cuda->str() : ""));
  }
  return out;
}

constexpr const char* kMinimal = R"(
[package]
name = "demo"
[[source]]
name = "upstream"
repository = "owner/demo"
url_template = "https://example.com/{repository}/{tag}/{filename}"
)";

TEST(RecipeParse, EveryBuiltInRecipeParses) {
  ASSERT_GE(embedded_recipes().size(), 3U);
  for (const EmbeddedFile& file : embedded_recipes()) {
    auto recipe = parse_recipe(file.text, "recipes/" + std::string(file.name));
    ASSERT_TRUE(recipe) << util::render(recipe.error());
    EXPECT_FALSE(recipe->name.empty()) << file.name;
    EXPECT_FALSE(recipe->sources.empty()) << file.name;
    EXPECT_FALSE(recipe->binary_module.empty()) << file.name;
  }
  EXPECT_NE(find_embedded(embedded_recipes(), "flash-attn.toml"), nullptr);
  EXPECT_NE(find_embedded(embedded_recipes(), "causal-conv1d.toml"), nullptr);
  EXPECT_NE(find_embedded(embedded_recipes(), "flash-attn-3.toml"), nullptr);
}

TEST(RecipeParse, FlashAttnPackageAndSources) {
  const Recipe recipe = built_in("flash-attn.toml");
  EXPECT_EQ(recipe.name, "flash-attn");
  EXPECT_EQ(recipe.aliases, std::vector<std::string>{"flash_attn"});
  EXPECT_EQ(recipe.import_names, std::vector<std::string>{"flash_attn"});
  EXPECT_EQ(recipe.binary_module, "flash_attn_2_cuda");
  EXPECT_TRUE(recipe.needs_cuda);
  EXPECT_EQ(recipe.fallback, "torch.nn.functional.scaled_dot_product_attention");
  EXPECT_EQ(recipe.origin, "recipes/flash-attn.toml");

  const RecipeSource* upstream = recipe.source("upstream");
  ASSERT_NE(upstream, nullptr);
  EXPECT_EQ(upstream->repository, "Dao-AILab/flash-attention");
  EXPECT_EQ(upstream->catalog, "flash-attn-official-wheels.tsv");
  EXPECT_EQ(upstream->url_template,
            "https://github.com/{repository}/releases/download/{tag}/{filename}");
  EXPECT_EQ(upstream->api_url, "{api}/repos/{repository}/releases");
  EXPECT_EQ(upstream->labels, pkg::VariantScheme::upstream);
  EXPECT_EQ(upstream->abi, AbiRule::label);
  EXPECT_TRUE(upstream->enabled_by_default);
  EXPECT_FALSE(upstream->third_party);

  const RecipeSource* community = recipe.source("community");
  ASSERT_NE(community, nullptr);
  EXPECT_EQ(community->repository, "mjun0812/flash-attention-prebuild-wheels");
  EXPECT_EQ(community->catalog, "flash-attn-community-wheels.tsv");
  EXPECT_EQ(community->labels, pkg::VariantScheme::community);
  EXPECT_EQ(community->abi, AbiRule::pytorch_official);
  EXPECT_FALSE(community->enabled_by_default);
  EXPECT_TRUE(community->third_party);
  EXPECT_EQ(recipe.source("cache"), nullptr);
}

TEST(RecipeParse, FlashAttnBuildKnobs) {
  const BuildKnobs build = built_in("flash-attn.toml").build;
  EXPECT_EQ(build.env.at("FLASH_ATTENTION_FORCE_BUILD"), "TRUE");
  EXPECT_EQ(build.arch_variable, "FLASH_ATTN_CUDA_ARCHS");
  EXPECT_EQ(build.arch_separator, ";");
  EXPECT_EQ(build.default_archs, (std::vector<std::string>{"80", "90", "100", "120"}));
  ASSERT_EQ(build.arch_tokens.size(), 4U);
  EXPECT_EQ(build.arch_tokens[0].token, "80");
  EXPECT_EQ(build.arch_tokens[0].max_cc, "8.9");
  EXPECT_FALSE(build.arch_tokens[0].min_nvcc);
  EXPECT_EQ(build.arch_tokens[1].min_nvcc, "11.8");
  EXPECT_EQ(build.arch_tokens[2].max_cc, "10.3");
  EXPECT_EQ(build.arch_tokens[3].min_nvcc, "12.8");
  EXPECT_EQ(build.jobs_variable, "MAX_JOBS");
  EXPECT_EQ(build.threads_variable, "NVCC_THREADS");
  EXPECT_EQ(build.default_threads, 4);
  EXPECT_GE(build.memory_per_thread_gib, 5.0);
  EXPECT_EQ(build.build_requires, (std::vector<std::string>{"torch", "setuptools", "wheel",
                                                            "packaging", "psutil", "ninja"}));
  EXPECT_TRUE(build.needs_cuda);
}

TEST(RecipeParse, OtherBuiltIns) {
  const Recipe conv = built_in("causal-conv1d.toml");
  EXPECT_EQ(conv.name, "causal-conv1d");
  EXPECT_EQ(conv.binary_module, "causal_conv1d_cuda");
  ASSERT_NE(conv.source("upstream"), nullptr);
  EXPECT_EQ(conv.source("upstream")->catalog, "causal-conv1d-official-wheels.tsv");
  EXPECT_EQ(conv.build.env.at("CAUSAL_CONV1D_FORCE_BUILD"), "TRUE");
  EXPECT_EQ(conv.facts_for(v("1.4.0"), "upstream", std::nullopt).cuda_tokens.at(12), "cu122");
  EXPECT_EQ(conv.facts_for(v("1.6.0"), "upstream", std::nullopt).cuda_tokens.at(12), "cu12");
  EXPECT_EQ(conv.facts_for(v("1.5.0.post4"), "upstream", std::nullopt).cuda_tokens.at(12), "cu124");

  // mamba-ssm (the README lists it): its module and build switches from its setup.py.
  const Recipe mamba = built_in("mamba-ssm.toml");
  EXPECT_EQ(mamba.name, "mamba-ssm");
  EXPECT_EQ(mamba.binary_module, "selective_scan_cuda");
  EXPECT_EQ(mamba.import_names, (std::vector<std::string>{"mamba_ssm"}));
  EXPECT_TRUE(mamba.needs_cuda);
  ASSERT_NE(mamba.source("upstream"), nullptr);
  EXPECT_EQ(mamba.source("upstream")->repository, "state-spaces/mamba");
  EXPECT_EQ(mamba.source("upstream")->catalog, "mamba-ssm-official-wheels.tsv");
  EXPECT_EQ(mamba.build.env.at("MAMBA_FORCE_BUILD"), "TRUE");
  EXPECT_EQ(mamba.build.jobs_variable, "MAX_JOBS");
  EXPECT_EQ(mamba.build.default_threads, 4);
  EXPECT_EQ(mamba.facts_for(v("2.2.2"), "upstream", std::nullopt).cuda_tokens.at(12), "cu122");
  EXPECT_EQ(mamba.facts_for(v("2.3.1"), "upstream", std::nullopt).cuda_tokens.at(13), "cu13");
}

// inspect's "a wheel without its compiled module" names come from the recipes,
// FlashAttention-3's included (it was missing from the old hard-coded table).
TEST(RecipeParse, RequiredModulesComeFromTheRecipes) {
  std::vector<std::pair<std::string, std::string>> got;
  for (const binary::RequiredModule& m : required_modules(RecipeBook::built_in()))
    got.emplace_back(m.distribution, m.module);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{
                     {"causal-conv1d", "causal_conv1d_cuda"},
                     {"flash-attn", "flash_attn_2_cuda"},
                     {"flash-attn-3", "flash_attn_3._C"},
                     {"mamba-ssm", "selective_scan_cuda"}}));

  const Recipe fa3 = built_in("flash-attn-3.toml");
  EXPECT_EQ(fa3.name, "flash-attn-3");
  EXPECT_EQ(fa3.binary_module, "flash_attn_3._C");
  ASSERT_EQ(fa3.sources.size(), 1U);
  EXPECT_EQ(fa3.sources[0].name, "community");
  EXPECT_EQ(fa3.sources[0].catalog, "flash-attn-community-wheels.tsv");
  EXPECT_EQ(fa3.build.default_threads, 2);
  const ReleaseFacts facts =
      fa3.facts_for(v("3.0.0+cu128torch2.8gite2743ab"), "community", pkg::CudaVersion{12, 8});
  EXPECT_EQ(arch_strings(facts.gpu_archs), (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_EQ(facts.max_compute_capability, "9.0");
  ASSERT_TRUE(facts.python);
  EXPECT_EQ(facts.python->str(), ">=3.9");
}

TEST(RecipeFacts, CudaTokensFollowSetupPyHistory) {
  const Recipe recipe = built_in("flash-attn.toml");
  auto tokens = [&](const std::string& version) {
    return recipe.facts_for(v(version), "upstream", std::nullopt).cuda_tokens;
  };
  EXPECT_EQ(tokens("2.5.0").at(12), "cu122");
  EXPECT_EQ(tokens("2.6.0.post1").at(12), "cu122");
  EXPECT_EQ(tokens("2.6.3").at(12), "cu123");
  EXPECT_EQ(tokens("2.6.3").at(11), "cu118");
  EXPECT_EQ(tokens("2.6.3+cu123torch2.4cxx11abiFALSE").at(12), "cu123");  // local label ignored
  EXPECT_EQ(tokens("2.7.0").at(11), "cu11");
  EXPECT_EQ(tokens("2.8.3").at(13), "cu12");
  EXPECT_EQ(tokens("2.8.3.post1").at(13), "cu13");
  EXPECT_EQ(tokens("2.8.4.dev0").at(13), "cu13");  // pre-releases are admitted
  EXPECT_TRUE(tokens("2.4.2").empty());
}

TEST(RecipeFacts, ArchsGlibcAndLimitsPerSource) {
  const Recipe recipe = built_in("flash-attn.toml");
  const ReleaseFacts old =
      recipe.facts_for(v("2.7.2"), "upstream", pkg::CudaVersion{12, std::nullopt});
  EXPECT_EQ(arch_strings(old.gpu_archs), (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_FALSE(old.ptx);
  EXPECT_EQ(old.min_glibc, "2.31");
  EXPECT_EQ(old.min_compute_capability, "8.0");
  EXPECT_EQ(old.max_compute_capability, "9.0");

  const ReleaseFacts fixed = recipe.facts_for(v("2.7.4.post1"), "upstream", std::nullopt);
  EXPECT_FALSE(fixed.max_compute_capability);
  EXPECT_EQ(fixed.torch->str(), ">=2.2");
  EXPECT_EQ(recipe.facts_for(v("2.7.4"), "upstream", std::nullopt).torch->str(), ">=2.1");

  const ReleaseFacts new_ones = recipe.facts_for(v("2.8.3"), "upstream", std::nullopt);
  EXPECT_EQ(arch_strings(new_ones.gpu_archs),
            (std::vector<std::string>{"sm_80", "sm_90", "sm_100", "sm_120"}));
  EXPECT_EQ(new_ones.min_glibc, "2.32");
  EXPECT_EQ(recipe.facts_for(v("2.8.0"), "upstream", std::nullopt).min_glibc, "2.31");
  EXPECT_EQ(recipe.facts_for(v("2.8.0.post1"), "upstream", std::nullopt).min_glibc, "2.32");

  const ReleaseFacts community_old =
      recipe.facts_for(v("2.7.2"), "community", pkg::CudaVersion{12, 4});
  EXPECT_EQ(arch_strings(community_old.gpu_archs),
            (std::vector<std::string>{"sm_80", "sm_90@11.8"}));
  EXPECT_FALSE(community_old.min_glibc);
  const ReleaseFacts community_new =
      recipe.facts_for(v("2.8.3"), "community", pkg::CudaVersion{13, 0});
  EXPECT_EQ(arch_strings(community_new.gpu_archs),
            (std::vector<std::string>{"sm_80", "sm_90@11.8", "sm_100@12.8", "sm_120@12.8"}));
  EXPECT_FALSE(community_new.note.empty());
}

TEST(RecipeFacts, PythonRequirementsByVersion) {
  const Recipe recipe = built_in("flash-attn.toml");
  auto python = [&](const std::string& version) {
    return recipe.facts_for(v(version), "upstream", std::nullopt).python->str();
  };
  EXPECT_EQ(python("2.5.8"), ">=3.7");
  EXPECT_EQ(python("2.6.3"), ">=3.8");
  EXPECT_EQ(python("2.7.0.post2"), ">=3.8");
  EXPECT_EQ(python("2.7.1"), ">=3.9");
  EXPECT_EQ(python("2.8.3.post1"), ">=3.9");
}

TEST(RecipeBroken, FalseLabelOfV28WithNewTorch) {
  const Recipe recipe = built_in("flash-attn.toml");
  const std::string bad = "flash_attn-2.8.3+cu12torch2.7cxx11abiFALSE-cp312-cp312-linux_x86_64.whl";
  const KnownBroken* hit =
      recipe.broken(v("2.8.3+cu12torch2.7cxx11abiFALSE"), "upstream", bad, pkg::TorchVersion{2, 7});
  ASSERT_NE(hit, nullptr);
  EXPECT_NE(hit->reason.find("_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_string"),
            std::string::npos);
  EXPECT_EQ(hit->reference, "#1783, #1717; publish.yml");

  EXPECT_NE(
      recipe.broken(v("2.8.3.post1"), "upstream",
                    "flash_attn-2.8.3.post1+cu12torch2.6cxx11abiFALSE-cp311-cp311-linux_x86_64.whl",
                    pkg::TorchVersion{2, 6}),
      nullptr);
  EXPECT_NE(recipe.broken(v("2.8.0"), "upstream",
                          "flash_attn-2.8.0+cu12torch2.6cxx11abiFALSE-cp310-cp310-linux_x86_64.whl",
                          pkg::TorchVersion{2, 6}),
            nullptr);
}

// A known-broken entry's file pattern answers as fnmatch(3) with no flags
// answers, for the shapes the matcher reads itself (no wildcard, "*text*")
// and for every other.
TEST(RecipeBroken, FilePatternsMatchAsFnmatchDoes) {
  const std::vector<std::string> patterns = {"*cxx11abiFALSE*",
                                             "flash_attn-2.8.3-cp312-cp312-linux_x86_64.whl",
                                             "*",
                                             "**",
                                             "*a*b*",
                                             "*cp31?-*",
                                             "*[0-9]abi*",
                                             "\\*x*",
                                             "*x\\**",
                                             "*.whl",
                                             "flash_attn-*",
                                             "*-cp312-*",
                                             "*cxx11abiTRUE*x",
                                             "x*cxx11abiFALSE*",
                                             "*abi*",
                                             "*-*"};
  const std::vector<std::string> names = {
      "flash_attn-2.8.3+cu12torch2.8cxx11abiFALSE-cp312-cp312-linux_x86_64.whl",
      "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl",
      "flash_attn-2.8.3-cp312-cp312-linux_x86_64.whl",
      "*x*",
      "",
      ".hidden-cxx11abiFALSE.whl",
      "a/b-cxx11abiFALSE/c.whl"};
  for (const std::string& pattern : patterns) {
    KnownBroken entry;
    entry.filename_glob = pattern;
    for (const std::string& name : names) {
      EXPECT_EQ(entry.concerns_wheel("upstream", name, std::nullopt),
                ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0)
          << pattern << " against " << name;
    }
  }
}

TEST(RecipeBroken, WhatIsNotBroken) {
  const Recipe recipe = built_in("flash-attn.toml");
  // v2.7.4.post1 built torch 2.6 against +cu124: its FALSE wheel really is ABI=0 (§11).
  EXPECT_EQ(
      recipe.broken(v("2.7.4.post1"), "upstream",
                    "flash_attn-2.7.4.post1+cu12torch2.6cxx11abiFALSE-cp312-cp312-linux_x86_64.whl",
                    pkg::TorchVersion{2, 6}),
      nullptr);
  EXPECT_EQ(recipe.broken(v("2.8.3"), "upstream",
                          "flash_attn-2.8.3+cu12torch2.7cxx11abiTRUE-cp312-cp312-linux_x86_64.whl",
                          pkg::TorchVersion{2, 7}),
            nullptr);
  EXPECT_EQ(recipe.broken(v("2.8.3"), "upstream",
                          "flash_attn-2.8.3+cu12torch2.5cxx11abiFALSE-cp312-cp312-linux_x86_64.whl",
                          pkg::TorchVersion{2, 5}),
            nullptr);
  EXPECT_EQ(recipe.broken(v("2.8.3"), "community",
                          "flash_attn-2.8.3+cu12torch2.7cxx11abiFALSE-cp312-cp312-linux_x86_64.whl",
                          pkg::TorchVersion{2, 7}),
            nullptr);
  // A wheel whose torch is unknown does not match an entry with a torch condition.
  EXPECT_EQ(recipe.broken(v("2.8.3"), "upstream",
                          "flash_attn-2.8.3+cu12torch2.7cxx11abiFALSE-cp312-cp312-linux_x86_64.whl",
                          std::nullopt),
            nullptr);
  EXPECT_EQ(
      recipe.broken(v("2.8.3"), "upstream", std::string("flash_attn-2.8.3+cxx11abiFALSE\0x", 32),
                    pkg::TorchVersion{2, 7}),
      nullptr);
}

TEST(RecipeFacts, MergeRules) {
  const std::string text = std::string(kMinimal) + R"(
[[source]]
name = "other"
repository = "o/r"
url_template = "{filename}"

[[release]]
cuda_tokens = { 11 = "cu118", 12 = "cu122" }
gpu_archs = ["8.0"]
ptx = true
min_glibc = "2.28"
note = "first"

[[release]]
versions = ">=2"
cuda_tokens = { 12 = "cu123" }
min_glibc = "2.31"
note = "second"

[[release]]
versions = ">=3"
gpu_archs = ["9.0@12.3"]

[[release]]
sources = ["other"]
python = ">=3.10"

[[release]]
cuda = ">=12.8"
torch = ">=2.7"
)";
  auto recipe = parse_recipe(text, "merge.toml");
  ASSERT_TRUE(recipe) << util::render(recipe.error());

  const ReleaseFacts two = recipe->facts_for(v("2.0"), "upstream", std::nullopt);
  EXPECT_EQ(two.cuda_tokens.at(11), "cu118");
  EXPECT_EQ(two.cuda_tokens.at(12), "cu123");
  EXPECT_EQ(arch_strings(two.gpu_archs), std::vector<std::string>{"sm_80"});
  EXPECT_TRUE(two.ptx);
  EXPECT_EQ(two.min_glibc, "2.31");
  EXPECT_EQ(two.note, "first; second");
  EXPECT_FALSE(two.python);
  EXPECT_TRUE(two.versions.empty());
  EXPECT_TRUE(two.sources.empty());

  const ReleaseFacts three = recipe->facts_for(v("3.1"), "other", std::nullopt);
  EXPECT_EQ(arch_strings(three.gpu_archs), std::vector<std::string>{"sm_90@12.3"});
  EXPECT_FALSE(three.ptx);  // ptx travels with the gpu_archs list that replaced it
  EXPECT_EQ(three.python->str(), ">=3.10");

  // cuda conditions: a label CUDA without a minor cannot satisfy ">=12.8".
  EXPECT_TRUE(recipe->facts_for(v("1.0"), "upstream", pkg::CudaVersion{12, 8}).torch);
  EXPECT_TRUE(recipe->facts_for(v("1.0"), "upstream", pkg::CudaVersion{13, 0}).torch);
  EXPECT_FALSE(recipe->facts_for(v("1.0"), "upstream", pkg::CudaVersion{12, 4}).torch);
  EXPECT_FALSE(recipe->facts_for(v("1.0"), "upstream", pkg::CudaVersion{12, std::nullopt}).torch);
  EXPECT_FALSE(recipe->facts_for(v("1.0"), "upstream", std::nullopt).torch);
}

TEST(RecipeParse, Defaults) {
  auto recipe = parse_recipe(kMinimal, "min.toml");
  ASSERT_TRUE(recipe) << util::render(recipe.error());
  EXPECT_EQ(recipe->name, "demo");
  ASSERT_EQ(recipe->sources.size(), 1U);
  EXPECT_EQ(recipe->sources[0].labels, pkg::VariantScheme::upstream);
  EXPECT_EQ(recipe->sources[0].abi, AbiRule::label);
  EXPECT_TRUE(recipe->sources[0].enabled_by_default);
  EXPECT_TRUE(recipe->needs_cuda);
  EXPECT_TRUE(recipe->build.needs_cuda);
  EXPECT_EQ(recipe->build.jobs_variable, "MAX_JOBS");
  EXPECT_EQ(recipe->build.default_threads, 1);
  EXPECT_EQ(recipe->build.memory_per_thread_gib, 0);

  auto community = parse_recipe(R"([package]
name = "Demo_Pkg"
needs_cuda = false
[[source]]
name = "c"
repository = "o/r"
url_template = "{filename}"
labels = "community"
)",
                                "c.toml");
  ASSERT_TRUE(community) << util::render(community.error());
  EXPECT_EQ(community->name, "demo-pkg");  // canonical
  EXPECT_EQ(community->sources[0].abi, AbiRule::unknown);
  EXPECT_FALSE(community->build.needs_cuda);  // follows [package] unless [build] says otherwise
}

TEST(RecipeValues, SmallGrammars) {
  EXPECT_EQ(parse_gpu_arch("8.0")->str(), "sm_80");
  EXPECT_EQ(parse_gpu_arch("10.0@12.8")->min_cuda->str(), "12.8");
  for (const char* bad : {"", "8", "8.", ".0", "80", "8.0@", "8.0@12", "8.10", "8.0@12.8@1", "a.b",
                          "0.0", "99999.0", "8.0 "}) {
    EXPECT_FALSE(parse_gpu_arch(bad)) << bad;
  }
  EXPECT_TRUE(is_module_name("flash_attn_3._C"));
  EXPECT_FALSE(is_module_name("flash-attn"));
  EXPECT_FALSE(is_module_name("a..b"));
  EXPECT_TRUE(is_cuda_token("cu118"));
  EXPECT_FALSE(is_cuda_token("cuda12"));
  EXPECT_FALSE(placeholder_problem("https://x/{tag}/{filename}", {"tag", "filename"}, "filename"));
  EXPECT_TRUE(
      placeholder_problem("https://x/{version}/{filename}", {"tag", "filename"}, "filename"));
  EXPECT_TRUE(placeholder_problem("https://x/{tag", {"tag"}, ""));
  EXPECT_TRUE(placeholder_problem("https://x/}", {"tag"}, ""));
  EXPECT_EQ(to_string(AbiRule::pytorch_official), "pytorch-official");
  EXPECT_EQ(parse_abi_rule("pytorch-official"), AbiRule::pytorch_official);
  EXPECT_FALSE(parse_variant_scheme("unknown"));
}

}  // namespace
}  // namespace flashfit::resolve
