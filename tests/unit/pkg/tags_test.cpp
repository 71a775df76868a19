#include "pkg/tags.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "pkg/tag.hpp"
#include "util/strings.hpp"

namespace flashfit::pkg {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::Optional;

// Debian 12's /usr/bin/python3 as the probe would see it.
InterpreterTagFacts cpython(int major, int minor) {
  InterpreterTagFacts facts;
  facts.implementation = "cpython";
  facts.python_major = major;
  facts.python_minor = minor;
  facts.py_version_nodot = std::to_string(major) + std::to_string(minor);
  facts.py_debug = false;
  facts.with_pymalloc = true;
  facts.soabi = "cpython-" + *facts.py_version_nodot + "-x86_64-linux-gnu";
  facts.system = "Linux";
  facts.platform = "linux-x86_64";
  facts.glibc = LibcVersion{2, 36};
  return facts;
}

InterpreterTagFacts pypy39() {
  auto facts = cpython(3, 9);
  facts.implementation = "pypy";
  facts.soabi = "pypy39-pp73";
  facts.py_debug.reset();
  return facts;
}

std::vector<std::string> strs(const std::vector<Tag>& tags) {
  std::vector<std::string> out;
  out.reserve(tags.size());
  for (const auto& tag : tags) out.push_back(tag.str());
  return out;
}

// The platform part of the first `count` tags: the platform list itself,
// since the first (interpreter, abi) pair is crossed with all of it.
std::vector<std::string> platforms_of(const InterpreterTagFacts& facts) {
  const auto tags = supported_tags(facts);
  std::vector<std::string> out;
  for (const auto& tag : tags) {
    if (tag.interpreter != tags.front().interpreter || tag.abi != tags.front().abi) break;
    out.push_back(tag.platform);
  }
  return out;
}

std::optional<std::size_t> rank_of(const SupportedTags& supported, const std::string& tag_set) {
  const auto parsed = parse_tag_set(tag_set);
  EXPECT_TRUE(parsed.has_value()) << tag_set;
  return supported.best_rank(parsed.value_or(std::vector<Tag>{}));
}

TEST(TagSet, ExpansionIsBounded) {
  // Each field multiplies the others: a hostile WHEEL Tag line of dots would
  // be millions of tags (found by the dist_info fuzzer). 16 x 64 x 64 is read,
  // 17 x 64 x 64 is an input error naming the count.
  const auto names = [](int n, const char* stem) {
    std::string out;
    for (int i = 0; i < n; ++i) out += (i ? "." : "") + std::string(stem) + std::to_string(i);
    return out;
  };
  const auto read = parse_tag_set(names(16, "py") + "-" + names(64, "a") + "-" + names(64, "p"));
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->size(), kMaxExpandedTags);
  const auto refused = parse_tag_set(names(17, "py") + "-" + names(64, "a") + "-" + names(64, "p"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, util::ErrorKind::input);
  EXPECT_NE(refused.error().message.find("more than 65536 tags (17 x 64 x 64)"), std::string::npos)
      << refused.error().message;
  // Each field is bounded before any product is taken (three fields of 2^22
  // names each would wrap a size_t product round to 0).
  const auto wide = parse_tag_set(names(65537, "") + "-none-any");
  ASSERT_FALSE(wide);
  EXPECT_NE(wide.error().message.find("(65537 x 1 x 1)"), std::string::npos)
      << wide.error().message;
}

TEST(TagSet, ExpandsLowerCasedSortedAndUniqueAsEveryTagExpandedAndSorted) {
  // The fields are sorted and deduplicated before their product is taken, so
  // the product must come out exactly as expanding every tag and sorting would
  // give it: mixed case, duplicates in each field, fields out of order, an
  // empty item, and a field whose lower-cased items collide.
  for (const std::string text :
       {"py3.py2-none-any",
        "CP312.cp311.cp312-CP312.abi3.abi3-LINUX_X86_64.manylinux_2_17_x86_64.linux_x86_64",
        "b.a.B.A-z.y.Z-.q.Q.", "py3-none-any", "x..x-..-.."}) {
    const auto fields = util::split(text, '-');
    std::vector<Tag> want;
    for (const auto interpreter : util::split(fields[0], '.')) {
      for (const auto abi : util::split(fields[1], '.')) {
        for (const auto platform : util::split(fields[2], '.')) {
          want.push_back(Tag{util::ascii_lower(interpreter), util::ascii_lower(abi),
                             util::ascii_lower(platform)});
        }
      }
    }
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    const auto parsed = parse_tag_set(text);
    ASSERT_TRUE(parsed) << text << ": " << parsed.error().message;
    EXPECT_EQ(strs(*parsed), strs(want)) << text;
  }
}

TEST(SupportedTags, Cpython311Glibc236MatchesPackagingSysTags) {
  const auto tags = strs(supported_tags(cpython(3, 11), TagRules::packaging_21_3_sys_tags));
  ASSERT_EQ(tags.size(), 913U);
  std::vector<std::string> first;
  for (int minor = 36; minor >= 5; --minor) {
    first.push_back("cp311-cp311-manylinux_2_" + std::to_string(minor) + "_x86_64");
    if (minor == 17) first.emplace_back("cp311-cp311-manylinux2014_x86_64");
    if (minor == 12) first.emplace_back("cp311-cp311-manylinux2010_x86_64");
    if (minor == 5) first.emplace_back("cp311-cp311-manylinux1_x86_64");
  }
  first.emplace_back("cp311-cp311-linux_x86_64");
  for (int minor = 36; minor >= 33; --minor) {
    first.push_back("cp311-abi3-manylinux_2_" + std::to_string(minor) + "_x86_64");
  }
  ASSERT_EQ(first.size(), 40U);
  EXPECT_THAT(std::vector<std::string>(tags.begin(), tags.begin() + 40), ElementsAreArray(first));
  EXPECT_EQ(tags[19], "cp311-cp311-manylinux_2_17_x86_64");
  EXPECT_EQ(tags[20], "cp311-cp311-manylinux2014_x86_64");
  EXPECT_EQ(tags[72], "cp311-none-manylinux_2_36_x86_64");
  EXPECT_EQ(tags[108], "cp310-abi3-manylinux_2_36_x86_64");
  EXPECT_EQ(tags[432], "py311-none-manylinux_2_36_x86_64");
  EXPECT_EQ(tags[900], "py311-none-any");
  EXPECT_EQ(tags[901], "py3-none-any");
  EXPECT_THAT(std::vector<std::string>(tags.end() - 3, tags.end()),
              ElementsAre("py32-none-any", "py31-none-any", "py30-none-any"));
  EXPECT_EQ(std::count(tags.begin(), tags.end(), "cp311-none-any"), 0);
}

// Intended: pip ranks against get_supported(), which adds `cp311-none-any`.
TEST(SupportedTags, PipRulesAddInterpreterNoneAny) {
  const auto sys_tags = strs(supported_tags(cpython(3, 11), TagRules::packaging_21_3_sys_tags));
  const auto pip = strs(supported_tags(cpython(3, 11)));
  ASSERT_EQ(pip.size(), 914U);
  EXPECT_EQ(pip[900], "cp311-none-any");
  EXPECT_EQ(pip[901], "py311-none-any");
  auto without = pip;
  without.erase(without.begin() + 900);
  EXPECT_EQ(without, sys_tags);
}

TEST(SupportedTags, DebugBuildListsDebugAbiThenReleaseAbi) {
  auto facts = cpython(3, 11);
  facts.py_debug = true;
  const auto tags = strs(supported_tags(facts));
  ASSERT_EQ(tags.size(), 914U + 36U);
  EXPECT_EQ(tags[0], "cp311-cp311d-manylinux_2_36_x86_64");
  EXPECT_EQ(tags[35], "cp311-cp311d-linux_x86_64");
  EXPECT_EQ(tags[36], "cp311-cp311-manylinux_2_36_x86_64");
  EXPECT_EQ(tags[72], "cp311-abi3-manylinux_2_36_x86_64");
}

TEST(SupportedTags, DebugFlagFallsBackOnlyWhenPyDebugIsUnset) {
  auto facts = cpython(3, 11);
  facts.has_gettotalrefcount = true;
  EXPECT_EQ(supported_tags(facts).front().abi, "cp311");  // Py_DEBUG=0 wins
  facts.py_debug.reset();
  EXPECT_EQ(supported_tags(facts).front().abi, "cp311d");
  facts.has_gettotalrefcount = false;
  facts.has_d_pyd_suffix = true;  // Windows debug builds
  EXPECT_EQ(supported_tags(facts).front().abi, "cp311d");
}

TEST(SupportedTags, Python37UsesPymallocAbi) {
  auto facts = cpython(3, 7);
  const auto tags = strs(supported_tags(facts));
  EXPECT_EQ(tags[0], "cp37-cp37m-manylinux_2_36_x86_64");
  EXPECT_EQ(tags[36], "cp37-abi3-manylinux_2_36_x86_64");
  // 36 x (cp37m, abi3, none, cp36..cp32 abi3) + 36 x 9 py + cp37 + 9 any.
  EXPECT_EQ(tags.size(), std::size_t{36} * 8 + std::size_t{36} * 9 + 1 + 9);
  facts.py_debug = true;  // before 3.8 a debug build has one ABI only
  EXPECT_EQ(supported_tags(facts)[0].abi, "cp37dm");
  EXPECT_EQ(supported_tags(facts)[36].abi, "abi3");
  facts.py_debug = false;
  facts.with_pymalloc = false;
  EXPECT_EQ(supported_tags(facts)[0].abi, "cp37");
  facts.with_pymalloc.reset();
  EXPECT_EQ(supported_tags(facts)[0].abi, "cp37m");
  EXPECT_EQ(supported_tags(cpython(3, 8))[0].abi, "cp38");
}

TEST(SupportedTags, OldPythonsUseUcs4FlagAndNoAbi3BeforeThreeTwo) {
  auto facts = cpython(3, 2);
  facts.py_unicode_size = 4;
  EXPECT_EQ(supported_tags(facts)[0].abi, "cp32mu");
  facts.py_unicode_size = 2;
  EXPECT_EQ(supported_tags(facts)[0].abi, "cp32m");
  facts.py_unicode_size.reset();
  facts.max_unicode_is_ucs4 = false;
  EXPECT_EQ(supported_tags(facts)[0].abi, "cp32m");
  const auto py31 = supported_tags(cpython(3, 1));
  EXPECT_TRUE(std::none_of(py31.begin(), py31.end(), [](const Tag& t) { return t.abi == "abi3"; }));
}

TEST(SupportedTags, PypyUsesSoabiAndItsOwnNoneAnyTag) {
  const auto pip = strs(supported_tags(pypy39()));
  const auto sys_tags = strs(supported_tags(pypy39(), TagRules::packaging_21_3_sys_tags));
  // 36 x (pypy39_pp73, none) + 36 x 11 py + 1 + 11 any
  ASSERT_EQ(pip.size(), 480U);
  ASSERT_EQ(sys_tags.size(), 480U);
  EXPECT_EQ(pip[0], "pp39-pypy39_pp73-manylinux_2_36_x86_64");
  EXPECT_EQ(pip[36], "pp39-none-manylinux_2_36_x86_64");
  EXPECT_EQ(pip[72], "py39-none-manylinux_2_36_x86_64");
  EXPECT_EQ(pip[468], "pp39-none-any");
  EXPECT_EQ(sys_tags[468], "pp3-none-any");
  EXPECT_EQ(pip[469], "py39-none-any");
}

TEST(SupportedTags, MuslLinuxListsMusllinuxThenLinux) {
  auto facts = cpython(3, 12);
  facts.glibc.reset();
  facts.musl = LibcVersion{1, 2};
  EXPECT_THAT(platforms_of(facts), ElementsAre("musllinux_1_2_x86_64", "musllinux_1_1_x86_64",
                                               "musllinux_1_0_x86_64", "linux_x86_64"));
}

TEST(SupportedTags, Aarch64StartsAtManylinux2014) {
  auto facts = cpython(3, 11);
  facts.platform = "linux-aarch64";
  const auto platforms = platforms_of(facts);
  ASSERT_EQ(platforms.size(), 20U + 1 + 1);  // 2.36 .. 2.17, manylinux2014, linux
  EXPECT_EQ(platforms.front(), "manylinux_2_36_aarch64");
  EXPECT_EQ(platforms[19], "manylinux_2_17_aarch64");
  EXPECT_EQ(platforms[20], "manylinux2014_aarch64");
  EXPECT_EQ(platforms[21], "linux_aarch64");
  facts.glibc = LibcVersion{2, 16};
  EXPECT_THAT(platforms_of(facts), ElementsAre("linux_aarch64"));
}

TEST(SupportedTags, ThirtyTwoBitInterpreterOnSixtyFourBitKernel) {
  auto facts = cpython(3, 11);
  facts.is_32bit = true;
  facts.executable_is_i686 = true;
  auto platforms = platforms_of(facts);
  EXPECT_EQ(platforms.front(), "manylinux_2_36_i686");
  EXPECT_EQ(platforms.back(), "linux_i686");
  EXPECT_EQ(platforms.size(), 36U);
  facts.executable_is_i686 = false;  // not a 32-bit x86 ELF: no manylinux at all
  EXPECT_THAT(platforms_of(facts), ElementsAre("linux_i686"));

  facts.platform = "linux-aarch64";
  EXPECT_THAT(platforms_of(facts), ElementsAre("linux_armv7l"));
  facts.executable_is_armhf = true;
  platforms = platforms_of(facts);
  EXPECT_EQ(platforms.front(), "manylinux_2_36_armv7l");
  EXPECT_EQ(platforms.size(), 22U);
}

TEST(SupportedTags, GlibcEdges) {
  auto facts = cpython(3, 11);
  facts.glibc = LibcVersion{2, 5};
  EXPECT_THAT(platforms_of(facts),
              ElementsAre("manylinux_2_5_x86_64", "manylinux1_x86_64", "linux_x86_64"));
  facts.glibc = LibcVersion{2, 4};
  EXPECT_THAT(platforms_of(facts), ElementsAre("linux_x86_64"));
  facts.glibc.reset();
  EXPECT_THAT(platforms_of(facts), ElementsAre("linux_x86_64"));
  // A future glibc 3.x: packaging assumes glibc 2 ended at 2.50.
  facts.glibc = LibcVersion{3, 1};
  const auto platforms = platforms_of(facts);
  EXPECT_THAT(std::vector<std::string>(platforms.begin(), platforms.begin() + 3),
              ElementsAre("manylinux_3_1_x86_64", "manylinux_3_0_x86_64", "manylinux_2_50_x86_64"));
}

TEST(SupportedTags, ManylinuxModuleVetoRemovesBothNames) {
  auto facts = cpython(3, 11);
  facts.manylinux_vetoed = {LibcVersion{2, 17}, LibcVersion{2, 5}};
  const auto platforms = platforms_of(facts);
  EXPECT_EQ(platforms.size(), 32U);
  for (const char* gone : {"manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux_2_5_x86_64",
                           "manylinux1_x86_64"}) {
    EXPECT_EQ(std::count(platforms.begin(), platforms.end(), gone), 0) << gone;
  }
}

TEST(SupportedTags, WindowsUsesTheNormalisedSysconfigPlatform) {
  auto facts = cpython(3, 11);
  facts.system = "Windows";
  facts.platform = "win-amd64";
  const auto tags = strs(supported_tags(facts, TagRules::packaging_21_3_sys_tags));
  ASSERT_EQ(tags.size(), 12U + 13 + 13);
  EXPECT_EQ(tags.front(), "cp311-cp311-win_amd64");
  EXPECT_EQ(tags.back(), "py30-none-any");
}

// Intended difference from packaging 21.3, which knows nothing of
// free-threading: it would answer cp313-cp313-* and cp313-abi3-* for a 3.13t
// interpreter, which cannot load either. Free-threaded wheels are tagged
// cp313-cp313t (as packaging >= 24.0 lists them), and abi3 does not apply.
TEST(SupportedTags, FreeThreadedIsIntendedDifferenceFromPackaging213) {
  auto facts = cpython(3, 13);
  facts.gil_disabled = true;
  const auto tags = strs(supported_tags(facts));
  // What packaging 21.3 would say instead:
  const auto gil = strs(supported_tags(cpython(3, 13)));
  EXPECT_EQ(gil[0], "cp313-cp313-manylinux_2_36_x86_64");
  EXPECT_EQ(gil[36], "cp313-abi3-manylinux_2_36_x86_64");
  // What flashfit says:
  EXPECT_EQ(tags[0], "cp313-cp313t-manylinux_2_36_x86_64");
  EXPECT_EQ(tags[36], "cp313-none-manylinux_2_36_x86_64");
  EXPECT_TRUE(std::none_of(tags.begin(), tags.end(), [](const std::string& t) {
    return t.find("-abi3-") != std::string::npos;
  }));
  EXPECT_TRUE(std::none_of(tags.begin(), tags.end(), [](const std::string& t) {
    return t.find("-cp313-") != std::string::npos;
  }));
  // 36 x (cp313t, none) + 36 x 15 py + cp313 + 15 any
  EXPECT_EQ(tags.size(), std::size_t{36} * 2 + std::size_t{36} * 15 + 1 + 15);
  EXPECT_EQ(tags.size(), gil.size() - std::size_t{36} * 12);
  facts.py_debug = true;
  const auto debug = supported_tags(facts);
  EXPECT_EQ(debug[0].abi, "cp313td");
  EXPECT_EQ(debug[36].abi, "cp313t");
  // Before 3.13 the flag does not exist for packaging and is ignored.
  auto older = cpython(3, 12);
  older.gil_disabled = true;
  EXPECT_EQ(strs(supported_tags(older)), strs(supported_tags(cpython(3, 12))));
}

TEST(SupportedTagsBestRank, FlashAttnWheelNames) {
  const SupportedTags supported(supported_tags(cpython(3, 11)));
  ASSERT_EQ(supported.size(), 914U);
  EXPECT_THAT(rank_of(supported, "cp311-cp311-linux_x86_64"), Optional(35U));
  EXPECT_THAT(rank_of(supported, "cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64"),
              Optional(8U));
  EXPECT_THAT(
      rank_of(supported,
              "cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.manylinux_2_28_x86_64"),
      Optional(8U));
  EXPECT_THAT(rank_of(supported, "cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64"),
              Optional(19U));
  // abi3 from 3.9: after cp311-{cp311,abi3,none} and cp310-abi3, 36 each.
  EXPECT_THAT(rank_of(supported, "cp39-abi3-manylinux_2_24_x86_64.manylinux_2_28_x86_64"),
              Optional(144U + 8));
  EXPECT_THAT(rank_of(supported, "cp39-abi3-linux_x86_64"), Optional(144U + 35));
  EXPECT_THAT(rank_of(supported, "py3-none-any"), Optional(902U));
  EXPECT_THAT(rank_of(supported, "py2.py3-none-any"), Optional(902U));
  EXPECT_THAT(rank_of(supported, "CP311-CP311-LINUX_X86_64"), Optional(35U));
}

TEST(SupportedTagsBestRank, UnsupportedWheelsHaveNoRank) {
  const SupportedTags supported(supported_tags(cpython(3, 11)));
  for (const char* tag_set :
       {"cp313-cp313t-manylinux_2_24_x86_64.manylinux_2_28_x86_64", "cp310-cp310-linux_x86_64",
        "cp37-cp37m-linux_x86_64", "cp311-cp311-win_amd64", "cp311-cp311-linux_aarch64",
        "cp311-cp311-manylinux_2_37_x86_64", "cp312-abi3-linux_x86_64", "py4-none-any"}) {
    EXPECT_EQ(rank_of(supported, tag_set), std::nullopt) << tag_set;
  }
  EXPECT_EQ(supported.best_rank({}), std::nullopt);
  const SupportedTags empty({});
  EXPECT_EQ(rank_of(empty, "py3-none-any"), std::nullopt);
}

TEST(SupportedTagsBestRank, CopiesAndMovesKeepWorking) {
  SupportedTags original(supported_tags(cpython(3, 11)));
  const SupportedTags copy = original;
  const SupportedTags moved = std::move(original);
  EXPECT_THAT(rank_of(copy, "cp311-cp311-linux_x86_64"), Optional(35U));
  EXPECT_THAT(rank_of(moved, "cp311-cp311-linux_x86_64"), Optional(35U));
  for (std::size_t i = 0; i < copy.size(); ++i) {
    ASSERT_THAT(copy.rank(copy.tags()[i]), Optional(i));
  }
}

TEST(SupportedTagsBestRank, FreeThreadedWheelsOnFreeThreadedPython) {
  auto facts = cpython(3, 13);
  facts.gil_disabled = true;
  const SupportedTags supported(supported_tags(facts));
  EXPECT_THAT(rank_of(supported, "cp313-cp313t-manylinux_2_24_x86_64.manylinux_2_28_x86_64"),
              Optional(8U));
  EXPECT_EQ(rank_of(supported, "cp313-cp313-linux_x86_64"), std::nullopt);
  EXPECT_EQ(rank_of(supported, "cp39-abi3-linux_x86_64"), std::nullopt);
}

TEST(SupportedTagsBestRank, DuplicatesKeepTheirFirstIndex) {
  // "python" is the generic short name "py", so generic_tags and
  // compatible_tags both yield py311-none-<platform>.
  auto facts = cpython(3, 11);
  facts.implementation = "python";
  facts.soabi.reset();
  const SupportedTags supported(supported_tags(facts));
  EXPECT_EQ(supported.tags()[0].str(), "py311-none-manylinux_2_36_x86_64");
  EXPECT_EQ(supported.tags()[36].str(), "py311-none-manylinux_2_36_x86_64");
  EXPECT_THAT(supported.rank(supported.tags()[36]), Optional(0U));
}

// Every platform tag the list writes reads back to the glibc / musl and arch it was made from.
TEST(LinuxPlatform, ReadsBackEveryTagTheListWrites) {
  InterpreterTagFacts facts = cpython(3, 11);
  for (const Tag& tag : supported_tags(facts)) {
    if (tag.platform == "any") continue;
    auto parsed = parse_linux_platform(tag.platform);
    ASSERT_TRUE(parsed) << tag.platform;
    EXPECT_EQ(parsed->arch, "x86_64") << tag.platform;
    if (parsed->kind == LinuxPlatform::Kind::manylinux) {
      ASSERT_TRUE(parsed->libc);
      EXPECT_LE(*parsed->libc, *facts.glibc) << tag.platform;
    }
  }
}

TEST(LinuxPlatform, KindsAliasesAndGarbage) {
  auto ml = parse_linux_platform("manylinux_2_28_aarch64");
  ASSERT_TRUE(ml);
  EXPECT_EQ(ml->kind, LinuxPlatform::Kind::manylinux);
  EXPECT_EQ(ml->libc, (LibcVersion{2, 28}));
  EXPECT_EQ(ml->arch, "aarch64");
  EXPECT_EQ(parse_linux_platform("manylinux2014_x86_64")->libc, (LibcVersion{2, 17}));
  EXPECT_EQ(parse_linux_platform("manylinux2010_i686")->libc, (LibcVersion{2, 12}));
  EXPECT_EQ(parse_linux_platform("manylinux1_x86_64")->libc, (LibcVersion{2, 5}));
  auto musl = parse_linux_platform("musllinux_1_2_x86_64");
  ASSERT_TRUE(musl);
  EXPECT_EQ(musl->kind, LinuxPlatform::Kind::musllinux);
  EXPECT_EQ(musl->libc, (LibcVersion{1, 2}));
  auto plain = parse_linux_platform("linux_armv7l");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->kind, LinuxPlatform::Kind::plain);
  EXPECT_FALSE(plain->libc);
  EXPECT_EQ(plain->arch, "armv7l");
  for (const char* other : {"any", "win_amd64", "macosx_11_0_arm64", "", "linux_", "manylinux_",
                            "manylinux_2_x86_64", "manylinux_2_28_", "manylinux_x_28_x86_64",
                            "manylinux2014_", "musllinux_1__x86_64", "manylinux_99999_1_x86_64"})
    EXPECT_FALSE(parse_linux_platform(other)) << other;
}

}  // namespace
}  // namespace flashfit::pkg
