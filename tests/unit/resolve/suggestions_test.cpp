// Advice that works when pasted: commands run the judged interpreter's pip
// (a venv when PEP 668 forbids it), keep the flags the answer was computed
// under, a CPU torch hears about the CUDA build of its own version first,
// with no GPU the fallback comes before CUDA torches, and a build is
// `flashfit build SPEC --archs ...`, saying when upstream publishes no wheels.
#include "resolve/suggestions.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "resolve/gather.hpp"
#include "targets.hpp"

namespace flashfit::resolve {
namespace {

using testing::make_target;

const std::vector<Candidate>& catalog(const std::string& package, bool community = false) {
  static std::map<std::string, std::vector<Candidate>> loaded;
  std::string key = package + (community ? "+community" : "");
  auto it = loaded.find(key);
  if (it != loaded.end()) return it->second;
  RecipeBook book = RecipeBook::built_in();
  Config config;
  SourceFlags flags;
  if (community) flags.enable.push_back("community");
  auto plan = plan_sources(book.find(package), config, flags, std::nullopt);
  return loaded[key] = gather(package, book.find(package), *plan, std::nullopt).candidates;
}

std::vector<Suggestion> advice(const std::string& spec, const ResolveTarget& target,
                               const CommandContext& ctx,
                               const std::string& package = "flash-attn") {
  static const RecipeBook book = RecipeBook::built_in();
  Request request{package, {}, spec};
  auto op = spec.find_first_of("=<>");
  if (op != std::string::npos) request.specifier = *pkg::SpecifierSet::parse(spec.substr(op));
  ResolveOptions options;
  options.commands = ctx;
  Resolution r = resolve(request, book.find(package), target, catalog(package), options);
  EXPECT_FALSE(r.selected) << spec;
  return r.suggestions;
}

const Suggestion* first(const std::vector<Suggestion>& all, const std::string& kind) {
  auto it = std::find_if(all.begin(), all.end(),
                         [&](const Suggestion& s) { return to_string(s.kind) == kind; });
  return it == all.end() ? nullptr : &*it;
}

std::size_t position(const std::vector<Suggestion>& all, const std::string& kind) {
  return static_cast<std::size_t>(
      std::find_if(all.begin(), all.end(),
                   [&](const Suggestion& s) { return to_string(s.kind) == kind; }) -
      all.begin());
}

// 2.8.2 has wheels for torch 2.4-2.7 only: torch 2.9 gets a torch suggestion.
const ResolveTarget& torch29() {
  static const ResolveTarget t =
      make_target({.torch = "2.9.1+cu128", .gpus = std::vector<std::string>{"8.0"}});
  return t;
}

TEST(Suggestions, PipIsTheProbedInterpretersOwn) {
  CommandContext ctx;
  ctx.python = "/home/u/my env/bin/python";
  const auto advice_torch = advice("flash-attn==2.8.2", torch29(), ctx);
  const Suggestion* torch = first(advice_torch, "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(*torch->command,
            "'/home/u/my env/bin/python' -m pip install torch==2.7.1+cu128 --index-url "
            "https://download.pytorch.org/whl/cu128");
}

TEST(Suggestions, AnExternallyManagedInterpreterGetsAVenv) {
  CommandContext ctx;
  ctx.python = "/usr/bin/python3";
  ctx.externally_managed = true;
  const auto advice_torch = advice("flash-attn==2.8.2", torch29(), ctx);
  const Suggestion* torch = first(advice_torch, "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(*torch->command,
            "/usr/bin/python3 -m venv --system-site-packages .venv && .venv/bin/python -m pip "
            "install torch==2.7.1+cu128 "
            "--index-url https://download.pytorch.org/whl/cu128");
}

TEST(Suggestions, CommandsKeepTheWhatIfFlags) {
  CommandContext ctx;
  ctx.flags = {{"--python-version", "3.12"}, {"--torch", "2.9.1+cu128"}, {"--gpu", "8.0"}};
  auto all = advice("flash-attn==2.8.2", torch29(), ctx);
  const Suggestion* version = first(all, "version");
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(version->command->rfind("flashfit resolve flash-attn==", 0), 0u) << *version->command;
  EXPECT_NE(version->command->find(" --python-version 3.12 --torch 2.9.1+cu128 --gpu 8.0"),
            std::string::npos)
      << *version->command;
}

// Under what-if flags no command installs into the interpreter: the torch
// suggestion asks the same question with that torch.
TEST(Suggestions, UnderWhatIfTheTorchCommandAsksAgain) {
  CommandContext ctx;
  ctx.python = "/v/bin/python";
  ctx.flags = {{"--python", "/v/bin/python"},
               {"--python-version", "3.12"},
               {"--torch", "2.9.1+cu128"},
               {"--gpu", "8.0"}};
  auto all = advice("flash-attn==2.8.2", torch29(), ctx);
  const Suggestion* torch = first(all, "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(torch->command->rfind("flashfit resolve flash-attn==2.8.2 --torch 2.7.1+cu128", 0), 0u)
      << *torch->command;
  EXPECT_NE(torch->command->find(" --python /v/bin/python --python-version 3.12 --gpu 8.0"),
            std::string::npos)
      << *torch->command;
  EXPECT_EQ(torch->command->find("pip install"), std::string::npos) << *torch->command;
  EXPECT_EQ(torch->command->find("2.9.1+cu128"), std::string::npos) << *torch->command;
}

// Another Python: the same question for it, with this torch (a fresh venv
// would have none, and `.venv` may be the environment judged).
TEST(Suggestions, AnotherPythonIsAskedWithThisTorch) {
  CommandContext ctx;
  ctx.python = "/v/bin/python";
  ctx.flags = {{"--python", "/v/bin/python"}};
  auto target =
      make_target({.python = "3.8", .torch = "2.4.0+cu121", .cuda = "12.1", .abi = false});
  auto all = advice("flash-attn==2.7.4.post1", target, ctx);
  const Suggestion* python = first(all, "python");
  ASSERT_NE(python, nullptr);
  EXPECT_EQ(
      python->command->rfind("flashfit resolve flash-attn==2.7.4.post1 --python-version 3.", 0), 0u)
      << *python->command;
  EXPECT_NE(python->command->find(" --python /v/bin/python"), std::string::npos)
      << *python->command;
  EXPECT_EQ(python->command->find("venv"), std::string::npos) << *python->command;
}

TEST(Suggestions, ACpuTorchHearsOfItsOwnVersionsCudaBuildFirst) {
  auto target =
      make_target({.torch = "2.9.1+cpu", .cuda = "none", .gpus = std::vector<std::string>{"8.9"}});
  auto all = advice("flash-attn", target, {});
  const Suggestion* torch = first(all, "torch");
  ASSERT_NE(torch, nullptr);
  // Pinned with its label: the installed 2.9.1+cpu satisfies a bare ==2.9.1.
  EXPECT_NE(
      torch->command->find("torch==2.9.1+cu128 --index-url https://download.pytorch.org/whl/cu128"),
      std::string::npos)
      << *torch->command;
  EXPECT_NE(torch->message.find("the CUDA build of torch 2.9.1"), std::string::npos)
      << torch->message;
}

// A pre-release or nightly torch is not on download.pytorch.org's CUDA
// indexes: the suggestion names its minor's release instead.
TEST(Suggestions, APreReleaseTorchHearsOfItsMinorsRelease) {
  auto target = make_target(
      {.torch = "2.9.0a0+git1234", .cuda = "none", .gpus = std::vector<std::string>{"8.9"}});
  auto all = advice("flash-attn", target, {});
  const Suggestion* torch = first(all, "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_NE(torch->command->find("torch==2.9.1+cu"), std::string::npos) << *torch->command;
  EXPECT_EQ(torch->command->find("2.9.0a0"), std::string::npos) << *torch->command;
}

// The fallback names SDPA only for a torch that has it (2.0 and newer).
TEST(Suggestions, TheFallbackSaysTorch1HasNoSdpa) {
  auto old_torch =
      make_target({.torch = "1.13.1+cpu", .cuda = "none", .gpus = std::vector<std::string>{}});
  const auto old_advice = advice("flash-attn", old_torch, {});
  const Suggestion* old_fallback = first(old_advice, "fallback");
  ASSERT_NE(old_fallback, nullptr);
  EXPECT_NE(old_fallback->message.find("torch 1.13.1 has no "
                                       "torch.nn.functional.scaled_dot_product_attention"),
            std::string::npos)
      << old_fallback->message;
  EXPECT_EQ(old_fallback->command, std::optional<std::string>("flashfit fallback"));
  auto new_torch =
      make_target({.torch = "2.9.1+cpu", .cuda = "none", .gpus = std::vector<std::string>{}});
  const auto new_advice = advice("flash-attn", new_torch, {});
  const Suggestion* new_fallback = first(new_advice, "fallback");
  ASSERT_NE(new_fallback, nullptr);
  EXPECT_NE(
      new_fallback->message.find("use torch.nn.functional.scaled_dot_product_attention instead"),
      std::string::npos)
      << new_fallback->message;
}

TEST(Suggestions, WithNoGpuTheFallbackComesBeforeCudaTorches) {
  auto target =
      make_target({.torch = "2.9.1+cpu", .cuda = "none", .gpus = std::vector<std::string>{}});
  auto all = advice("flash-attn", target, {});
  ASSERT_NE(first(all, "fallback"), nullptr);
  ASSERT_NE(first(all, "torch"), nullptr);
  EXPECT_LT(position(all, "fallback"), position(all, "torch"));
  EXPECT_EQ(first(all, "build"), nullptr);
}

TEST(Suggestions, TheBuildIsFlashfitBuildWithTheArchs) {
  CommandContext ctx;
  ctx.flags = {{"--python", "/v/bin/python"}, {"--torch", "2.9.1+cu128"}};
  auto target = make_target(
      {.python = "3.11", .torch = "2.9.1+cu128", .gpus = std::vector<std::string>{"8.9"}});
  const auto advice_build = advice("flash-attn", target, ctx);
  const Suggestion* build = first(advice_build, "build");
  ASSERT_NE(build, nullptr);
  // The what-if flags stay: under them build plans for the environment
  // described, instead of building for the interpreter.
  EXPECT_EQ(*build->command,
            "flashfit build flash-attn --archs 80 --python /v/bin/python --torch 2.9.1+cu128");
  EXPECT_NE(build->message.find("arch 80"), std::string::npos) << build->message;
}

TEST(Suggestions, ABuildOfAPackageWithoutUpstreamWheelsSaysSo) {
  // FlashAttention-3: only community builds exist, off by default; an H100 with torch 2.9.
  auto target = make_target({.torch = "2.9.1+cu128", .gpus = std::vector<std::string>{"9.0"}});
  const auto advice_build = advice("flash-attn-3", target, {}, "flash-attn-3");
  const Suggestion* build = first(advice_build, "build");
  ASSERT_NE(build, nullptr);
  EXPECT_NE(build->message.find("authors publish no wheels"), std::string::npos) << build->message;
  EXPECT_EQ(build->command->rfind("flashfit build flash-attn-3", 0), 0u) << *build->command;
}

// FlashAttention-3's kernels are sm_80 and sm_90a: no build serves a
// Blackwell GPU (12.0), so the fallback is offered, not a build.
TEST(Suggestions, AGpuAboveEveryReleasesRangeGetsTheFallbackNotABuild) {
  auto target = make_target({.torch = "2.9.1+cu128", .gpus = std::vector<std::string>{"12.0"}});
  const auto all = advice("flash-attn-3", target, {}, "flash-attn-3");
  EXPECT_EQ(first(all, "build"), nullptr);
  const Suggestion* fallback = first(all, "fallback");
  ASSERT_NE(fallback, nullptr);
  EXPECT_NE(fallback->message.find("runs on compute capability 8.0 to 9.0"), std::string::npos)
      << fallback->message;
  // flash-attn 2.7.3 and newer have no maximum: a build is still the answer there.
  const auto fa2 = advice("flash-attn==2.8.2", target, {});
  EXPECT_NE(first(fa2, "build"), nullptr);
  EXPECT_EQ(first(fa2, "fallback"), nullptr);
}

TEST(Suggestions, ShellQuoting) {
  EXPECT_EQ(shell_quote("flash-attn"), "flash-attn");
  EXPECT_EQ(shell_quote("flash-attn>=2.6,<2.8"), "'flash-attn>=2.6,<2.8'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
}

}  // namespace
}  // namespace flashfit::resolve
