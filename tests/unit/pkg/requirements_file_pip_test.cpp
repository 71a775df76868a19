// The requirements-file parser against pip 23.0.1 (`pip install --dry-run
// --no-index -r FILE` on Debian's python3): line splitting, decoding, the
// shlex-split options part, option abbreviations, includes, legacy
// specifiers, markers and a path's extras, as pip reads them.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "../memory_files.hpp"
#include "pkg/requirements_file.hpp"
#include "pkg/requirements_options.hpp"

namespace flashfit::pkg {
namespace {

using MapReader = testing::MemoryFiles;

util::Result<RequirementsFile> parse(const std::string& text, MapReader& reader) {
  return parse_requirements_file(text, "r.txt", reader);
}

RequirementsFile parse_ok(const std::string& text, MapReader& reader) {
  auto parsed = parse(text, reader);
  EXPECT_TRUE(parsed) << text << " -> " << parsed.error().context << ": " << parsed.error().message;
  return parsed ? *parsed : RequirementsFile{};
}

RequirementsFile parse_ok(const std::string& text) {
  MapReader reader;
  return parse_ok(text, reader);
}

void expect_error(const std::string& text, const std::string& context, const std::string& part) {
  MapReader reader;
  auto parsed = parse(text, reader);
  ASSERT_FALSE(parsed) << text;
  EXPECT_EQ(parsed.error().context, context) << text;
  EXPECT_NE(parsed.error().message.find(part), std::string::npos)
      << text << " -> " << parsed.error().message;
}

TEST(RequirementsFilePip, OptionsAfterARequirementStayOnTheLine) {
  const auto file = parse_ok(
      "six --global-option=--foo --install-option=\"--prefix=/x y\" --config-settings 'a=b c'\n");
  ASSERT_EQ(file.lines.size(), 1u);
  EXPECT_EQ(file.lines[0].text, "six");
  ASSERT_EQ(file.lines[0].options.size(), 3u);
  EXPECT_EQ(file.lines[0].options[0].name, "--global-option");
  EXPECT_EQ(file.lines[0].options[0].value, "--foo");
  EXPECT_EQ(file.lines[0].options[1].name, "--install-option");
  EXPECT_EQ(file.lines[0].options[1].value, "--prefix=/x y");
  EXPECT_EQ(file.lines[0].options[2].name, "--config-settings");
  EXPECT_EQ(file.lines[0].options[2].value, "a=b c");
}

TEST(RequirementsFilePip, AnIncludeLineActsOnTheIncludeOnly) {
  // pip follows the line's first -r (else its first -c) and ignores the rest
  // of the line: `--pre -r sub.txt` installs no pre-release.
  MapReader reader;
  reader.files["sub.txt"] = "six\n";
  reader.files["two.txt"] = "numpy\n";
  const auto file = parse_ok(
      "--pre -r sub.txt\n--index-url https://i.example/simple -r sub.txt\n-r sub.txt -r two.txt\n",
      reader);
  EXPECT_TRUE(file.passthrough.empty());
  EXPECT_FALSE(file.index_url);
  ASSERT_EQ(file.lines.size(), 3u);
  for (const auto& line : file.lines) EXPECT_EQ(line.text, "six");
}

TEST(RequirementsFilePip, PassthroughKeepsOnlyTheOptionsFlashfitDoesNotRead) {
  const auto file = parse_ok(
      "--pre --no-index -f ./w --trusted-host \"a b\"\n-e 'my pkg'\n--pre -i https://i/s\n");
  ASSERT_EQ(file.passthrough.size(), 3u);
  EXPECT_EQ(file.passthrough[0].text, "--pre --trusted-host='a b'");
  EXPECT_EQ(file.passthrough[1].text, "--editable='my pkg'");
  EXPECT_EQ(file.passthrough[2].text, "--pre");
  EXPECT_EQ(file.passthrough[2].line, 3u);
  EXPECT_TRUE(file.no_index);
  EXPECT_FALSE(file.index_url);  // pip takes no index after --no-index
}

TEST(RequirementsFilePip, ARequirementsIncludeInsideAConstraintsFileReadsRequirements) {
  MapReader reader;
  reader.files["c.txt"] = "torch==2.6.0\n-r sub.txt\n";
  reader.files["sub.txt"] = "six\n";
  const auto file = parse_ok("-c c.txt\n", reader);
  ASSERT_EQ(file.lines.size(), 2u);
  EXPECT_TRUE(file.lines[0].constraint);
  EXPECT_EQ(file.lines[1].text, "six");
  EXPECT_FALSE(file.lines[1].constraint);
}

TEST(RequirementsFilePip, TheOptionsPartIsShellSplit) {
  MapReader reader;
  reader.files["my reqs.txt"] = "six\n";
  const auto file = parse_ok(
      "--find-links='./wh eels'\n"
      "--extra-index-url \"http://127.0.0.1:9/simple\"\n"
      "-r 'my reqs.txt'\n"
      "--find-links a\\ b\"c\"'d'\n",
      reader);
  EXPECT_EQ(file.find_links, (std::vector<std::string>{"./wh eels", "a bcd"}));
  EXPECT_EQ(file.extra_index_urls, (std::vector<std::string>{"http://127.0.0.1:9/simple"}));
  ASSERT_EQ(file.lines.size(), 1u);
  EXPECT_EQ(file.lines[0].file, "my reqs.txt");

  expect_error("six\n--find-links './wh eels\n", "r.txt:2", "cannot split the options");
  expect_error("six --hash=\"sha256:aa\n", "r.txt:1", "cannot split the options");
}

TEST(RequirementsFilePip, ShellSplitIsShlexInPosixMode) {
  const auto words = detail::shell_split(R"(a 'b c' "d \" \\ \x" e\ f '' g"h"i)");
  ASSERT_TRUE(words);
  EXPECT_EQ(*words, (std::vector<std::string>{"a", "b c", R"(d " \ \x)", "e f", "", "ghi"}));
  EXPECT_FALSE(detail::shell_split("a\\"));
  EXPECT_FALSE(detail::shell_split("'a"));
}

TEST(RequirementsFilePip, QuotedValuesReadBackUnchanged) {
  for (const std::string value :
       {"plain/path", "/tmp/wh eels", "it's", "", "a #b", "#x", "tab\there", "$HOME"}) {
    MapReader reader;
    const auto file = parse_ok("--find-links " + quote_option_value(value) + "\n", reader);
    ASSERT_EQ(file.find_links.size(), 1u) << value;
    EXPECT_EQ(file.find_links[0], value);
  }
  EXPECT_EQ(quote_option_value("/tmp/wh eels"), "'/tmp/wh eels'");
  EXPECT_EQ(quote_option_value("https://h/simple"), "https://h/simple");
}

TEST(RequirementsFilePip, ByteOrderMarksAreDecoded) {
  EXPECT_EQ(parse_ok("\xef\xbb\xbfsix\n").lines.at(0).text, "six");
  const std::string utf16le("\xff\xfes\0i\0x\0\n\0", 10);
  EXPECT_EQ(parse_ok(utf16le).lines.at(0).text, "six");
  const std::string utf16be("\xfe\xff\0s\0i\0x\0\n", 10);
  EXPECT_EQ(parse_ok(utf16be).lines.at(0).text, "six");
  const std::string utf32be("\0\0\xfe\xff\0\0\0s\0\0\0i\0\0\0x", 16);
  EXPECT_EQ(parse_ok(utf32be).lines.at(0).text, "six");
  // An included file too.
  MapReader reader;
  reader.files["sub.txt"] = "\xef\xbb\xbfnumpy\n";
  EXPECT_EQ(parse_ok("-r sub.txt\n", reader).lines.at(0).text, "numpy");

  const std::string utf32le("\xff\xfe\0\0s\0\0\0", 8);
  expect_error(utf32le, "r.txt", "UTF-32");
  expect_error(std::string("\xff\xfes\0i", 5), "r.txt", "not valid UTF-16");
  expect_error(std::string("\xff\xfe\x00\xd8s\0", 6), "r.txt", "not valid UTF-16");
}

TEST(RequirementsFilePip, LinesSplitAsStrSplitlines) {
  const auto file = parse_ok("six\rflash-attn==2.7.4\r");
  ASSERT_EQ(file.lines.size(), 2u);
  EXPECT_EQ(file.lines[1].text, "flash-attn==2.7.4");
  EXPECT_EQ(file.lines[1].line, 2u);
  const auto more = parse_ok(
      "a\fb\vc\x1c"
      "d\xc2\x85"
      "e\xe2\x80\xa8"
      "f\xe2\x80\xa9g\r\n\nh");
  ASSERT_EQ(more.lines.size(), 8u);
  EXPECT_EQ(more.lines[7].text, "h");
  EXPECT_EQ(more.lines[7].line, 9u);
  // A continuation joins across a lone CR as well.
  const auto joined = parse_ok("torch\\\r==2.6.0\r");
  ASSERT_EQ(joined.lines.size(), 1u);
  EXPECT_EQ(joined.lines[0].requirement->specifier.str(), "==2.6.0");
}

TEST(RequirementsFilePip, LegacySpecifiersPipReadsAreKeptLoosely) {
  const auto file =
      parse_ok("six>=1.0.*\nsix (>=1.0.*)\nsix>=\nsix[x] >= abc , <2 ; python_version > \"3\"\n");
  ASSERT_EQ(file.lines.size(), 4u);
  for (const auto& line : file.lines) {
    ASSERT_TRUE(line.requirement) << line.text;
    EXPECT_EQ(line.requirement->name, "six");
    EXPECT_TRUE(line.loose_specifier) << line.text;
    EXPECT_TRUE(line.requirement->specifier.empty());
  }
  EXPECT_EQ(file.lines[0].text, "six>=1.0.*");
  EXPECT_EQ(file.lines[3].requirement->extras, (std::vector<std::string>{"x"}));
  EXPECT_TRUE(file.lines[3].requirement->marker);
  EXPECT_FALSE(parse_ok("six>=1.0\n").lines.at(0).loose_specifier);

  // What pip refuses too.
  expect_error("six~=1.0.*\n", "r.txt:1", "");
  expect_error("six>=1.0.*,\n", "r.txt:1", "");
  expect_error("six>=1.0.*[x]\n", "r.txt:1", "");
  expect_error("six<=1.0-foo bar\n", "r.txt:1", "");
  expect_error("six>=1.0.*;python_version>>\"3\"\n", "r.txt:1", "bad marker");
}

TEST(RequirementsFilePip, AMarkerAfterAUrlNeedsNoSpaceBeforeTheSemicolon) {
  const auto file = parse_ok(
      "flash-attn @ https://x.example/flash_attn-2.6.3-cp311-cp311-linux_x86_64.whl; "
      "python_version>\"3.20\"\n"
      "six;\n");
  ASSERT_EQ(file.lines.size(), 2u);
  const auto& requirement = *file.lines[0].requirement;
  EXPECT_EQ(requirement.url, "https://x.example/flash_attn-2.6.3-cp311-cp311-linux_x86_64.whl");
  ASSERT_TRUE(requirement.marker);
  EXPECT_FALSE(file.lines[1].requirement->marker);
  expect_error("x @ https://h/a;b.whl ; os_name == 'posix'\n", "r.txt:1", "bad marker");
}

TEST(RequirementsFilePip, LongOptionsByUniquePrefix) {
  MapReader reader;
  reader.files["c.txt"] = "six\n";
  const auto file = parse_ok(
      // (--pypi-url, an --index-url, first: after it, it would drop the extra one)
      "--pypi-url https://p/s\n--extra-index https://e.example/simple\n--find=./w\n"
      "--con c.txt\n",
      reader);
  EXPECT_EQ(file.extra_index_urls, (std::vector<std::string>{"https://e.example/simple"}));
  EXPECT_EQ(file.find_links, (std::vector<std::string>{"./w"}));
  EXPECT_EQ(file.index_url, "https://p/s");
  EXPECT_TRUE(parse_ok("--no-i\n").no_index);
  ASSERT_EQ(file.lines.size(), 1u);
  EXPECT_TRUE(file.lines[0].constraint);
  EXPECT_EQ(parse_ok("--pre\n").passthrough.at(0).text, "--pre");

  expect_error("six\n--pr\n", "r.txt:2",
               "ambiguous option '--pr': it could be --pre, --prefer-binary");
  expect_error("--no- x\n", "r.txt:1", "--no-binary, --no-index");
  expect_error("--ext=u --frob\n", "r.txt:1", "unknown option '--frob'");
  expect_error("--\n", "r.txt:1", "'--'");
}

TEST(RequirementsFilePip, APathsExtrasAreStrippedAsPipDoes) {
  const std::string wheel =
      "./wh/flash_attn-2.6.3+cu123torch2.4cxx11abiTRUE-cp311-cp311-linux_x86_64.whl";
  const auto file =
      parse_ok(wheel +
               "[triton]\n"
               "flash_attn-2.6.3-cp311-cp311-linux_x86_64.whl[a,b] ; os_name == 'posix'\n"
               "https://x.example/flash_attn-2.6.3-cp311-cp311-linux_x86_64.whl[x]\n");
  ASSERT_EQ(file.lines.size(), 3u);
  EXPECT_EQ(file.lines[0].location, wheel);
  EXPECT_EQ(file.lines[0].extras, (std::vector<std::string>{"triton"}));
  EXPECT_EQ(file.lines[0].text, wheel + "[triton]");
  EXPECT_EQ(file.lines[1].location, "flash_attn-2.6.3-cp311-cp311-linux_x86_64.whl");
  EXPECT_EQ(file.lines[1].extras, (std::vector<std::string>{"a", "b"}));
  // pip does not strip a URL's: it asks for a file with that name.
  EXPECT_EQ(file.lines[2].location,
            "https://x.example/flash_attn-2.6.3-cp311-cp311-linux_x86_64.whl[x]");
  EXPECT_TRUE(file.lines[2].extras.empty());
  expect_error("./x.whl[a b]\n", "r.txt:1", "bad extras");
}

// pip 23.0.1's install_req_from_line on each (checked on Debian's pip): a
// name before '@' makes the line PEP 508 even without spaces, so a recipe
// package named with a source URL is a requirement of that package (not a
// location handed to pip, which would build it).
TEST(RequirementsFilePip, NameAtUrlWithoutSpacesIsARequirement) {
  const auto file = parse_ok(
      "flash-attn@git+https://github.com/Dao-AILab/flash-attention@v2.7.4\n"
      "flash-attn[x]@https://h/flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl\n"
      "mamba-ssm@https://h/v2.7.4.tar.gz\n"
      "git+https://github.com/x/y@v1#egg=causal-conv1d\n"
      "https://user@h/flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl\n"
      "./a@https://h/x.tar.gz\n");
  ASSERT_EQ(file.lines.size(), 6u);
  ASSERT_TRUE(file.lines[0].requirement) << file.lines[0].location.value_or("");
  EXPECT_EQ(file.lines[0].requirement->name, "flash-attn");
  EXPECT_EQ(file.lines[0].requirement->url,
            "git+https://github.com/Dao-AILab/flash-attention@v2.7.4");
  ASSERT_TRUE(file.lines[1].requirement) << file.lines[1].location.value_or("");
  EXPECT_EQ(file.lines[1].requirement->extras, std::vector<std::string>{"x"});
  ASSERT_TRUE(file.lines[2].requirement) << file.lines[2].location.value_or("");
  EXPECT_EQ(file.lines[2].requirement->url, "https://h/v2.7.4.tar.gz");
  // A URL of a known scheme, and a path before the '@', stay locations.
  EXPECT_EQ(file.lines[3].location, "git+https://github.com/x/y@v1#egg=causal-conv1d");
  EXPECT_EQ(file.lines[4].location, "https://user@h/flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl");
  EXPECT_EQ(file.lines[5].location, "./a@https://h/x.tar.gz");
  // Not a URL pip reads: the PEP 508 error, as pip's "Invalid requirement".
  MapReader reader;
  EXPECT_FALSE(parse("pkg@1.0.whl\n", reader));
  EXPECT_FALSE(parse("name@/abs/x.whl\n", reader));
}

// pip 23.0.1's handle_option_line (Debian's req_file.py): an --index-url
// line replaces the index URLs read before it, extra ones included; a line's
// own --extra-index-url is added after its --index-url; --no-index empties
// them and ends them.
TEST(RequirementsFilePip, AnIndexUrlLineReplacesTheExtraIndexesBeforeIt) {
  const auto file = parse_ok(
      "--extra-index-url https://x/simple\n"
      "--index-url https://y/simple\n"
      "--extra-index-url https://z/simple\n");
  EXPECT_EQ(file.index_url, "https://y/simple");
  EXPECT_EQ(file.extra_index_urls, std::vector<std::string>{"https://z/simple"});
  const auto one_line =
      parse_ok("--extra-index-url https://x/simple --index-url https://y/simple\n");
  EXPECT_EQ(one_line.index_url, "https://y/simple");
  EXPECT_EQ(one_line.extra_index_urls, std::vector<std::string>{"https://x/simple"});
  // --no-index empties the list, and no index line after it is taken.
  const auto none = parse_ok(
      "--extra-index-url https://x/simple\n--no-index\n--index-url https://y/simple\n"
      "--extra-index-url https://z/simple\n");
  EXPECT_TRUE(none.no_index);
  EXPECT_FALSE(none.index_url);
  EXPECT_TRUE(none.extra_index_urls.empty());
}

}  // namespace
}  // namespace flashfit::pkg
