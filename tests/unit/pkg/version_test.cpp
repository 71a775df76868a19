#include "pkg/version.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "../temp_dir.hpp"
#include "net/http.hpp"
#include "util/strings.hpp"

namespace flashfit::pkg {
namespace {

Version v(std::string_view text) {
  auto parsed = Version::parse(text);
  EXPECT_TRUE(parsed) << text << ": " << (parsed ? "" : parsed.error().message);
  return parsed ? *parsed : Version{};
}

// The message of the error Version::parse gives, or "" when it parses.
std::string error_of(std::string_view text) {
  auto parsed = Version::parse(text);
  if (parsed) return "";
  EXPECT_EQ(parsed.error().kind, util::ErrorKind::input);
  return parsed.error().message;
}

TEST(Version, NormalisesEverySpelling) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1.0", "1.0"},
      {"  1.0\t", "1.0"},
      {"\x1c"
       "1.0\x1f",
       "1.0"},  // Python's \s includes the information separators
      {"v1.0", "1.0"},
      {"V1.0", "1.0"},
      {"01.002.0003", "1.2.3"},
      {"0!1.0", "1.0"},
      {"007!1.0", "7!1.0"},
      {"1.0a", "1.0a0"},
      {"1.0A1", "1.0a1"},
      {"1.0alpha1", "1.0a1"},
      {"1.0-ALPHA_1", "1.0a1"},
      {"1.0beta2", "1.0b2"},
      {"1.0c3", "1.0rc3"},
      {"1.0pre4", "1.0rc4"},
      {"1.0preview5", "1.0rc5"},
      {"1.0.rc.6", "1.0rc6"},
      {"1.0-1", "1.0.post1"},
      {"1.0-r1", "1.0.post1"},
      {"1.0rev", "1.0.post0"},
      {"1.0_post_2", "1.0.post2"},
      {"1.0.post", "1.0.post0"},
      {"1.0dev", "1.0.dev0"},
      {"1.0-DEV-3", "1.0.dev3"},
      {"1.0a.", "1.0a0"},          // a separator may trail a letter
      {"1.0a-1", "1.0a1"},         // "-1" is the pre-release number, not a post-release
      {"1.0a.-1", "1.0a0.post1"},  // ... unless a separator already went
      {"1.0.dev.+abc", "1.0.dev0+abc"},
      {"1.0-1dev", "1.0.post1.dev0"},
      {"1.0+ABC.01-x_y", "1.0+abc.1.x.y"},
      {"1!2.0.0rc1.post2.dev3+cu12torch2.8cxx11abiTRUE",
       "1!2.0.0rc1.post2.dev3+cu12torch2.8cxx11abitrue"},
      {"1.99999999999999999999999999", "1.99999999999999999999999999"},
      {"1.000000000000000000000000042", "1.42"},
  };
  for (const auto& [input, normal] : cases) EXPECT_EQ(v(input).str(), normal) << input;
}

TEST(Version, Parts) {
  const auto x = v("1!2.0.0rc1.post2.dev3+cu12torch2.8cxx11abiTRUE");
  EXPECT_EQ(x.epoch(), "1");
  EXPECT_EQ(x.release(), (std::vector<std::string>{"2", "0", "0"}));
  EXPECT_EQ(x.pre(), (std::pair<std::string, std::string>{"rc", "1"}));
  EXPECT_EQ(x.post(), "2");
  EXPECT_EQ(x.dev(), "3");
  EXPECT_EQ(x.local(), "cu12torch2.8cxx11abitrue");
  EXPECT_EQ(x.public_str(), "1!2.0.0rc1.post2.dev3");
  EXPECT_EQ(x.base_str(), "1!2.0.0");
  EXPECT_EQ(x.canonical_str(), "1!2rc1.post2.dev3+cu12torch2.8cxx11abitrue");
  EXPECT_TRUE(x.is_prerelease());
  EXPECT_TRUE(x.is_postrelease());
  EXPECT_TRUE(x.is_devrelease());
  EXPECT_TRUE(x.has_local());
  EXPECT_EQ(x.without_local().str(), "1!2.0.0rc1.post2.dev3");

  const auto plain = v("2.8.3");
  EXPECT_FALSE(plain.is_prerelease());
  EXPECT_FALSE(plain.is_postrelease());
  EXPECT_FALSE(plain.has_local());
  EXPECT_EQ(plain.local(), "");
  EXPECT_EQ(plain.epoch(), "0");
  EXPECT_TRUE(v("1.0.dev0").is_prerelease());  // dev alone counts as a pre-release
  EXPECT_FALSE(v("1.0.post1").is_prerelease());
}

// Copies share the parsed parts; a version made from another (without_local)
// never changes the one it came from; a default or moved-from version is the
// zero version ("0" epoch, no release), never a crash.
TEST(Version, CopiesAndDerivedVersionsAreIndependentValues) {
  const Version x = v("2.8.3+cu12torch2.8");
  Version copy = x;
  EXPECT_EQ(copy, x);
  EXPECT_TRUE(std::is_eq(copy.compare_public(x)));
  const Version bare = x.without_local();
  EXPECT_EQ(bare.str(), "2.8.3");
  EXPECT_EQ(x.str(), "2.8.3+cu12torch2.8");
  EXPECT_EQ(copy.str(), "2.8.3+cu12torch2.8");
  EXPECT_LT(bare, x);
  EXPECT_TRUE(std::is_eq(bare.compare_public(x)));
  Version moved = std::move(copy);
  EXPECT_EQ(moved.str(), "2.8.3+cu12torch2.8");
  // Moved from: the zero version, readable (NOLINTNEXTLINE: read on purpose).
  EXPECT_EQ(copy.str(), "");     // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(copy.epoch(), "0");  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(copy, Version{});    // NOLINT(bugprone-use-after-move)
  copy = v("1.0");               // a moved-from version takes a new value
  EXPECT_EQ(copy.str(), "1.0");
  const Version zero;
  EXPECT_EQ(zero.epoch(), "0");
  EXPECT_TRUE(zero.release().empty());
  EXPECT_FALSE(zero.has_local());
  EXPECT_EQ(zero.str(), "");
  EXPECT_LT(zero, v("0.0.1"));
  EXPECT_EQ(zero, Version{});
}

TEST(Version, OrdersAsPackaging) {
  // Strictly increasing; every pair is checked both ways.
  const std::vector<std::string> ordered = {"1.0.dev456",
                                            "1.0a1",
                                            "1.0a2.dev456",
                                            "1.0a12.dev456",
                                            "1.0a12",
                                            "1.0b1.dev456",
                                            "1.0b2",
                                            "1.0b2.post345.dev456",
                                            "1.0b2.post345",
                                            "1.0rc1.dev456",
                                            "1.0rc1",
                                            "1.0",
                                            "1.0+abc.5",
                                            "1.0+abc.7",
                                            "1.0+5",
                                            "1.0.post456.dev34",
                                            "1.0.post456",
                                            "1.0.15",
                                            "1.1.dev1",
                                            "1.1",
                                            "2.8.3",
                                            "2.8.3+cu12torch2.10cxx11abiTRUE",
                                            "2.8.3+cu12torch2.8cxx11abiFALSE",
                                            "2.8.3+cu12torch2.8cxx11abiTRUE",
                                            "2.8.3+cu13torch2.9cxx11abiTRUE",
                                            "2.8.3.post1",
                                            "99999999999999999999",
                                            "100000000000000000000",
                                            "1!0.1"};
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    for (std::size_t j = 0; j < ordered.size(); ++j) {
      const auto order = v(ordered[i]) <=> v(ordered[j]);
      EXPECT_EQ(order, i <=> j) << ordered[i] << " vs " << ordered[j];
    }
  }
}

TEST(Version, EqualityIgnoresSpellingAndTrailingZeros) {
  EXPECT_EQ(v("1.0"), v("1.0.0.0"));
  EXPECT_EQ(v("1"), v("v1.0"));
  EXPECT_NE(v("1"), v("1.0-0"));  // "-0" is the post-release 0, which sorts above 1.0
  EXPECT_EQ(v("1.0+a.1"), v("1.0+A-01"));
  EXPECT_EQ(v("1.0c1"), v("1.0rc1"));
  EXPECT_LT(v("1.0+abc"), v("1.0+abc.0"));  // a longer label with the same prefix sorts after
  EXPECT_LT(v("1.0+xyz"), v("1.0+1"));      // numeric label parts beat alphanumeric ones
  EXPECT_EQ(v("2.8.3").compare_public(v("2.8.3+cu12")), std::strong_ordering::equal);
  EXPECT_TRUE(v("1.0.0a1").same_base(v("1.0.post2+x")));
  EXPECT_FALSE(v("1!1.0").same_base(v("1.0")));
}

TEST(Version, RejectsWithPreciseMessages) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty version"},
      {"   ", "the version is only whitespace"},
      {"1.0.", "trailing separator '.' at position 3"},
      {"1.0-", "trailing separator '-' at position 3"},
      {"1.0+",
       "expected a local version label (letters and digits) after '+' at position 3, found the "
       "end"},
      {"abc", "expected a release number (a digit) at position 0, found 'a'"},
      {"v", "expected a release number (a digit) at position 1, found the end of the text"},
      {"1!", "expected a release number after the epoch '!' at position 2"},
      {"1.0..1",
       "separator '.' at position 3 must be followed by a release number or a pre-, post- or "
       "dev-release segment, found '.'"},
      {"1.0a1b2", "a second pre-release segment 'b' at position 5"},
      {"1.0.post1.post2", "a second post-release segment 'post' at position 10"},
      {"1.0-1-1", "a second post-release segment at position 5"},
      {"1.0.dev1.dev2", "a second dev-release segment 'dev' at position 9"},
      {"1.0.dev1a1",
       "pre-release segment 'a' at position 8 must come before the post- and dev-release segments"},
      {"1.0.dev1.post1",
       "post-release segment 'post' at position 9 must come before the dev-release segment"},
      {"1.0x", "unknown segment 'x' at position 3"},
      {"1.0+a..b",
       "separator '.' at position 5 in the local version label must be followed by a letter or "
       "digit, found '.'"},
      {"1.0+a@", "character '@' at position 5 is not allowed in a local version label"},
      {"1.0+a+b", "a second '+' at position 5"},
      {"1.0 1", "whitespace inside the version at position 3"},
      {"1.0.*", "a '.*' wildcard at position 3 is not part of a version"},
      {"1.0,", "unexpected character ',' at position 3"},
      {std::string("1.0\0", 4), "embedded NUL byte at position 3"},
      {"\x01"
       "1.0",
       "expected a release number (a digit) at position 0, found '\\x01'"},
  };
  for (const auto& [input, message] : cases) {
    EXPECT_NE(error_of(input).find(message), std::string::npos)
        << util::printable(input) << " gave: " << error_of(input);
  }
  auto error = Version::parse(std::string("1.0\0", 4)).error();
  EXPECT_EQ(error.context, "version '1.0\\x00'");  // quoted safely
}

// Python's re with IGNORECASE folds a few non-ASCII letters to ASCII ones
// (U+212A KELVIN SIGN matches 'k'), and its \s matches Unicode whitespace,
// so packaging accepts "1.0+\u212a" as 1.0+k and "\u00a01.0" as 1.0.
// flashfit deliberately rejects every non-ASCII byte: PEP 440 is ASCII.
TEST(Version, IntendedDifferenceRejectsAllNonAscii) {
  EXPECT_EQ(error_of("1.0+\u212a"), "non-ASCII byte \\xe2 at position 4; a version must be ASCII");
  EXPECT_EQ(error_of("\u00a0"
                     "1.0"),
            "non-ASCII byte \\xc2 at position 0; a version must be ASCII");
  EXPECT_EQ(error_of("1.0\u3000"), "non-ASCII byte \\xe3 at position 3; a version must be ASCII");
  EXPECT_EQ(error_of("1.0\u00e9"), "non-ASCII byte \\xc3 at position 3; a version must be ASCII");
}

TEST(Version, OverLongInputIsLinearAndSafe) {
  // 100 KB inputs of several shapes: valid ones parse, others fail with a
  // message, and the quoted context stays short.
  const std::string digits(100000, '7');
  EXPECT_EQ(v(digits).str(), digits);
  std::string many_segments;
  for (int i = 0; i < 50000; ++i) many_segments += "1.";
  EXPECT_EQ(error_of(many_segments), "trailing separator '.' at position 99999");
  EXPECT_EQ(v(many_segments + "0").release().size(), 50001u);
  EXPECT_EQ(v("1.0+" + std::string(100000, 'a')).local().size(), 100000u);
  EXPECT_NE(error_of(std::string(100000, 'a')).find("position 0"), std::string::npos);
  EXPECT_NE(error_of("1.0" + std::string(100000, ' ') + "x").find("whitespace inside"),
            std::string::npos);
  auto error = Version::parse(std::string(100000, '.')).error();
  EXPECT_LT(error.context.size(), 300u);
  // Longer than any machine integer, and than CPython's 4300-digit guard.
  EXPECT_LT(v("1." + std::string(5000, '9')), v("1.1" + std::string(5000, '0')));
  EXPECT_EQ(v("00000000000000000000000000001"), v("1"));
}

// Version::parse reads the plain spelling most wheels have (2.5.1.post1+cu118torch1.12...)
// in one pass and every other with the full grammar; the two must agree. A
// leading space, which the full grammar strips and the one-pass reader does
// not take, sends the same text through the full grammar.
void expect_as_full_grammar(const std::string& text) {
  const auto direct = Version::parse(text);
  const auto full = Version::parse(" " + text);
  ASSERT_EQ(direct.has_value(), full.has_value()) << text;
  if (!direct) return;
  EXPECT_EQ(direct->str(), full->str()) << text;
  EXPECT_EQ(direct->epoch(), full->epoch()) << text;
  EXPECT_EQ(direct->release(), full->release()) << text;
  EXPECT_EQ(direct->pre(), full->pre()) << text;
  EXPECT_EQ(direct->post(), full->post()) << text;
  EXPECT_EQ(direct->dev(), full->dev()) << text;
  EXPECT_EQ(direct->local(), full->local()) << text;
  // Equal only when each local part is numeric in both or in neither.
  EXPECT_TRUE(*direct == *full) << text;
}

TEST(Version, PlainSpellingsReadInOnePassAsTheFullGrammarReadsThem) {
  const std::vector<std::string> cases = {
      "0", "1", "10", "1.0", "2.8.3", "1.0.post0", "1.0.post12", "1.0.post1+cu121",
      "2.8.3+cu12torch2.8cxx11abiTRUE", "1.0+a", "1.0+A.B", "1.0+0", "1.0+10", "1.0+abc.5.7",
      "1.0+ABC5def", "1.0+1a", "99999999999999999999.1",
      // Each needs the full grammar: normalised, another spelling, or invalid.
      "01", "1.01", "1.0.post00", "1.0.post", "1.0.post1.post2", "1.0post1", "1.0-1", "1.0+",
      "1.0+007", "1.0+a..b", "1.0+a.", "1.0+a-b", "1.0+a_b", "1..0", "1.", "1.0.", "v1.0", "1.0a1",
      "1.0.dev1", "1!1.0", "1.0.POST1", "1.0 ", "1.0+\xc3\xa9", "", ".", "+", "1.0++a",
      "1.0.post1a", "1.0+a.b.", "1.0.post1.dev0", "1.0.0.0.0.0.0.0.0.0.0.1"};
  for (const std::string& text : cases) expect_as_full_grammar(text);
  // Every version the built-in catalogs spell, as their file names spell it.
  std::size_t spellings = 0;
  for (const char* file : {"flash-attn-official-wheels.tsv", "flash-attn-community-wheels.tsv",
                           "causal-conv1d-official-wheels.tsv", "mamba-ssm-official-wheels.tsv"}) {
    const std::string text = test::read(std::filesystem::path(FLASHFIT_DATA_DIR) / file);
    ASSERT_FALSE(text.empty()) << file;
    for (std::string_view line : util::split(text, '\n')) {
      const std::size_t whl = line.find(".whl");
      if (whl == std::string_view::npos) continue;
      std::string_view name = line.substr(0, whl);
      name = name.substr(name.find_last_of("\t/") + 1);
      const std::size_t first = name.find('-');
      const std::size_t second = name.find('-', first + 1);
      ASSERT_NE(second, std::string_view::npos) << line;
      expect_as_full_grammar(net::percent_decode(name.substr(first + 1, second - first - 1)));
      ++spellings;
    }
  }
  EXPECT_GT(spellings, 6000u);
}

}  // namespace
}  // namespace flashfit::pkg
