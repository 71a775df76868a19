// lock --resolver uv: which resolver, uv's argv, and uv's pylock.toml read
// back as the one file per package this interpreter installs.
#include "workflow/uv_compile.hpp"

#include <gtest/gtest.h>

#include <string>

namespace flashfit::workflow {
namespace {

const std::string kA(64, 'a');
const std::string kB(64, 'b');
const std::string kC(64, 'c');

pkg::SupportedTags cp311_linux() {
  return pkg::SupportedTags({{"cp311", "cp311", "manylinux_2_17_x86_64"},
                             {"cp311", "abi3", "manylinux_2_17_x86_64"},
                             {"py3", "none", "any"}});
}

std::string lock_with(const std::string& packages) {
  return "lock-version = \"1.0\"\ncreated-by = \"uv\"\nrequires-python = \">=3.11\"\n\n" + packages;
}

TEST(UvCompile, ChoosesTheResolver) {
  EXPECT_EQ(choose_line_resolver(std::nullopt, true), LineResolver::uv);
  EXPECT_EQ(choose_line_resolver(std::nullopt, false), LineResolver::pip);
  EXPECT_EQ(choose_line_resolver("pip", true), LineResolver::pip);
  EXPECT_EQ(choose_line_resolver("uv", true), LineResolver::uv);
  auto absent = choose_line_resolver("uv", false);
  ASSERT_FALSE(absent);
  EXPECT_EQ(absent.error().kind, util::ErrorKind::usage);
  EXPECT_NE(absent.error().message.find("uv is not on PATH"), std::string::npos);
  auto unknown = choose_line_resolver("poetry", true);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().kind, util::ErrorKind::usage);
  EXPECT_NE(unknown.error().message.find("unknown resolver 'poetry'"), std::string::npos);
}

TEST(UvCompile, ArgvAsksForAPylockOfThisInterpreter) {
  EXPECT_EQ(uv_compile_argv("/bin/uv", "/v/bin/python", "/t/req.txt", "/t/pylock.uv.toml"),
            (std::vector<std::string>{"/bin/uv", "pip", "compile", "--python", "/v/bin/python",
                                      "--format", "pylock.toml", "--quiet", "--no-progress", "-o",
                                      "/t/pylock.uv.toml", "/t/req.txt"}));
  // The torch hold goes in as a constraints file.
  EXPECT_EQ(
      uv_compile_argv("/bin/uv", "/v/bin/python", "/t/req.txt", "/t/pylock.uv.toml", "/t/pins.txt"),
      (std::vector<std::string>{"/bin/uv", "pip", "compile", "--python", "/v/bin/python",
                                "--format", "pylock.toml", "--quiet", "--no-progress", "-o",
                                "/t/pylock.uv.toml", "/t/req.txt", "-c", "/t/pins.txt"}));
}

TEST(UvCompile, TheWheelThisInterpreterRanksBest) {
  const std::string text = lock_with(
      "[[packages]]\nname = \"numpy\"\nversion = \"2.1.0\"\n"
      "sdist = { url = \"https://h/numpy-2.1.0.tar.gz\", hashes = { sha256 = \"" +
      kC +
      "\" } }\n"
      "wheels = [\n"
      "  { url = \"https://h/numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl\", hashes = { "
      "sha256 = \"" +
      kA +
      "\" } },\n"
      "  { name = \"numpy-2.1.0-cp311-abi3-manylinux_2_17_x86_64.whl\", url = \"https://h/x\", "
      "hashes = { sha256 = \"" +
      kB +
      "\" } },\n"
      "  { url = \"https://h/numpy-2.1.0-cp311-cp311-manylinux_2_17_x86_64.whl\", hashes = { "
      "sha256 = \"" +
      kA +
      "\" } },\n"
      "]\n"
      "[[packages]]\nname = \"pure\"\nversion = \"1.0\"\n"
      "sdist = { url = \"https://h/pure-1.0.tar.gz\", hashes = { sha256 = \"" +
      kC +
      "\" } }\n"
      "[[packages]]\nname = \"plain\"\nversion = \"3\"\n"
      "wheels = [{ url = \"file:///w/plain-3-py3-none-any.whl\" }]\n");
  auto parsed = parse_uv_resolution(text, "uv's pylock.toml", cp311_linux());
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 3u);
  EXPECT_EQ((*parsed)[0].name, "numpy");
  EXPECT_EQ((*parsed)[0].version, "2.1.0");
  EXPECT_EQ((*parsed)[0].url, "https://h/numpy-2.1.0-cp311-cp311-manylinux_2_17_x86_64.whl");
  EXPECT_EQ((*parsed)[0].sha256, kA);
  EXPECT_EQ((*parsed)[1].url, "https://h/pure-1.0.tar.gz");  // no wheel: the sdist
  EXPECT_EQ((*parsed)[1].sha256, kC);
  EXPECT_EQ((*parsed)[2].url, "file:///w/plain-3-py3-none-any.whl");
  EXPECT_EQ((*parsed)[2].sha256, "");  // no hash from uv: the caller warns
}

TEST(UvCompile, TheWheelNamedByItsNameKey) {
  // `name` wins over a URL that names no wheel.
  const std::string text = lock_with(
      "[[packages]]\nname = \"n\"\nversion = \"1\"\nwheels = [\n"
      "  { url = \"https://h/n-1-cp312-cp312-linux_x86_64.whl\", hashes = { sha256 = \"" +
      kA +
      "\" } },\n"
      "  { name = \"n-1-py3-none-any.whl\", url = \"https://h/get?id=2\", hashes = { sha256 = \"" +
      kB + "\" } },\n]\n");
  auto parsed = parse_uv_resolution(text, "uv", cp311_linux());
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->front().url, "https://h/get?id=2");
  EXPECT_EQ(parsed->front().sha256, kB);
}

TEST(UvCompile, BadInputIsRefused) {
  const pkg::SupportedTags tags = cp311_linux();
  struct Case {
    const char* what;
    std::string text;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"bad TOML", "lock-version = \"1.0\n", "invalid TOML at line 1"},
      {"lock-version 2", "lock-version = \"2.0\"\n",
       "lock-version: '2.0' (this flashfit reads 1.x)"},
      {"no lock-version", "created-by = \"uv\"\n", "lock-version: 'missing'"},
      {"no name", lock_with("[[packages]]\nversion = \"1\"\n"), "packages[0].name: missing"},
      {"no version", lock_with("[[packages]]\nname = \"n\"\n"), "packages[0].version: missing"},
      {"nothing fits",
       lock_with("[[packages]]\nname = \"n\"\nversion = \"1\"\nwheels = [{ url = "
                 "\"https://h/n-1-cp312-cp312-win_amd64.whl\" }]\n"),
       "packages[0]: n 1: none of uv's 1 files installs on this interpreter"},
      {"a marker",
       lock_with("[[packages]]\nname = \"n\"\nversion = \"1\"\nmarker = \"sys_platform == "
                 "'win32'\"\n"),
       "packages[0].marker: a marker"},
      {"a directory",
       lock_with("[[packages]]\nname = \"n\"\nversion = \"1\"\ndirectory = { path = \".\" }\n"),
       "a vcs or directory source"},
      {"a bad hash",
       lock_with(
           "[[packages]]\nname = \"n\"\nversion = \"1\"\nsdist = { url = \"https://h/n.tar.gz\", "
           "hashes = { sha256 = \"xyz\" } }\n"),
       "packages[0].sdist.hashes.sha256: 'xyz' is not 64 hex digits"},
      {"no url",
       lock_with("[[packages]]\nname = \"n\"\nversion = \"1\"\nsdist = { path = \"n.tar.gz\" }\n"),
       "packages[0].sdist.url: missing"},
  };
  for (const Case& c : cases) {
    auto parsed = parse_uv_resolution(c.text, "uv's pylock.toml", tags);
    ASSERT_FALSE(parsed) << c.what;
    EXPECT_EQ(parsed.error().kind, util::ErrorKind::input) << c.what;
    EXPECT_NE(parsed.error().message.find(c.expected), std::string::npos)
        << c.what << ": " << parsed.error().message;
  }
}

// pip refuses a vcs or directory source too (workflow/pip_report): the hint
// says what works instead of sending the user to it.
TEST(UvCompile, AVcsSourceIsRefusedWithAHintThatWorks) {
  auto parsed = parse_uv_resolution(
      lock_with("[[packages]]\nname = \"n\"\nversion = \"1\"\n"
                "vcs = { type = \"git\", url = \"https://h/n.git\", commit-id = \"abc\" }\n"),
      "uv's pylock.toml", cp311_linux());
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().message.find("n: a vcs or directory source"), std::string::npos)
      << parsed.error().message;
  EXPECT_EQ(parsed.error().hint, kNoFileToLockHint);
  EXPECT_EQ(parsed.error().hint.find("--resolver pip"), std::string::npos);
}

}  // namespace
}  // namespace flashfit::workflow
