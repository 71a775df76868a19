// pip's requirements-file format: what parses, and hostile input that must
// fail with the file and line named.
#include "pkg/requirements_file.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "../memory_files.hpp"

namespace flashfit::pkg {
namespace {

using MapReader = testing::MemoryFiles;

const std::string sha = std::string(64, 'a');

TEST(RequirementsFile, ParsesTheCommonForms) {
  MapReader reader;
  reader.files["dir/base.txt"] = "numpy>=1.24  # trailing comment\n";
  const std::string text =
      "# a comment\n"
      "--index-url https://pypi.example/simple\n"
      "--extra-index-url=https://extra.example/simple\n"
      "-f ./wheels\n"
      "-r base.txt\n"
      "requests[socks] >=2 ; python_version >= \"3.8\" --hash=sha256:" +
      sha +
      "\n"
      "flash-attn @ https://host/flash_attn-2.8.3-cp310-cp310-linux_x86_64.whl\n"
      "./local/pkg-1.0.tar.gz\n"
      "torch\\\n"
      "==2.6.0\n";
  auto parsed = parse_requirements_file(text, "dir/req.txt", reader);
  ASSERT_TRUE(parsed) << parsed.error().context << ": " << parsed.error().message;
  EXPECT_EQ(parsed->index_url, "https://pypi.example/simple");
  ASSERT_EQ(parsed->extra_index_urls.size(), 1u);
  ASSERT_EQ(parsed->find_links.size(), 1u);
  ASSERT_EQ(parsed->lines.size(), 5u);
  EXPECT_EQ(parsed->lines[0].file, "dir/base.txt");
  EXPECT_EQ(parsed->lines[0].requirement->name, "numpy");
  EXPECT_EQ(parsed->lines[1].requirement->name, "requests");
  EXPECT_TRUE(parsed->lines[1].requirement->marker.has_value());
  ASSERT_EQ(parsed->lines[1].hashes.size(), 1u);
  EXPECT_EQ(parsed->lines[1].hashes[0], "sha256:" + sha);
  EXPECT_EQ(parsed->lines[2].requirement->url,
            "https://host/flash_attn-2.8.3-cp310-cp310-linux_x86_64.whl");
  EXPECT_EQ(parsed->lines[3].location, "./local/pkg-1.0.tar.gz");
  EXPECT_EQ(parsed->lines[4].requirement->specifier.str(), "==2.6.0");
  EXPECT_EQ(parsed->lines[4].line, 9u);
}

TEST(RequirementsFile, PassthroughOptionsKeepTheOptionsFlashfitDoesNotRead) {
  MapReader reader;
  auto parsed = parse_requirements_file("--pre --no-index\n--trusted-host h\n", "r.txt", reader);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->passthrough.size(), 2u);
  EXPECT_EQ(parsed->passthrough[0].text, "--pre");
  EXPECT_EQ(parsed->passthrough[1].text, "--trusted-host=h");
  EXPECT_EQ(parsed->passthrough[1].line, 2u);
  EXPECT_TRUE(parsed->no_index);
}

TEST(RequirementsFile, ConstraintsAreMarked) {
  MapReader reader;
  reader.files["c.txt"] = "torch==2.6.0\n";
  auto parsed = parse_requirements_file("-c c.txt\nnumpy\n", "r.txt", reader);
  ASSERT_TRUE(parsed);
  ASSERT_EQ(parsed->lines.size(), 2u);
  EXPECT_TRUE(parsed->lines[0].constraint);
  EXPECT_FALSE(parsed->lines[1].constraint);
}

struct Bad {
  std::string text;
  std::string context;
  std::string message_part;
};

TEST(RequirementsFile, HostileInputNamesFileAndLine) {
  const Bad cases[] = {
      {"numpy\n--frobnicate\n", "r.txt:2", "unknown option"},
      {"x; python_version >>> \"3\"\n", "r.txt:1", ""},
      {"numpy\ntorch \\\n", "r.txt:2", "unterminated"},
      {"-r missing.txt\n", "r.txt:1", "cannot read included file 'missing.txt'"},
      {"-r r.txt\n", "r.txt:1", "include loop"},
      {"x --hash=sha256:abc\n", "r.txt:1", "malformed hash"},
      {"x --hash=md5:" + std::string(32, '0') + "\n", "r.txt:1", "malformed hash"},
      {"x --hash=sha256:" + std::string(63, 'g') + "g\n", "r.txt:1", "malformed hash"},
      {"--hash=sha256:" + sha + "\n", "r.txt:1", "belongs after a requirement"},
      {"-r\n", "r.txt:1", "needs a value"},
      {"--no-index=yes\n", "r.txt:1", "takes no value"},
      {"./w.whl ; os_name ==\n", "r.txt:1", "bad marker"},
      {std::string("ok\nnum\0py\n", 10), "r.txt:2", "NUL"},
      {"numpy -r other.txt\n", "r.txt:1", "cannot follow a requirement"},
  };
  for (const auto& bad : cases) {
    MapReader reader;
    reader.files["r.txt"] = bad.text;
    auto parsed = parse_requirements_file(bad.text, "r.txt", reader);
    ASSERT_FALSE(parsed) << bad.text;
    EXPECT_EQ(parsed.error().context, bad.context) << bad.text;
    EXPECT_NE(parsed.error().message.find(bad.message_part), std::string::npos)
        << bad.text << " -> " << parsed.error().message;
  }
}

TEST(RequirementsFile, IndirectIncludeLoopIsCaught) {
  MapReader reader;
  reader.files["a.txt"] = "-r b.txt\n";
  reader.files["b.txt"] = "x\n-r a.txt\n";
  auto parsed = parse_requirements_file(reader.files["a.txt"], "a.txt", reader);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().context, "b.txt:2");
}

TEST(RequirementsFile, CommentEndsContinuationAndCrlfIsAccepted) {
  MapReader reader;
  auto parsed = parse_requirements_file("a\\\r\n# note\r\nb==1\r\n", "r.txt", reader);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->lines.size(), 2u);
  EXPECT_EQ(parsed->lines[0].requirement->name, "a");
  EXPECT_EQ(parsed->lines[1].line, 3u);
}

}  // namespace
}  // namespace flashfit::pkg
