// flashfit lock --format pylock: the PEP 751 text rendered (keys, markers,
// the file kinds, the environment key under [tool.flashfit]), read back
// whole, and bad input refused with the key path and line.
#include "workflow/pylock.hpp"

#include <gtest/gtest.h>

#include <string>

#include "workflow/lock_index.hpp"

namespace flashfit::workflow {
namespace {

const std::string kHashA(64, 'a');
const std::string kHashB(64, 'b');

LockKey cuda_key() {
  return {"cp311", "manylinux_2_36_x86_64", "2.8.0+cu128", "12.8", "true", "sm_80,sm_90"};
}

LockDocument document() {
  LockDocument d;
  d.key = cuda_key();
  d.flashfit.push_back({"flash-attn", "2.8.3+cu12torch2.8cxx11abiTRUE",
                        "https://h/flash_attn-2.8.3%2Bcu12torch2.8cxx11abiTRUE-cp311-cp311-linux_"
                        "x86_64.whl",
                        kHashA, "flashfit's pick from team, for requirements.txt:4"});
  d.installer.push_back(
      {"numpy", "2.1.0", "https://h/numpy-2.1.0-cp311-cp311-any.whl", kHashB, "pip's resolution"});
  d.notes.push_back("a \"quoted\" note\\");
  return d;
}

std::string rendered(const LockDocument& d) {
  auto text = render_pylock(d);
  EXPECT_TRUE(text) << text.error().message;
  return text ? *text : std::string();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Pylock, TopLevelKeysForThisEnvironment) {
  const std::string text = rendered(document());
  EXPECT_TRUE(has(text, "\nlock-version = \"1.0\"\n")) << text;
  EXPECT_TRUE(has(text, "\ncreated-by = \"flashfit\"\n")) << text;
  EXPECT_TRUE(has(text, "\nrequires-python = \"==3.11.*\"\n")) << text;
  EXPECT_TRUE(has(text,
                  "\nenvironments = [\"implementation_name == \\\"cpython\\\" and python_version "
                  "== \\\"3.11\\\" and sys_platform == \\\"linux\\\" and platform_machine == "
                  "\\\"x86_64\\\"\"]\n"))
      << text;
  // The key for people (a comment) and for tools ([tool.flashfit.environment]).
  EXPECT_TRUE(has(text, "#   torch: 2.8.0+cu128\n")) << text;
  EXPECT_TRUE(has(text, "\n[tool.flashfit.environment]\npython = \"cp311\"\n")) << text;
  EXPECT_TRUE(has(text, "\ngpu-archs = \"sm_80,sm_90\"\n")) << text;
  EXPECT_TRUE(has(text, "notes = [\"a \\\"quoted\\\" note\\\\\"]")) << text;
}

TEST(Pylock, EachPackageItsOneFileWithItsHash) {
  const std::string text = rendered(document());
  EXPECT_TRUE(has(text,
                  "[[packages]]\nname = \"flash-attn\"\nversion = "
                  "\"2.8.3+cu12torch2.8cxx11abiTRUE\"\nwheels = [{ name = "
                  "\"flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp311-cp311-linux_x86_64.whl\", "
                  "url = \"https://h/flash_attn-2.8.3%2Bcu12torch2.8cxx11abiTRUE-cp311-cp311-"
                  "linux_x86_64.whl\", hashes = { sha256 = \"" +
                      kHashA + "\" } }]\n[packages.tool.flashfit]\npicked-by = \"flashfit\"\n"))
      << text;
  EXPECT_TRUE(has(text, "picked-by = \"installer\"")) << text;
  // The compiled packages come first, as in the requirements format.
  EXPECT_LT(text.find("flash-attn"), text.find("numpy")) << text;
}

TEST(Pylock, SdistAndArchiveWhereThePickIsNotAWheel) {
  LockDocument d;
  d.key = cuda_key();
  d.installer.push_back({"pure", "1.0", "https://h/pure-1.0.tar.gz", kHashA, "pip"});
  d.installer.push_back({"odd", "2.0", "https://h/get?id=7", kHashB, "pip"});
  const std::string text = rendered(d);
  EXPECT_TRUE(
      has(text, "sdist = { name = \"pure-1.0.tar.gz\", url = \"https://h/pure-1.0.tar.gz\""))
      << text;
  EXPECT_TRUE(
      has(text, "archive = { url = \"https://h/get?id=7\", hashes = { sha256 = \"" + kHashB))
      << text;
  auto back = parse_pylock(text, "pylock.toml");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->document.installer.at(1).url, "https://h/get?id=7");
}

TEST(Pylock, NoHashIsAnErrorNamingTheFile) {
  LockDocument d = document();
  d.installer.front().sha256.reset();
  auto text = render_pylock(d);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().kind, util::ErrorKind::failed);
  EXPECT_TRUE(has(text.error().message, "numpy 2.1.0")) << text.error().message;
  EXPECT_TRUE(has(text.error().message, "PEP 751 requires a hash")) << text.error().message;
  EXPECT_TRUE(has(text.error().hint, "--format requirements")) << text.error().hint;
}

TEST(Pylock, MarkersSayOnlyWhatTheKeyKnows) {
  EXPECT_EQ(pylock_environment_marker(LockKey{}), std::nullopt);
  EXPECT_EQ(pylock_requires_python(LockKey{}), std::nullopt);
  LockKey key;
  key.platform = "musllinux_1_2_aarch64";
  EXPECT_EQ(pylock_environment_marker(key),
            "sys_platform == \"linux\" and platform_machine == \"aarch64\"");
  key.platform = "manylinux2014_x86_64";
  EXPECT_EQ(pylock_environment_marker(key),
            "sys_platform == \"linux\" and platform_machine == \"x86_64\"");
  key.platform = "macosx_14_0_universal2";
  EXPECT_EQ(pylock_environment_marker(key), "sys_platform == \"darwin\"");
  key.platform = "win_amd64";  // not mapped: left out, not guessed
  key.python = "pp310";
  EXPECT_EQ(pylock_environment_marker(key),
            "implementation_name == \"pypy\" and python_version == \"3.10\"");
  EXPECT_EQ(pylock_requires_python(key), "==3.10.*");
  // Free-threaded: PEP 508 cannot say the flag, the version it can.
  key.python = "cp313t";
  EXPECT_EQ(pylock_environment_marker(key),
            "implementation_name == \"cpython\" and python_version == \"3.13\"");
  EXPECT_EQ(pylock_requires_python(key), "==3.13.*");
  key.python = "pp310t";
  EXPECT_EQ(pylock_environment_marker(key), std::nullopt);
  key.python = "py3";
  EXPECT_EQ(pylock_environment_marker(key), std::nullopt);
  // Unknown facts: no environments key at all, the key still complete.
  LockDocument d = document();
  d.key = LockKey{};
  const std::string text = rendered(d);
  EXPECT_FALSE(has(text, "environments =")) << text;
  EXPECT_FALSE(has(text, "requires-python =")) << text;
  EXPECT_TRUE(has(text, "torch = \"unknown\"")) << text;
}

TEST(Pylock, ReadBackWhole) {
  const LockDocument d = document();
  auto back = parse_pylock(rendered(d), "/locks/pylock.toml");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->document.key, d.key);
  EXPECT_EQ(back->document.notes, d.notes);
  ASSERT_EQ(back->document.flashfit.size(), 1u);
  ASSERT_EQ(back->document.installer.size(), 1u);
  const LockedLine& fa = back->document.flashfit.front();
  EXPECT_EQ(fa.name, "flash-attn");
  EXPECT_EQ(fa.version, "2.8.3+cu12torch2.8cxx11abiTRUE");
  EXPECT_EQ(fa.url, d.flashfit.front().url);
  EXPECT_EQ(fa.sha256, kHashA);
  EXPECT_EQ(fa.origin, "flashfit");
  EXPECT_EQ(back->document.installer.front().sha256, kHashB);
  EXPECT_EQ(back->document.installer.front().origin, "installer");
  EXPECT_TRUE(has(back->flashfit_where.front(), "/locks/pylock.toml:")) << back->flashfit_where[0];
  // Unknown facts come back unknown.
  LockDocument unknown = d;
  unknown.key = LockKey{};
  unknown.key.torch = "none";
  auto again = parse_pylock(rendered(unknown), "pylock.toml");
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->document.key, unknown.key);
}

TEST(Pylock, TheFileNameDecidesTheFormat) {
  EXPECT_TRUE(is_pylock_name("pylock.toml"));
  EXPECT_TRUE(is_pylock_name("pylock.cp311-linux.toml"));
  EXPECT_FALSE(is_pylock_name("pylock.a.b.toml"));  // PEP 751: no '.' in the name
  EXPECT_FALSE(is_pylock_name("pylock..toml"));
  EXPECT_FALSE(is_pylock_name("lock.toml"));
  EXPECT_FALSE(is_pylock_name("requirements-cp311.txt"));
  const std::string text = rendered(document());
  EXPECT_TRUE(parse_lock_by_name(text, "/x/pylock.toml"));
  auto as_requirements = parse_lock_by_name(text, "/x/lock.txt");
  ASSERT_FALSE(as_requirements);
  EXPECT_TRUE(has(as_requirements.error().message, "not a flashfit lock"));
}

TEST(Pylock, DirectoryNamesFollowPep751) {
  const std::string name = lock_file_name(cuda_key(), LockFormat::pylock);
  EXPECT_EQ(
      name,
      "pylock.cp311-manylinux_2_36_x86_64-torch2_8_0_cu128-cuda12_8-abitrue-gpusm_80_sm_90.toml");
  EXPECT_TRUE(is_pylock_name(name));
  EXPECT_EQ(lock_file_name(LockKey{}, LockFormat::pylock),
            "pylock.unknown-unknown-torchunknown-cudaunknown-abiunknown-gpuunknown.toml");
  // The index takes either format's names, nothing else.
  const std::string index = render_lock_index({{cuda_key(), name}});
  auto parsed = parse_lock_index(index, "flashfit-locks.json");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->front().file, name);
  std::string other = index;
  other.replace(other.find(name), name.size(), "pylock.a.b.toml");
  EXPECT_FALSE(parse_lock_index(other, "flashfit-locks.json"));
}

// Each bad input: an input error whose message names the key path (and line).
struct BadCase {
  const char* what;
  std::string text;
  std::string expected;
};

std::string with(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Found by the pylock fuzz harness: "%c1" decodes to a byte no TOML string
// holds, so a pylock naming such a file was read but written back unreadable.
TEST(Pylock, AFileNameThatIsNotUtf8IsRefusedBothWays) {
  LockDocument d = document();
  d.installer.front().url = "https://h/numpy-2.1.0%c1-cp311-cp311-any.whl";
  auto text = render_pylock(d);
  ASSERT_FALSE(text);
  EXPECT_TRUE(has(text.error().message, "not UTF-8 once percent-decoded")) << text.error().message;
  const std::string good = rendered(document());
  const std::string bad =
      with(good, "https://h/numpy-2.1.0-cp311", "https://h/numpy-2.1.0%c1-cp311");
  auto back = parse_pylock(bad, "pylock.toml");
  ASSERT_FALSE(back);
  EXPECT_TRUE(has(back.error().message, "not UTF-8 once percent-decoded")) << back.error().message;
}

// A note or origin read from another file may hold a newline: the comment
// lines that show them stay one line each, and the file reads back.
TEST(Pylock, CommentsStayOneLine) {
  LockDocument d = document();
  d.notes.push_back("two\nlines = 1");
  d.installer.front().origin = "pip\n[[packages]]";
  auto back = parse_pylock(rendered(d), "pylock.toml");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->document.installer.size(), 1u);
}

TEST(Pylock, BadInputIsRefusedClearly) {
  const std::string good = rendered(document());
  const std::string hashes = "hashes = { sha256 = \"" + kHashB + "\" }";
  const std::vector<BadCase> cases = {
      {"bad TOML", "lock-version = \"1.0\n", "invalid TOML at line 1"},
      {"NUL bytes", std::string("lock-version = \"1.0\"\n\0", 22), "NUL byte"},
      {"lock-version 2", with(good, "lock-version = \"1.0\"", "lock-version = \"2.0\""),
       "lock-version: unknown version '2.0' (this flashfit reads 1.x)"},
      {"lock-version a number", with(good, "lock-version = \"1.0\"", "lock-version = 1.0"),
       "lock-version: expected a string"},
      {"no lock-version", with(good, "lock-version = \"1.0\"\n", ""), "lock-version: missing"},
      {"missing hashes", with(good, ", " + hashes, ""),
       "packages[1].wheels[0].hashes: missing: PEP 751 requires"},
      {"no sha256", with(good, hashes, "hashes = { md5 = \"00\" }"),
       "packages[1].wheels[0].hashes.sha256: missing"},
      {"a short sha256", with(good, kHashB, "abc"), "is not 64 hex digits"},
      {"a non-hex sha256", with(good, kHashB, std::string(64, 'g')), "is not 64 hex digits"},
      {"another tool's file",
       "lock-version = \"1.0\"\ncreated-by = \"uv\"\n[[packages]]\nname = \"x\"\n",
       "tool.flashfit: missing: this pylock.toml holds no flashfit environment key"},
      {"another lock-format", with(good, "lock-format = 1", "lock-format = 2"),
       "tool.flashfit.lock-format: unknown format 2"},
      {"a fact missing", with(good, "\ncuda = \"12.8\"", ""),
       "tool.flashfit.environment.cuda: missing"},
      {"an unknown fact", with(good, "\ncuda = \"12.8\"", "\ncuda = \"12.8\"\nrocm = \"6\""),
       "unknown fact 'rocm'"},
      {"a hostile fact", with(good, "torch = \"2.8.0+cu128\"", "torch = \"2.8;rm -rf\""),
       "tool.flashfit.environment.torch: 'torch' has a malformed value"},
      {"no packages",
       "lock-version = \"1.0\"\ncreated-by = \"flashfit\"\n" +
           good.substr(good.find("[tool.flashfit]")),
       "packages: missing"},
      {"a package twice", with(good, "name = \"numpy\"", "name = \"Flash_Attn\""),
       "packages[1]: Flash_Attn is locked twice"},
      {"no name", with(good, "name = \"numpy\"\n", ""), "packages[1].name: missing"},
      {"two wheels",
       with(good, "hashes = { sha256 = \"" + kHashB + "\" } }]",
            "hashes = { sha256 = \"" + kHashB + "\" } }, { url = \"https://h/b.whl\", " + hashes +
                " }]"),
       "packages[1].wheels: 2 wheels: flashfit locks one file per package"},
      {"a vcs source",
       with(good, "version = \"2.1.0\"", "version = \"2.1.0\"\nvcs = { type = \"git\" }"),
       "a vcs or directory source"},
      {"a path, no url",
       with(good, "url = \"https://h/numpy-2.1.0-cp311-cp311-any.whl\"", "path = \"numpy.whl\""),
       "packages[1].wheels[0].path: a local path"},
      {"an ftp url", with(good, "https://h/numpy", "ftp://h/numpy"),
       "is not an http(s):// or file:// URL"},
      {"no section", with(good, "picked-by = \"installer\"", "picked-by = \"someone\""),
       "packages[1].tool.flashfit.picked-by: missing or not"},
  };
  for (const BadCase& c : cases) {
    auto parsed = parse_pylock(c.text, "pylock.bad.toml");
    ASSERT_FALSE(parsed) << c.what;
    EXPECT_EQ(parsed.error().kind, util::ErrorKind::input) << c.what;
    EXPECT_EQ(parsed.error().context, "pylock.bad.toml") << c.what;
    EXPECT_TRUE(has(parsed.error().message, c.expected))
        << c.what << ": " << parsed.error().message;
  }
}

TEST(Pylock, ErrorsNameTheLine) {
  const std::string good = rendered(document());
  auto parsed = parse_pylock(with(good, kHashB, "abc"), "pylock.toml");
  ASSERT_FALSE(parsed);
  EXPECT_TRUE(has(parsed.error().message, "(line ")) << parsed.error().message;
}

}  // namespace
}  // namespace flashfit::workflow
