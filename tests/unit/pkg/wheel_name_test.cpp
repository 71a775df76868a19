#include "pkg/wheel_name.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "util/strings.hpp"

namespace flashfit::pkg {
namespace {

WheelName wheel(std::string_view filename) {
  auto parsed = parse_wheel_filename(filename);
  EXPECT_TRUE(parsed) << filename << ": " << (parsed ? "" : util::render(parsed.error()));
  return parsed ? *parsed : WheelName{};
}

std::string error_of(std::string_view filename) {
  auto parsed = parse_wheel_filename(filename);
  if (parsed) return "";
  EXPECT_EQ(parsed.error().kind, util::ErrorKind::input);
  return parsed.error().context + ": " + parsed.error().message;
}

std::vector<std::string> tag_strs(const WheelName& w) {
  std::vector<std::string> out;
  for (const auto& t : w.tags) out.push_back(t.str());
  return out;
}

std::vector<std::string> data_lines(const std::string& file) {
  std::ifstream in(std::string(FLASHFIT_DATA_DIR) + "/" + file);
  EXPECT_TRUE(in) << file;
  std::vector<std::string> lines;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

TEST(WheelName, ParsesAFlashAttnName) {
  const auto w = wheel("flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl");
  EXPECT_EQ(w.name, "flash_attn");
  EXPECT_EQ(w.canonical_name, "flash-attn");
  EXPECT_EQ(w.version.str(), "2.8.3+cu12torch2.8cxx11abitrue");
  EXPECT_FALSE(w.build);
  EXPECT_EQ(tag_strs(w), std::vector<std::string>{"cp312-cp312-linux_x86_64"});
}

TEST(WheelName, BuildTagsAndTagSets) {
  const auto w = wheel("Foo.Bar_baz-2!1.0rc1.dev2-007_x-py3.py2-none.abi3-ANY.whl");
  EXPECT_EQ(w.name, "Foo.Bar_baz");
  EXPECT_EQ(w.canonical_name, "foo-bar-baz");
  EXPECT_EQ(w.version.str(), "2!1.0rc1.dev2");
  ASSERT_TRUE(w.build);
  EXPECT_EQ(*w.build, (std::pair<std::string, std::string>{"7", "_x"}));
  EXPECT_EQ(tag_strs(w), (std::vector<std::string>{"py2-abi3-any", "py2-none-any", "py3-abi3-any",
                                                   "py3-none-any"}));
  EXPECT_EQ(wheel("foo-1.0-000-py3-none-any.whl").build->first, "0");
  EXPECT_EQ(wheel("foo-v1.0_post1-py3-none-any.whl").version.str(), "1.0.post1");

  using Build = std::optional<std::pair<std::string, std::string>>;
  EXPECT_TRUE(compare_build_tags(Build{}, Build{{"0", ""}}) < 0);
  EXPECT_TRUE(compare_build_tags(Build{{"9", "z"}}, Build{{"10", ""}}) < 0);
  EXPECT_TRUE(compare_build_tags(Build{{"1", "a"}}, Build{{"1", "b"}}) < 0);
  EXPECT_TRUE(compare_build_tags(Build{{"1", "a"}}, Build{{"1", "a"}}) == 0);
}

TEST(WheelName, EveryOfficialFlashAttnFileParses) {
  const auto lines = data_lines("flash-attn-official-wheels.tsv");
  EXPECT_GT(lines.size(), 2800u);
  for (const auto& line : lines) {
    const auto fields = util::split(line, '\t');
    ASSERT_GE(fields.size(), 2u) << line;
    const auto w = wheel(fields[1]);
    EXPECT_EQ(w.canonical_name, "flash-attn") << line;
    EXPECT_TRUE(w.version.has_local()) << line;
    EXPECT_EQ(w.tags.size(), 1u) << line;
    EXPECT_TRUE(Version::parse(fields[0])) << fields[0];  // the release tag, "v2.5.1.post1"
  }
}

TEST(WheelName, EveryCommunityFlashAttnFileParses) {
  const auto lines = data_lines("flash-attn-community-wheels.tsv");
  EXPECT_GT(lines.size(), 3500u);
  for (const auto& url : lines) {
    const auto basename = url.substr(url.rfind('/') + 1);
    const auto w = wheel(basename);
    EXPECT_TRUE(w.canonical_name == "flash-attn" || w.canonical_name == "flash-attn-3") << url;
    EXPECT_FALSE(w.tags.empty()) << url;
  }
}

TEST(WheelName, RejectsWithPreciseMessages) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "the extension must be '.whl'"},
      {"foo-1.0-py3-none-any.WHL", "the extension must be '.whl'"},
      {"foo-1.0-py3-none.whl",
       "expected 5 or 6 '-'-separated parts (name-version[-build]-python-abi-platform), found 4"},
      {"foo-1.0-1-2-py3-none-any.whl", "found 7"},
      {"foo-1.0-x-py3-none-any.whl", "the build tag 'x' must start with a digit"},
      {"foo-1.0--py3-none-any.whl", "the build tag '' must start with a digit"},
      {"foo__bar-1.0-py3-none-any.whl", "'__' at position 3 in the project name part"},
      {"foo+bar-1.0-py3-none-any.whl",
       "character '+' at position 3 is not allowed in the project name part"},
      {"foo-1.0.-py3-none-any.whl", "version '1.0.': trailing separator '.' at position 3"},
      {"foo--py3-none-any.whl", "version '': empty version"},
      {"foo-1.0-py3-none-any.whl\x01", "control character '\\x01' at position 24"},
      {std::string("foo-1.0-py3-none-any\0.whl", 25), "embedded NUL byte at position 20"},
  };
  for (const auto& [input, message] : cases) {
    EXPECT_NE(error_of(input).find(message), std::string::npos)
        << util::printable(input) << " gave: " << error_of(input);
  }
}

// The byte check and the '-' count read eight bytes at a time: every byte
// value at every place (each place of a word, and the tail after the last
// whole word) is refused exactly when it is not printable ASCII, and the
// parts are counted exactly wherever the dashes fall.
TEST(WheelName, EveryByteAtEveryPlaceIsCheckedAndEveryDashCounted) {
  const std::string good = "foo_bar_baz-1.0-py3-none-any.whl";         // 32 bytes: four words
  const std::string odd = good.substr(0, 14) + "0" + good.substr(14);  // 33: a tail byte
  for (const std::string& base : {good, odd}) {
    ASSERT_TRUE(parse_wheel_filename(base)) << base;
    for (std::size_t at = 0; at < 11; ++at) {  // inside the project name part
      for (int value = 0; value < 256; ++value) {
        std::string name = base;
        name[at] = static_cast<char>(value);
        const bool printable = value > 0x20 && value < 0x7f;
        const std::string error = error_of(name);
        if (printable) {
          // Printable: refused (if at all) by the name part's own rules, never as a byte.
          EXPECT_EQ(error.find("control character"), std::string::npos) << value << "@" << at;
          EXPECT_EQ(error.find("a space"), std::string::npos) << value << "@" << at;
        } else {
          EXPECT_FALSE(error.empty()) << value << "@" << at;
        }
      }
    }
    // The tail after the last whole word, and the last byte of the name.
    for (const std::size_t at : {base.size() - 1, base.size() - 3}) {
      std::string name = base;
      name[at] = '\x7f';
      EXPECT_NE(error_of(name).find("control character"), std::string::npos) << at;
      name[at] = ' ';
      EXPECT_NE(error_of(name).find("a space"), std::string::npos) << at;
    }
  }
  // k more dashes, at every offset of a word: k + 5 parts (5 and 6 are a name's own).
  for (std::size_t k = 2; k <= 9; ++k) {
    for (std::size_t offset = 0; offset < 8; ++offset) {
      std::string name = std::string(offset, 'a') + "b";
      for (std::size_t i = 0; i < k; ++i) name += "-c";
      name += "-1.0-py3-none-any.whl";
      EXPECT_NE(error_of(name).find("found " + std::to_string(k + 5)), std::string::npos)
          << name << " gave: " << error_of(name);
    }
  }
}

// packaging 23.0 is laxer than PEP 427 here; flashfit rejects each of these.
TEST(WheelName, IntendedDifferencesFromPackaging) {
  // An empty name part (packaging's name regex is `[\w\d._]*`).
  EXPECT_NE(
      error_of("-1.0-py3-none-any.whl").find("the project name part before the first '-' is empty"),
      std::string::npos);
  // A name part that does not start and end with a letter or digit (PEP 508).
  EXPECT_NE(error_of("_foo-1.0-py3-none-any.whl").find("must start and end with a letter or digit"),
            std::string::npos);
  EXPECT_NE(error_of("foo.-1.0-py3-none-any.whl").find("must start and end with a letter or digit"),
            std::string::npos);
  // Whitespace, which packaging's Version strips from the version part.
  EXPECT_NE(error_of("foo- 1.0-py3-none-any.whl").find("a space at position 4"), std::string::npos);
  EXPECT_NE(error_of("foo-1.0\t-py3-none-any.whl").find("control character '\\x09' at position 7"),
            std::string::npos);
  // Non-ASCII: packaging's \w takes Unicode letters in the name, and tags are free text.
  EXPECT_NE(error_of("f\u00f6o-1.0-py3-none-any.whl").find("non-ASCII byte \\xc3 at position 1"),
            std::string::npos);
  EXPECT_NE(error_of("foo-1.0-py3-none-\u00e9.whl").find("non-ASCII byte"), std::string::npos);
  // Empty tags, which packaging turns into Tag objects with empty fields.
  EXPECT_NE(error_of("foo-1.0-py3..py2-none-any.whl")
                .find("empty python tag in the tag set 'py3..py2-none-any'"),
            std::string::npos);
  EXPECT_NE(error_of("foo-1.0-py3--any.whl").find("empty ABI tag"), std::string::npos);
  EXPECT_NE(error_of("foo-1.0-py3-none-.whl").find("empty platform tag"), std::string::npos);
}

TEST(WheelName, OverLongInput) {
  const std::string long_name(100000, 'f');
  EXPECT_EQ(wheel(long_name + "-1.0-py3-none-any.whl").name.size(), 100000u);
  EXPECT_EQ(wheel("foo-1.0-" + std::string(100000, '9') + "-py3-none-any.whl").build->first.size(),
            100000u);
  std::string platforms;
  for (int i = 0; i < 10000; ++i) platforms += "p" + std::to_string(i) + ".";
  platforms += "any";
  EXPECT_EQ(wheel("foo-1.0-py3-none-" + platforms + ".whl").tags.size(), 10001u);
  EXPECT_NE(error_of(std::string(100000, '-') + ".whl").find("found 100001"), std::string::npos);
  EXPECT_LT(error_of(std::string(100000, 'x') + ".whl").size(), 600u);
}

}  // namespace
}  // namespace flashfit::pkg

namespace flashfit::pkg {
namespace {

std::string described(const util::Result<WheelName>& parsed) {
  if (!parsed) {
    return "error " + std::to_string(static_cast<int>(parsed.error().kind)) + " [" +
           parsed.error().context + "] " + parsed.error().message + " (" + parsed.error().hint +
           ")";
  }
  std::string out = parsed->name + " " + parsed->canonical_name + " " + parsed->version.str();
  if (parsed->build) out += " build " + parsed->build->first + "|" + parsed->build->second;
  for (const std::string& tag : tag_strs(*parsed)) out += " " + tag;
  return out;
}

// The memoising parser is parse_wheel_filename: every built-in catalog's file
// names (twice through one parser, so the second pass reads only memoised
// parts) and every refusal, errors word for word.
TEST(WheelNameParser, GivesWhatParseWheelFilenameGives) {
  std::vector<std::string> names = {"",
                                    "foo-1.0-py3-none-any.WHL",
                                    "foo-1.0-py3-none.whl",
                                    "foo-1.0-1-2-py3-none-any.whl",
                                    "foo-1.0-x-py3-none-any.whl",
                                    "foo-1.0--py3-none-any.whl",
                                    "foo__bar-1.0-py3-none-any.whl",
                                    "foo-1.0.-py3-none-any.whl",
                                    "foo--py3-none-any.whl",
                                    "foo-1.0-py3--any.whl",
                                    "foo-1.0-py3.-none-any.whl",
                                    "foo-1.0-2_x-py3-none-any.whl",
                                    "foo-1.0-py3-none-any.whl",
                                    "Foo.Bar-01.0+Local.7-PY2.py3-NONE-Any.whl",
                                    "foo-1.0-py3-none-any.whl\x01"};
  for (const char* file : {"flash-attn-official-wheels.tsv", "flash-attn-community-wheels.tsv",
                           "mamba-ssm-official-wheels.tsv", "causal-conv1d-official-wheels.tsv"}) {
    for (const std::string& line : data_lines(file)) {
      const auto fields = util::split(line, '\t');
      const std::string_view url_or_name = fields.size() > 1 ? fields[1] : fields[0];
      names.emplace_back(url_or_name.substr(url_or_name.rfind('/') + 1));
    }
  }
  ASSERT_GT(names.size(), 10000u);
  WheelNameParser parser;
  for (int pass = 0; pass < 2; ++pass) {
    for (const std::string& name : names) {
      EXPECT_EQ(described(parser.parse(name)), described(parse_wheel_filename(name)))
          << util::printable(name);
    }
  }
}

// The ids name spellings: one version text or tag set text, one id, whatever
// else the names hold; the project name part is refused or accepted every time.
TEST(WheelNameParser, NumbersVersionsAndTagSetsBySpelling) {
  WheelNameParser parser;
  WheelNameParser::PartIds a, b, c, d;
  ASSERT_TRUE(parser.parse("foo-1.0+cu12-cp312-cp312-linux_x86_64.whl", &a));
  ASSERT_TRUE(parser.parse("bar-1.0+cu12-py3-none-any.whl", &b));
  ASSERT_TRUE(parser.parse("foo-1.0-cp312-cp312-linux_x86_64.whl", &c));
  ASSERT_TRUE(parser.parse("foo-1.0.0-1-py3-none-any.whl", &d));
  EXPECT_EQ(a.version, b.version);  // "1.0+cu12"
  EXPECT_NE(a.version, c.version);  // "1.0": another spelling, another label
  EXPECT_NE(c.version, d.version);  // "1.0.0" equals "1.0" but is spelled otherwise
  EXPECT_EQ(a.tag_set, c.tag_set);  // "cp312-cp312-linux_x86_64"
  EXPECT_EQ(b.tag_set, d.tag_set);  // "py3-none-any"
  EXPECT_NE(a.tag_set, b.tag_set);
  // A refused name leaves the ids as they were.
  WheelNameParser::PartIds kept{7, 9, {}};
  EXPECT_FALSE(parser.parse("foo__bar-1.0-py3-none-any.whl", &kept));
  EXPECT_EQ(kept.version, 7u);
  EXPECT_EQ(kept.tag_set, 9u);
  // The memoised name part: refused again after an accepted one, and back.
  EXPECT_TRUE(parser.parse("foo-2.0-py3-none-any.whl"));
  EXPECT_FALSE(parser.parse("foo__bar-2.0-py3-none-any.whl"));
  auto again = parser.parse("Foo.Bar-2.0-py3-none-any.whl");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->canonical_name, "foo-bar");
  EXPECT_EQ(again->name, "Foo.Bar");
}

// The layout of a name's parts, worked out ahead (a compiled catalog's row):
// "foo-1.0+cu12-cp312-cp312-linux_x86_64.whl" is a 3-byte name and an 8-byte
// version; the table numbers its spellings.
WheelNameLayout layout_of(const void* table, std::string_view name, std::uint16_t version,
                          std::uint16_t tag_set) {
  const std::size_t name_size = name.find('-');
  const std::size_t version_size = name.find('-', name_size + 1) - name_size - 1;
  return {table, static_cast<std::uint16_t>(name_size), static_cast<std::uint16_t>(version_size),
          version, tag_set};
}

// Read by its layout, a name gives what parsing it gives, and the same ids
// for the same spellings, whichever way each was met first and whatever
// numbers two tables gave them.
TEST(WheelNameParser, ALaidOutNameGivesTheParseAndTheIdsOfItsSpellings) {
  const int one = 0, two = 0;  // two tables, known by address
  const std::string a = "foo-1.0+cu12-cp312-cp312-linux_x86_64.whl";
  const std::string b = "foo-1.0-cp312-cp312-linux_x86_64.whl";
  const std::string c = "foo-1.0+cu12-py3-none-any.whl";
  WheelNameParser laid, plain;
  WheelNameParser::PartIds ids, want;
  ASSERT_TRUE(laid.parse(b, &ids));  // the text path first: "1.0" id 0
  EXPECT_EQ(ids.version_text, "1.0");
  auto read = laid.parse(a, layout_of(&one, a, 0, 0), &ids);
  ASSERT_TRUE(plain.parse(b, &want) && plain.parse(a, &want));
  EXPECT_EQ(described(read), described(parse_wheel_filename(a)));
  EXPECT_EQ(ids.version, want.version);
  EXPECT_EQ(ids.tag_set, want.tag_set);
  // The version as spelled, a view into the name, on either path.
  EXPECT_EQ(ids.version_text, "1.0+cu12");
  EXPECT_EQ(want.version_text, "1.0+cu12");
  EXPECT_EQ(ids.version_text.data(), a.data() + 4);
  // Table two numbers "1.0+cu12" 5 and "py3-none-any" 0: one spelling, one id here.
  read = laid.parse(c, layout_of(&two, c, 5, 0), &ids);
  ASSERT_TRUE(plain.parse(c, &want));
  EXPECT_EQ(described(read), described(parse_wheel_filename(c)));
  EXPECT_EQ(ids.version, want.version);
  EXPECT_EQ(ids.tag_set, want.tag_set);
  // Table one's numbers again, for another row: found by number, not reparsed.
  read = laid.parse(a, layout_of(&one, a, 0, 0), &ids);
  ASSERT_TRUE(plain.parse(a, &want));
  EXPECT_EQ(described(read), described(parse_wheel_filename(a)));
  EXPECT_EQ(ids.version, want.version);
  EXPECT_EQ(read->tags.vector(), parse_wheel_filename(a)->tags.vector());
}

// A layout whose dashes are not where it says, or a part the runtime refuses,
// is not trusted: the name's own parse answers, its error word for word.
TEST(WheelNameParser, ALayoutThatDoesNotFitTheNameIsNotTrusted) {
  const int table = 0;
  WheelNameParser parser;
  const std::string name = "foo-1.0-py3-none-any.whl";
  for (const WheelNameLayout& wrong :
       {WheelNameLayout{&table, 0, 3, 0, 0}, WheelNameLayout{&table, 2, 3, 0, 0},
        WheelNameLayout{&table, 3, 2, 0, 0}, WheelNameLayout{&table, 3, 200, 0, 0},
        WheelNameLayout{&table, 60000, 60000, 0, 0}}) {
    EXPECT_EQ(described(parser.parse(name, wrong)), described(parse_wheel_filename(name)));
  }
  EXPECT_EQ(described(parser.parse("foo-1.0-py3-none-any.zip", layout_of(&table, name, 0, 0))),
            described(parse_wheel_filename("foo-1.0-py3-none-any.zip")));
  for (const char* bad : {"foo-1.x-py3-none-any.whl", "foo__bar-1.0-py3-none-any.whl",
                          "foo-1.0-py3..py2-none-any.whl", "foo-1.0-py3-none-any-x.whl"}) {
    WheelNameParser::PartIds kept{7, 9, {}};
    EXPECT_EQ(described(parser.parse(bad, layout_of(&table, bad, 1, 1), &kept)),
              described(parse_wheel_filename(bad)))
        << bad;
    if (!parse_wheel_filename(bad)) {
      EXPECT_EQ(kept.version, 7u) << bad;
    }
  }
}

// Into a kept record (the resolver's Judged), a laid-out name is what parse
// gives for it, whether the layout fits or not; a name that does not parse
// answers false, the record left aside.
TEST(WheelNameParser, ParseIntoKeepsWhatParseGives) {
  const int table = 0;
  const std::string fits = "foo-1.0+cu12-cp312-cp312-linux_x86_64.whl";
  const std::string name = "foo-1.0-py3-none-any.whl";
  const std::vector<std::pair<std::string, WheelNameLayout>> cases = {
      {fits, layout_of(&table, fits, 0, 0)},
      {name, WheelNameLayout{&table, 2, 3, 1, 1}},  // does not fit: read in full
      {"foo-1.x-py3-none-any.whl", layout_of(&table, "foo-1.x-py3-none-any.whl", 2, 2)},
      {"foo-1.0-py3-none-any.zip", layout_of(&table, name, 3, 3)},
      {"foo-1.0-1-py3-none-any.whl", WheelNameLayout{&table, 3, 3, 4, 4}},  // a build tag
  };
  for (const auto& [filename, layout] : cases) {
    WheelNameParser into, plain;
    std::optional<WheelName> kept;
    const bool read = into.parse_into(kept, filename, layout);
    const auto parsed = plain.parse(filename);  // the full parse, no layout
    ASSERT_EQ(read, parsed.has_value()) << filename;
    if (!read) continue;
    ASSERT_TRUE(kept) << filename;
    EXPECT_EQ(described(util::Result<WheelName>(*kept)), described(parsed)) << filename;
  }
}

}  // namespace
}  // namespace flashfit::pkg
