// Unknown facts never give a silent pick: a candidate whose fit rests on a
// fact that is not known (torch's ABI or CUDA, the GPUs, glibc, no
// interpreter) is uncertain, ranked after every certain fit, and carries the
// assumption and the flag that removes the doubt. And the torch rules apply
// only to torch extensions: a pure or non-torch wheel fits without torch.
#include <gtest/gtest.h>

#include <algorithm>

#include "resolve/gather.hpp"
#include "resolve/resolver.hpp"
#include "targets.hpp"

namespace flashfit::resolve {
namespace {

using testing::make_target;

Candidate wheel(const std::string& filename) {
  return testing::wheel_from(filename, "find-links", SourceRole::find_links);
}

bool assumes(const Judged& j, const std::string& fact) {
  return std::any_of(j.assumptions.begin(), j.assumptions.end(),
                     [&](const Assumption& a) { return a.fact == fact; });
}

std::vector<Candidate> flash_attn_catalog() {
  RecipeBook book = RecipeBook::built_in();
  Config config;
  auto plan = plan_sources(book.find("flash-attn"), config, SourceFlags{}, std::nullopt);
  return gather("flash-attn", book.find("flash-attn"), *plan, std::nullopt).candidates;
}

TEST(Uncertain, AnUnknownAbiGivesAnUncertainPickWithTheFlag) {
  RecipeBook book = RecipeBook::built_in();
  // A source build of torch: its ABI cannot be derived, and was not given.
  auto target = make_target({.python = "3.12",
                             .torch = "2.6.0+git1a2b3c4",
                             .cuda = "12.4",
                             .abi = std::nullopt,
                             .gpus = std::vector<std::string>{"8.0"}});
  Resolution r = resolve(Request{"flash-attn", {}, "flash-attn"}, book.find("flash-attn"), target,
                         flash_attn_catalog());
  ASSERT_TRUE(r.selected);
  const Judged& pick = r.candidates[*r.selected];
  EXPECT_FALSE(pick.certain());
  EXPECT_TRUE(pick.compatible());
  ASSERT_TRUE(assumes(pick, "cxx11-abi"));
  const Assumption& a = pick.assumptions.front();
  EXPECT_EQ(a.flag, "--cxx11-abi TRUE|FALSE");
  EXPECT_NE(a.message.find("C++11 ABI"), std::string::npos) << a.message;
  EXPECT_EQ(r.certain_count(), 0u);
  EXPECT_GT(r.compatible_count(), 0u);
}

TEST(Uncertain, UnreadableGpusAreAnAssumption) {
  RecipeBook book = RecipeBook::built_in();
  auto target = make_target({.gpus = std::nullopt});
  Resolution r = resolve(Request{"flash-attn", {}, "flash-attn"}, book.find("flash-attn"), target,
                         flash_attn_catalog());
  ASSERT_TRUE(r.selected);
  EXPECT_TRUE(assumes(r.candidates[*r.selected], "gpu"));
  EXPECT_EQ(r.candidates[*r.selected].assumptions.front().flag, "--gpu X.Y");
}

TEST(Uncertain, ACertainFitWinsOverANewerUncertainOne) {
  // torch's ABI unknown: the labelled wheel rests on it; the pure one does not
  // (no recipe, no torch label: not a torch extension).
  auto target = make_target({.torch = "2.6.0+git1a2b3c4", .cuda = "12.4", .abi = std::nullopt});
  std::vector<Candidate> candidates = {
      wheel("foo-2.0+cu12torch2.6cxx11abiTRUE-cp312-cp312-linux_x86_64.whl"),
      wheel("foo-1.0-py3-none-any.whl")};
  Resolution r = resolve(Request{"foo", {}, "foo"}, nullptr, target, candidates);
  ASSERT_TRUE(r.selected);
  EXPECT_EQ(r.candidates[*r.selected].candidate->filename, "foo-1.0-py3-none-any.whl");
  EXPECT_TRUE(r.candidates[*r.selected].certain());
  ASSERT_EQ(r.candidates.size(), 2u);
  EXPECT_TRUE(r.candidates[1].compatible());
  EXPECT_FALSE(r.candidates[1].certain());
  EXPECT_TRUE(assumes(r.candidates[1], "cxx11-abi"));
}

TEST(Uncertain, KnownFactsLeaveNoAssumption) {
  RecipeBook book = RecipeBook::built_in();
  Resolution r = resolve(Request{"flash-attn", {}, "flash-attn"}, book.find("flash-attn"),
                         make_target({}), flash_attn_catalog());
  ASSERT_TRUE(r.selected);
  EXPECT_TRUE(r.candidates[*r.selected].certain());
}

TEST(Uncertain, NoInterpreterMeansTheTagsAreAssumed) {
  auto target = make_target({});
  target.tags.reset();
  Resolution r = resolve(Request{"foo", {}, "foo"}, nullptr, target,
                         {wheel("foo-1.0-cp312-cp312-manylinux_2_17_x86_64.whl")});
  ASSERT_TRUE(r.selected);
  EXPECT_TRUE(assumes(r.candidates[0], "python"));
}

TEST(TorchFree, APureOrNonTorchWheelFitsWithoutTorch) {
  auto target = make_target({.torch = std::nullopt});
  std::vector<Candidate> candidates = {wheel("foo-1.0-py3-none-any.whl"),
                                       wheel("bar-1.0-cp312-cp312-manylinux_2_17_x86_64.whl")};
  for (const char* name : {"foo", "bar"}) {
    Resolution r = resolve(Request{name, {}, name}, nullptr, target, candidates);
    ASSERT_TRUE(r.selected) << name;
    EXPECT_TRUE(r.candidates[*r.selected].certain()) << name;
  }
}

TEST(TorchFree, ATorchLabelledWheelStillNeedsTorch) {
  auto target = make_target({.torch = std::nullopt});
  Resolution r = resolve(Request{"foo", {}, "foo"}, nullptr, target,
                         {wheel("foo-1.0+cu12torch2.6cxx11abiTRUE-cp312-cp312-linux_x86_64.whl")});
  EXPECT_FALSE(r.selected);
  ASSERT_EQ(r.candidates.size(), 1u);
  EXPECT_TRUE(r.candidates[0].has(ReasonCode::torch));
}

TEST(TorchFree, ARecipesPackageStillNeedsTorch) {
  RecipeBook book = RecipeBook::built_in();
  auto target = make_target({.torch = std::nullopt});
  Resolution r = resolve(Request{"flash-attn", {}, "flash-attn"}, book.find("flash-attn"), target,
                         {wheel("flash_attn-2.8.3-cp312-cp312-linux_x86_64.whl")});
  EXPECT_FALSE(r.selected);
  EXPECT_TRUE(r.candidates[0].has(ReasonCode::torch));
}

}  // namespace
}  // namespace flashfit::resolve
