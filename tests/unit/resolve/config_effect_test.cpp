// resolve/config_effect: which config setting changed the answer, on the real
// built-in flash-attn catalogs (gathered once, judged again per setting).
#include "resolve/config_effect.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "targets.hpp"

namespace flashfit::resolve {
namespace {

using ::testing::HasSubstr;
using testing::make_target;
using testing::TargetSpec;

struct World {
  RecipeBook book = RecipeBook::built_in();
  const Recipe* recipe = book.find("flash-attn");
  std::vector<Candidate> candidates;
  Request request{"flash-attn", {}, "flash-attn"};
  World() {
    Config everything;  // community enabled, so its wheels are gathered too
    everything.enable = {"community"};
    auto plan = plan_sources(recipe, everything, SourceFlags{}, std::nullopt);
    candidates = gather("flash-attn", recipe, *plan, std::nullopt).candidates;
  }
  std::vector<ConfigEffect> effects(const Config& config, const TargetSpec& spec,
                                    const SourceFlags& flags = {}) const {
    return config_effects(request, recipe, make_target(spec), config, flags, std::nullopt,
                          candidates);
  }
};

const World& world() {
  static const World w;
  return w;
}

Config file_config() {
  Config c;
  c.path = "/home/u/.config/flashfit/config.toml";
  return c;
}

TEST(ConfigEffect, NoFileNoEffects) {
  Config c;  // no file, even with settings (they came from nowhere the user can edit)
  c.enable = {"community"};
  EXPECT_TRUE(world().effects(c, TargetSpec{}).empty());
}

TEST(ConfigEffect, EnablingTheOnlySourceThatFitsMadeAWheelFit) {
  Config c = file_config();
  c.enable = {"community"};
  TargetSpec cp311;
  cp311.python = "3.11";  // upstream has no cp311 wheel for torch 2.9 (#2212)
  auto effects = world().effects(c, cp311);
  ASSERT_EQ(effects.size(), 1u);
  EXPECT_EQ(effects[0].file, "/home/u/.config/flashfit/config.toml");
  EXPECT_EQ(effects[0].setting, "[sources] enable = \"community\"");
  EXPECT_THAT(effects[0].effect, HasSubstr("without it none would"));
}

TEST(ConfigEffect, AFlagThatOverridesTheSettingLeavesItWithoutEffect) {
  Config c = file_config();
  c.enable = {"community"};
  TargetSpec cp311;
  cp311.python = "3.11";
  SourceFlags flags;
  flags.disable = {"community"};
  EXPECT_TRUE(world().effects(c, cp311, flags).empty());
}

TEST(ConfigEffect, PriorityThatChangesThePickIsNamed) {
  Config c = file_config();
  c.enable = {"community"};
  c.priority = {"community", "cache", "index", "upstream"};
  auto effects = world().effects(c, TargetSpec{});
  bool named = false;
  for (const ConfigEffect& e : effects) {
    if (e.setting.rfind("[sources] priority", 0) == 0) {
      named = true;
      EXPECT_THAT(e.effect, HasSubstr("(from upstream) would be selected"));
    }
  }
  EXPECT_TRUE(named);
}

TEST(ConfigEffect, ASettingWithoutEffectIsNotNamed) {
  Config c = file_config();
  c.disable = {"community"};  // off by default already
  EXPECT_TRUE(world().effects(c, TargetSpec{}).empty());
}

}  // namespace
}  // namespace flashfit::resolve
