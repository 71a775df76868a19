#include "pkg/specifier.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "util/strings.hpp"

namespace flashfit::pkg {
namespace {

Version v(std::string_view text) {
  auto parsed = Version::parse(text);
  EXPECT_TRUE(parsed) << text;
  return parsed ? *parsed : Version{};
}

SpecifierSet set(std::string_view text) {
  auto parsed = SpecifierSet::parse(text);
  EXPECT_TRUE(parsed) << text << ": " << (parsed ? "" : parsed.error().message);
  return parsed ? *parsed : SpecifierSet{};
}

Specifier spec(std::string_view text) {
  auto parsed = Specifier::parse(text);
  EXPECT_TRUE(parsed) << text << ": " << (parsed ? "" : parsed.error().message);
  return *parsed;
}

std::string set_error(std::string_view text) {
  auto parsed = SpecifierSet::parse(text);
  if (parsed) return "";
  EXPECT_EQ(parsed.error().kind, util::ErrorKind::input);
  return parsed.error().context + ": " + parsed.error().message;
}

std::vector<std::string> strs(const std::vector<Version>& versions) {
  std::vector<std::string> out;
  for (const auto& x : versions) out.push_back(x.str());
  return out;
}

TEST(Specifier, ParsesOperatorsAndKeepsTheVersionAsWritten) {
  EXPECT_EQ(spec(" == 1.0 ").str(), "==1.0");
  EXPECT_EQ(spec("~=V1.00").version_text(), "V1.00");
  EXPECT_EQ(spec(">=2.6").op(), ">=");
  EXPECT_EQ(spec("=== foo ").str(), "===foo");
  EXPECT_EQ(spec("===").str(), "===");                      // an empty arbitrary version is valid
  EXPECT_EQ(spec("===1.0,>=2").version_text(), "1.0,>=2");  // a lone Specifier keeps the comma
  EXPECT_EQ(spec("==1.0.*").str(), "==1.0.*");
  EXPECT_EQ(spec("!=2.8.3+cu12torch2.8cxx11abiTRUE").version_text(),
            "2.8.3+cu12torch2.8cxx11abiTRUE");
}

TEST(SpecifierSet, StrSortsAndDropsEqualSpecifiers) {
  EXPECT_EQ(set(">=1.0.0, !=1.0.1").str(), "!=1.0.1,>=1.0.0");
  EXPECT_EQ(set("").str(), "");
  EXPECT_TRUE(set(" , ,, ").empty());
  // Equal by packaging's canonical form: the first one written stays.
  EXPECT_EQ(set("==1.0,==1.0.0").str(), "==1.0");
  EXPECT_EQ(set("==1.0.0,==1.0").str(), "==1.0.0");
  EXPECT_EQ(set("===1.0,===1.0.0").str(), "===1.0");
  EXPECT_EQ(set("~=1.0,~=1.0.0").str(), "~=1.0,~=1.0.0");          // ~= keeps trailing zeros
  EXPECT_EQ(set("==1.0.*,==1.0.0.*").str(), "==1.0.*,==1.0.0.*");  // not versions: compared as text
  EXPECT_EQ(set("==1.0+abc,==1.0.0+ABC").specifiers().size(), 1u);
}

TEST(Specifier, ContainsPerOperator) {
  const std::vector<std::tuple<std::string, std::string, bool>> cases = {
      // == ignores the candidate's local label unless the specifier has one.
      {"==2.8.3", "2.8.3+cu12torch2.8cxx11abiTRUE", true},
      {"==2.8.3+cu12torch2.8cxx11abiTRUE", "2.8.3+cu12torch2.8cxx11abitrue", true},
      {"==2.8.3+cu12", "2.8.3", false},
      {"==1.0", "1.0.0", true},
      // Wildcards: local ignored, zero padding, prefix by segments.
      {"==2.8.*", "2.8.3+x", true},
      {"==2.8.*", "2.8", true},
      {"==2.8.*", "2.80", false},
      {"==1.0.*", "1", true},
      {"==1.0.*", "1.0.post1", true},
      {"==0!1.*", "1.5", true},
      {"!=2.8.*", "2.8.3+cu12", false},
      {"==1!1.0.*", "1!1.0.1", true},
      {"==1!1.0.*", "1!1.0", false},  // packaging's quirk: the epoch hides the release from padding
      // ~= is >= plus a prefix taken from the text as written.
      {"~=2.8.0", "2.8.3+cu12", true},
      {"~=2.8.0", "2.9", false},
      {"~=2.8", "2.9", true},
      {"~=2.8", "3.0", false},
      {"~=1.0.a1", "1.1", true},
      {"~=1.0.A1", "1.1", false},  // case keeps "A1" out of the suffixes, so the prefix is 1.0
      // <= and >= compare the public version.
      {"<=2.8.3", "2.8.3+x", true},
      {">=2.8.3", "2.8.3+x", true},
      // < excludes pre-releases of the same version, > its post-releases and locals.
      {"<3.1", "3.0.5", true},
      {"<2.8.3", "2.8.3+x", false},
      {">3.1", "3.1.post1", false},
      {">3.1", "3.1+x", false},
      {">3.1", "3.2.post0", true},
      {">3.1.post1", "3.1.post2", true},
      // === compares text, after normalising the candidate.
      {"===2.8.3", "2.8.3", true},
      {"===2.8.3", "2.8.3+x", false},
      {"===2.8.3+X", "2.8.3+x", true},
      {"===2.8.3.0", "2.8.3", false},
  };
  for (const auto& [s, candidate, expected] : cases) {
    EXPECT_EQ(set(s).contains(v(candidate)), expected) << s << " contains " << candidate;
    EXPECT_EQ(spec(s).contains(v(candidate)), expected) << s << " contains " << candidate;
  }
  EXPECT_FALSE(spec("<3.1").contains(v("3.1.dev0"), true));
  EXPECT_TRUE(spec("<3.1").contains(v("3.0.dev0"), true));
}

TEST(Specifier, PreReleasesFollowPackagingDefaults) {
  EXPECT_TRUE(spec("===1.0a1").allows_prereleases());
  EXPECT_TRUE(spec(">=1.0.dev0").allows_prereleases());
  EXPECT_FALSE(spec("!=1.0a1").allows_prereleases());
  EXPECT_FALSE(spec("<1.0a1").allows_prereleases());
  EXPECT_FALSE(spec("==1.0.*").allows_prereleases());
  EXPECT_EQ(set("").allows_prereleases(), std::nullopt);
  EXPECT_EQ(set("<1.0a1,>=0.5").allows_prereleases(), false);
  EXPECT_EQ(set(">=1.0a1,<2").allows_prereleases(), true);

  EXPECT_FALSE(set("==1.0").contains(v("1.0a1")));
  EXPECT_TRUE(set(">=1.0a1").contains(v("1.0b1")));
  EXPECT_FALSE(set(">=1.0").contains(v("1.1a1")));
  EXPECT_TRUE(set(">=1.0").contains(v("1.1a1"), true));
  EXPECT_FALSE(set(">=1.0a1").contains(v("1.1a1"), false));
  EXPECT_FALSE(set("").contains(v("1.0a1")));
  EXPECT_TRUE(set("").contains(v("1.0a1"), true));
  EXPECT_TRUE(set("").contains(v("1.0")));
}

TEST(SpecifierSet, FilterLikePackaging) {
  const auto vs = [](std::vector<std::string> texts) {
    std::vector<Version> out;
    for (const auto& t : texts) out.push_back(v(t));
    return out;
  };
  using Strings = std::vector<std::string>;
  EXPECT_EQ(strs(set(">=1.2.3").filter(vs({"1.2", "1.3", "1.5a1"}))), (Strings{"1.3"}));
  // With specifiers, the "only pre-releases matched" fallback never fires.
  EXPECT_EQ(strs(set(">=1.2.3").filter(vs({"1.2", "1.5a1"}))), Strings{});
  EXPECT_EQ(strs(set(">=1.2.3").filter(vs({"1.3", "1.5a1"}), true)), (Strings{"1.3", "1.5a1"}));
  // Without specifiers it does, unless pre-releases were explicitly refused.
  EXPECT_EQ(strs(set("").filter(vs({"1.3", "1.5a1"}))), (Strings{"1.3"}));
  EXPECT_EQ(strs(set("").filter(vs({"1.5a1", "1.6b1"}))), (Strings{"1.5a1", "1.6b1"}));
  EXPECT_EQ(strs(set("").filter(vs({"1.5a1"}), false)), Strings{});
  EXPECT_EQ(strs(set("").filter(vs({"1.3", "1.5a1"}), true)), (Strings{"1.3", "1.5a1"}));
  // Order is kept; local variants all pass an unlabelled ==.
  EXPECT_EQ(strs(set("==2.8.3").filter(vs({"2.8.3+b", "2.8.2", "2.8.3+a", "2.8.3"}))),
            (Strings{"2.8.3+b", "2.8.3+a", "2.8.3"}));
}

TEST(SpecifierSet, RejectsWithPreciseMessages) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"==", "specifier '==': '==' must be followed by a version"},
      {"1.0", "expected an operator (~= == != <= >= < > ===) at position 0, found '1'"},
      {"=>1.0", "expected an operator (~= == != <= >= < > ===) at position 0, found '='"},
      {">=1.0.*",
       "a '.*' wildcard at position 5 is not allowed with '>=' (only with '==' and '!=')"},
      {"~=1", "'~=' needs at least 2 release segments (as in '~=2.8'), found 1"},
      {"~=1.0.*", "a '.*' wildcard at position 5 is not allowed with '~='"},
      {"~=1.0+abc", "a local version label ('+...') at position 5 is not allowed with '~='"},
      {"<1.0+abc", "a local version label ('+...') at position 4 is not allowed with '<'"},
      {"==1.0.*+a", "nothing may follow the '.*' wildcard, found '+' at position 7"},
      {"==1.0a1.*", "a '.*' wildcard at position 7"},
      {"===a b", "whitespace inside the '===' version at position 4"},
      {"===a;b", "';' at position 4 is not allowed in a '===' version"},
      {"===a)", "')' at position 4 is not allowed in a '===' version"},
      {">=1.0,<2,~=1", "specifier set '>=1.0,<2,~=1', item 3: specifier '~=1'"},
      {">==1", "expected a release number (a digit) at position 2, found '='"},
      {">=1.0.", "trailing separator '.' at position 5"},
      {std::string(">=1.0\0", 6), "embedded NUL byte at position 5"},
  };
  for (const auto& [input, message] : cases) {
    EXPECT_NE(set_error(input).find(message), std::string::npos)
        << util::printable(input) << " gave: " << set_error(input);
  }
  auto bare = Specifier::parse("");
  ASSERT_FALSE(bare);
  EXPECT_EQ(bare.error().message, "empty specifier");
}

// packaging accepts any non-space character after "===" (its regex is
// [^\s;)]*), so "===caf\u00e9" or "===a\0b" are valid there; flashfit rejects
// NUL and non-ASCII in every specifier.
TEST(Specifier, IntendedDifferenceRejectsNonAsciiAndNul) {
  EXPECT_NE(set_error("===caf\u00e9").find("non-ASCII byte \\xc3 at position 6"),
            std::string::npos);
  EXPECT_NE(set_error(std::string("===a\0b", 6)).find("embedded NUL byte at position 4"),
            std::string::npos);
  EXPECT_NE(set_error("\u00a0>=1.0").find("non-ASCII byte \\xc2 at position 0"), std::string::npos);
}

// For "===" text that is not a version, packaging's Specifier.prereleases
// raises InvalidVersion, and SpecifierSet.contains/filter raise or not
// depending on set iteration order. flashfit answers "no pre-releases".
TEST(Specifier, IntendedDifferenceArbitraryNonVersionAdmitsNoPreReleases) {
  EXPECT_FALSE(spec("===foo").allows_prereleases());
  EXPECT_EQ(set("===foo").allows_prereleases(), false);
  EXPECT_EQ(set("===foo,>=1.0a1").allows_prereleases(), true);
  EXPECT_FALSE(set("===foo").contains(v("1.0")));
  EXPECT_FALSE(set("===1.0-custom").contains(v("1.0.post0"), true));
}

TEST(Specifier, DefaultConstructedAdmitsNothing) {
  EXPECT_FALSE(Specifier{}.contains(v("1.0"), true));
  EXPECT_TRUE(SpecifierSet{}.contains(v("1.0")));  // the empty set admits every final release
}

TEST(SpecifierSet, OverLongInput) {
  std::string many;
  for (int i = 0; i < 10000; ++i) many += ">=1.0." + std::to_string(i) + ",";
  const auto big = set(many);  // 10,000 specifiers, ~100 KB
  EXPECT_EQ(big.specifiers().size(), 10000u);
  EXPECT_TRUE(big.contains(v("1.0.9999")));
  EXPECT_FALSE(big.contains(v("1.0.9998")));
  EXPECT_EQ(set("===" + std::string(100000, 'x')).specifiers()[0].version_text().size(), 100000u);
  EXPECT_NE(set_error(">=" + std::string(100000, '1') + "x")
                .find("unknown segment 'x' at position 100002"),
            std::string::npos);
  EXPECT_EQ(set("===" + std::string(99997, '=')).str().size(), 100000u);  // '=' is arbitrary text
  EXPECT_LT(SpecifierSet::parse(std::string(100000, '<')).error().context.size(), 700u);
}

}  // namespace
}  // namespace flashfit::pkg
