#include "env/interpreter_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../temp_dir.hpp"
#include "env/interpreter.hpp"
#include "util/atomic_file.hpp"

namespace fs = std::filesystem;
using namespace flashfit::env;
using flashfit::test::TempDir;

namespace {

void write_file(const fs::path& p, const std::string& text, bool executable = false) {
  std::ofstream(p) << text;
  if (executable) fs::permissions(p, fs::perms::owner_all, fs::perm_options::add);
}

int count_lines(const fs::path& p) {
  std::ifstream in(p);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// A fake interpreter: prints a fixed, valid answer and logs each run.
std::string fake_interpreter(const fs::path& log, const std::string& micro) {
  return "#!/bin/sh\necho run >> '" + log.string() + "'\ncat <<'EOF'\n{\"version_info\": [3, 11, " +
         micro +
         ", \"final\", 0], \"implementation\": \"cpython\", \"sysconfig_platform\": "
         "\"linux-x86_64\", \"glibc\": \"2.36\"}\nEOF\n";
}

}  // namespace

TEST(InterpreterCache, StampOfARealInterpreterKeysOnThePathAsInvokedAndTheFileItResolvesTo) {
  auto stamp = stamp_interpreter("/usr/bin/python3");
  ASSERT_TRUE(stamp);
  EXPECT_EQ(stamp->program, "/usr/bin/python3");
  EXPECT_NE(stamp->resolved, stamp->program) << "Debian's python3 is a symlink";
  EXPECT_GT(stamp->size, 0u);
  EXPECT_GT(stamp->inode, 0u);
  EXPECT_FALSE(stamp_interpreter("/nonexistent/python3"));
}

TEST(InterpreterCache, RoundTripAndMissesOnAnyChange) {
  TempDir dir;
  InterpreterCache cache(dir.path());
  auto stamp = *stamp_interpreter("/usr/bin/python3");
  EXPECT_FALSE(cache.load(stamp));
  cache.store(stamp, "{\"answer\": 1}");
  EXPECT_EQ(cache.load(stamp), "{\"answer\": 1}");
  EXPECT_TRUE(fs::exists(dir.path() / "CACHEDIR.TAG"));

  for (auto change :
       {+[](InterpreterStamp& s) { s.mtime_ns += 1; }, +[](InterpreterStamp& s) { s.size += 1; },
        +[](InterpreterStamp& s) { s.inode += 1; }, +[](InterpreterStamp& s) { s.resolved += "x"; },
        +[](InterpreterStamp& s) { s.environment += "x"; },
        +[](InterpreterStamp& s) { s.script_version += 1; }}) {
    auto changed = stamp;
    change(changed);
    EXPECT_FALSE(cache.load(changed));
  }
}

TEST(InterpreterCache, AStoreDropsEntriesOlderFlashfitNamedBySha256) {
  TempDir dir;
  InterpreterCache cache(dir.path());
  const fs::path entries = dir.path() / "interpreters";
  fs::create_directories(entries);
  const std::string old_name(64, 'a');
  std::ofstream(entries / (old_name + ".json")) << "{}";
  std::ofstream(entries / "notes.json") << "{}";                      // not an entry name: kept
  std::ofstream(entries / (old_name + ".tmp")) << "{}";               // not .json: kept
  std::ofstream(entries / (std::string(64, 'G') + ".json")) << "{}";  // not hex: kept
  auto stamp = *stamp_interpreter("/usr/bin/python3");
  cache.store(stamp, "{\"answer\": 1}");
  EXPECT_EQ(cache.load(stamp), "{\"answer\": 1}");
  EXPECT_FALSE(fs::exists(entries / (old_name + ".json")));
  EXPECT_TRUE(fs::exists(entries / "notes.json"));
  EXPECT_TRUE(fs::exists(entries / (old_name + ".tmp")));
  EXPECT_TRUE(fs::exists(entries / (std::string(64, 'G') + ".json")));
}

TEST(InterpreterCache, CorruptOrForeignEntriesAreMisses) {
  TempDir dir;
  InterpreterCache cache(dir.path());
  auto stamp = *stamp_interpreter("/usr/bin/python3");
  cache.store(stamp, "{}");
  const auto entry = cache.entry_path(stamp);
  for (const std::string& garbage :
       {std::string(""), std::string("{"), std::string("[]"), std::string("{\"stamp\": 1}"),
        std::string("{\"stamp\": {}, \"answer\": \"{}\"}"), std::string("\x00\xff", 2),
        std::string(5 << 20, 'x')}) {
    ASSERT_TRUE(flashfit::util::write_file_atomic(entry, garbage));
    EXPECT_FALSE(cache.load(stamp)) << garbage.substr(0, 40);
  }
}

TEST(InterpreterCache, UnwritableCacheCostsOnlySpeed) {
  TempDir dir;
  write_file(dir.path() / "blocker", "a file where the cache dir should be");
  InterpreterCache cache(dir.path() / "blocker");
  auto stamp = *stamp_interpreter("/usr/bin/python3");
  cache.store(stamp, "{}");  // must not throw or crash
  EXPECT_FALSE(cache.load(stamp));
}

TEST(InterpreterCache, QueryReusesTheAnswerUntilTheInterpreterChanges) {
  TempDir dir;
  // A private copy of the real interpreter, so the test can "upgrade" it in place.
  const auto python = dir.path() / "python3";
  fs::copy_file(fs::canonical("/usr/bin/python3"), python);
  fs::permissions(python, fs::perms::owner_all, fs::perm_options::add);
  InterpreterCache cache(dir.path() / "cache");
  const InterpreterChoice choice{python.string(), "--python"};

  auto first = query_interpreter(choice, &cache);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE(first->from_cache);
  auto second = query_interpreter(choice, &cache);
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->from_cache);
  EXPECT_EQ(second->version_str(), first->version_str());
  EXPECT_EQ(second->tag_facts.glibc, first->tag_facts.glibc);

  // An upgrade in place (new size and mtime) invalidates the entry. Bytes after
  // the last ELF section leave the program working.
  std::ofstream(python, std::ios::app) << "upgrade";
  auto third = query_interpreter(choice, &cache);
  ASSERT_TRUE(third) << third.error().message;
  EXPECT_FALSE(third->from_cache);

  // Without a cache every query runs the interpreter.
  auto uncached = query_interpreter(choice);
  ASSERT_TRUE(uncached);
  EXPECT_FALSE(uncached->from_cache);
}

TEST(InterpreterCache, ScriptsAreAskedEveryTime) {
  // A pyenv shim or wrapper chooses its interpreter at run time: caching on the
  // script's own file would serve another Python's facts after `pyenv local`.
  TempDir dir;
  const auto log = dir.path() / "runs.log";
  const auto python = dir.path() / "python3";
  write_file(python, fake_interpreter(log, "2"), true);
  EXPECT_FALSE(stamp_interpreter(python.string()));
  InterpreterCache cache(dir.path() / "cache");
  const InterpreterChoice choice{python.string(), "--python"};
  for (int i = 0; i < 2; ++i) {
    auto r = query_interpreter(choice, &cache);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_FALSE(r->from_cache);
  }
  EXPECT_EQ(count_lines(log), 2);
}

TEST(InterpreterCache, FailedAnswersAreNotCached) {
  // A real executable whose answer is unusable: /bin/true prints nothing.
  TempDir dir;
  InterpreterCache cache(dir.path() / "cache");
  const InterpreterChoice choice{"/bin/true", "--python"};
  EXPECT_FALSE(query_interpreter(choice, &cache));
  auto stamp = stamp_interpreter("/bin/true");
  ASSERT_TRUE(stamp);
  EXPECT_FALSE(cache.load(*stamp));
}

// An answer is cached under a stamp only when it came from the stamped file
// itself: a launcher's pick (another file) is not.
TEST(InterpreterCache, OnlyAnAnswerFromTheStampedFileItselfIsCacheable) {
  auto stamp = stamp_interpreter("/usr/bin/python3");
  ASSERT_TRUE(stamp);
  Interpreter answer;
  answer.executable = "/usr/bin/python3";
  answer.realpath = "/usr/bin/python3";  // a symlink: resolved before comparing
  EXPECT_TRUE(runs_itself(answer, *stamp));
  answer.realpath = stamp->resolved;
  EXPECT_TRUE(runs_itself(answer, *stamp));
  TempDir dir;
  const fs::path other = dir.path() / "python3";
  fs::copy_file(stamp->resolved, other);
  answer.realpath = other.string();  // the same bytes, another file
  EXPECT_FALSE(runs_itself(answer, *stamp));
  answer.realpath = "/nonexistent/python3";
  EXPECT_FALSE(runs_itself(answer, *stamp));
  answer.realpath = "";
  EXPECT_FALSE(runs_itself(answer, *stamp));
}

TEST(InterpreterFacts, TheUserSiteIsPlacedByWhetherItExistsNow) {
  const std::string user = "/home/u/.local/lib/python3.11/site-packages";
  const std::vector<std::string> own = {"/usr/lib/python3.11/site-packages"};
  // Created after the answer: before the interpreter's own, as site.py puts it.
  std::vector<std::string> dirs = {"/pp/site-packages", "/usr/lib/python3.11/site-packages",
                                   "/usr/lib/python3/dist-packages"};
  place_user_site(dirs, user, true, own);
  EXPECT_EQ(dirs, (std::vector<std::string>{"/pp/site-packages", user,
                                            "/usr/lib/python3.11/site-packages",
                                            "/usr/lib/python3/dist-packages"}));
  // Already there: unchanged, not twice.
  place_user_site(dirs, user, true, own);
  EXPECT_EQ(std::count(dirs.begin(), dirs.end(), user), 1);
  // Gone since: removed.
  place_user_site(dirs, user, false, own);
  EXPECT_EQ(std::find(dirs.begin(), dirs.end(), user), dirs.end());
  EXPECT_EQ(dirs.size(), 3u);
  // No own site directory on the list: at the end.
  std::vector<std::string> other = {"/pp/site-packages"};
  place_user_site(other, user, true, own);
  EXPECT_EQ(other, (std::vector<std::string>{"/pp/site-packages", user}));
  // Absent and not there: nothing to do.
  std::vector<std::string> none;
  place_user_site(none, user, false, own);
  EXPECT_TRUE(none.empty());
}
