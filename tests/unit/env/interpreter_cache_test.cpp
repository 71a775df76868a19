#include "env/interpreter_cache.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "env/interpreter.hpp"
#include "util/atomic_file.hpp"

namespace fs = std::filesystem;
using namespace flashfit::env;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "flashfit-cache-test-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

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
  return "#!/bin/sh\necho run >> '" + log.string() +
         "'\ncat <<'EOF'\n{\"version_info\": [3, 11, " + micro +
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
  InterpreterCache cache(dir.path);
  auto stamp = *stamp_interpreter("/usr/bin/python3");
  EXPECT_FALSE(cache.load(stamp));
  cache.store(stamp, "{\"answer\": 1}");
  EXPECT_EQ(cache.load(stamp), "{\"answer\": 1}");
  EXPECT_TRUE(fs::exists(dir.path / "CACHEDIR.TAG"));

  for (auto change : {+[](InterpreterStamp& s) { s.mtime_ns += 1; },
                      +[](InterpreterStamp& s) { s.size += 1; },
                      +[](InterpreterStamp& s) { s.inode += 1; },
                      +[](InterpreterStamp& s) { s.resolved += "x"; },
                      +[](InterpreterStamp& s) { s.environment += "x"; },
                      +[](InterpreterStamp& s) { s.script_version += 1; }}) {
    auto changed = stamp;
    change(changed);
    EXPECT_FALSE(cache.load(changed));
  }
}

TEST(InterpreterCache, CorruptOrForeignEntriesAreMisses) {
  TempDir dir;
  InterpreterCache cache(dir.path);
  auto stamp = *stamp_interpreter("/usr/bin/python3");
  cache.store(stamp, "{}");
  const auto entry = cache.entry_path(stamp);
  for (const std::string garbage :
       {std::string(""), std::string("{"), std::string("[]"), std::string("{\"stamp\": 1}"),
        std::string("{\"stamp\": {}, \"answer\": \"{}\"}"), std::string("\x00\xff", 2),
        std::string(5 << 20, 'x')}) {
    ASSERT_TRUE(flashfit::util::write_file_atomic(entry, garbage));
    EXPECT_FALSE(cache.load(stamp)) << garbage.substr(0, 40);
  }
}

TEST(InterpreterCache, UnwritableCacheCostsOnlySpeed) {
  TempDir dir;
  write_file(dir.path / "blocker", "a file where the cache dir should be");
  InterpreterCache cache(dir.path / "blocker");
  auto stamp = *stamp_interpreter("/usr/bin/python3");
  cache.store(stamp, "{}");  // must not throw or crash
  EXPECT_FALSE(cache.load(stamp));
}

TEST(InterpreterCache, QueryReusesTheAnswerUntilTheInterpreterChanges) {
  TempDir dir;
  const auto log = dir.path / "runs.log";
  const auto python = dir.path / "python3";
  write_file(python, fake_interpreter(log, "2"), true);
  InterpreterCache cache(dir.path / "cache");
  const InterpreterChoice choice{python.string(), "--python"};

  auto first = query_interpreter(choice, &cache);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE(first->from_cache);
  auto second = query_interpreter(choice, &cache);
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->from_cache);
  EXPECT_EQ(second->version_str(), "3.11.2");
  EXPECT_EQ(count_lines(log), 1) << "the second query must not start the interpreter";

  // An upgrade in place (new content, new size and mtime) invalidates the entry.
  write_file(python, fake_interpreter(log, "12"), true);
  auto third = query_interpreter(choice, &cache);
  ASSERT_TRUE(third);
  EXPECT_FALSE(third->from_cache);
  EXPECT_EQ(third->version_str(), "3.11.12");
  EXPECT_EQ(count_lines(log), 2);

  // Without a cache every query runs the interpreter.
  ASSERT_TRUE(query_interpreter(choice));
  EXPECT_EQ(count_lines(log), 3);
}

TEST(InterpreterCache, FailedAnswersAreNotCached) {
  TempDir dir;
  const auto python = dir.path / "python3";
  write_file(python, "#!/bin/sh\necho garbage\n", true);
  InterpreterCache cache(dir.path / "cache");
  const InterpreterChoice choice{python.string(), "--python"};
  EXPECT_FALSE(query_interpreter(choice, &cache));
  EXPECT_FALSE(cache.load(*stamp_interpreter(python.string())));
}
