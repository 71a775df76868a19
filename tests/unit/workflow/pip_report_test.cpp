// pip's --report JSON: both hash spellings, and hostile reports refused.
#include "workflow/pip_report.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "../temp_dir.hpp"
#include "util/sha256.hpp"

namespace flashfit::workflow {
namespace {

const std::string sha(64, 'a');

TEST(PipReport, ReadsBothHashSpellings) {
  const std::string text = R"({"version": "1", "install": [
    {"metadata": {"name": "numpy", "version": "1.26.4"},
     "download_info": {"url": "https://h/numpy.whl", "archive_info": {"hashes": {"sha256": ")" +
                           sha + R"("}}}},
    {"metadata": {"name": "six", "version": "1.16.0"},
     "download_info": {"url": "https://h/six.whl", "archive_info": {"hash": "sha256=)" +
                           std::string(64, 'B') + R"("}}},
    {"metadata": {"name": "bare", "version": "0.1"},
     "download_info": {"url": "https://h/bare-0.1.tar.gz", "archive_info": {}}}]})";
  auto report = parse_pip_report(text);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->size(), 3u);
  EXPECT_EQ((*report)[0].name, "numpy");
  EXPECT_EQ((*report)[0].version, "1.26.4");
  EXPECT_EQ((*report)[0].sha256, sha);
  EXPECT_EQ((*report)[1].sha256, std::string(64, 'b'));
  EXPECT_EQ((*report)[2].sha256, "");
  EXPECT_EQ((*report)[2].url, "https://h/bare-0.1.tar.gz");
}

// A VCS checkout's URL without its git+ prefix and commit, or a directory's,
// would be a broken locked line: refused, naming the package.
TEST(PipReport, RefusesVcsAndDirectorySources) {
  const std::string vcs = R"({"version": "1", "install": [
    {"metadata": {"name": "fromgit", "version": "0.3"},
     "download_info": {"url": "https://github.com/o/fromgit",
                       "vcs_info": {"vcs": "git", "commit_id": "0123abc"}}}]})";
  auto report = parse_pip_report(vcs);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().kind, util::ErrorKind::input);
  EXPECT_EQ(report.error().message,
            "fromgit: pip resolved it from a VCS checkout (https://github.com/o/fromgit), which "
            "has no file to lock by URL and sha256");
  EXPECT_EQ(report.error().hint, kNoFileToLockHint);
  const std::string dir = R"({"version": "1", "install": [
    {"metadata": {"name": "local", "version": "0.1"},
     "download_info": {"url": "file:///src/local", "dir_info": {"editable": false}}}]})";
  report = parse_pip_report(dir);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().message,
            "local: pip resolved it from a local directory (file:///src/local), which has no file "
            "to lock by URL and sha256");
}

TEST(PipReport, NamesWhatEachPackageRequires) {
  const std::string text = R"({"version": "1", "install": [
    {"metadata": {"name": "pulls", "version": "1.0", "requires_dist":
       ["Flash_Attn>=2.0", "numpy[extra] ; python_version > '3'", "numpy<3", "", 7, "six"]},
     "download_info": {"url": "https://h/pulls.whl"}},
    {"metadata": {"name": "six", "version": "1.16.0", "requires_dist": "garbage"},
     "download_info": {"url": "https://h/six.whl"}}]})";
  auto report = parse_pip_report(text);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->size(), 2u);
  EXPECT_EQ((*report)[0].requires_names, (std::vector<std::string>{"flash-attn", "numpy", "six"}));
  EXPECT_TRUE((*report)[1].requires_names.empty());
}

TEST(PipReport, RefusesHostileReports) {
  const std::string bad[] = {
      "",
      "[]",
      "{\"version\": \"2\", \"install\": []}",
      "{\"version\": \"1\"}",
      "{\"version\": \"1\", \"install\": [{\"metadata\": {\"name\": \"x\"}}]}",
      "{\"version\": \"1\", \"install\": [{\"metadata\": {\"name\": \"x\", \"version\": \"1\"}, "
      "\"download_info\": {\"url\": \"u\", \"archive_info\": {\"hash\": \"sha256=xyz\"}}}]}",
  };
  for (const auto& text : bad) {
    auto report = parse_pip_report(text);
    EXPECT_FALSE(report) << text;
    if (!report) {
      EXPECT_FALSE(report.error().message.empty());
    }
  }
}

}  // namespace
}  // namespace flashfit::workflow

namespace flashfit::workflow {
namespace {

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Real reports: Debian's pip 23.0.1 (archive_info.hash) and the tools venv's
// pip (archive_info.hashes) on a local wheel, offline; the sha256 read back
// must be the wheel's own.
TEST(PipReport, ReadsRealPipReports) {
  const std::filesystem::path pydeps = FLASHFIT_PYDEPS_DIR;
  std::filesystem::path wheel;
  if (std::filesystem::is_directory(pydeps / "tools" / "wheels")) {
    for (const auto& entry : std::filesystem::directory_iterator(pydeps / "tools" / "wheels")) {
      if (entry.path().extension() == ".whl") wheel = entry.path();
    }
  }
  if (wheel.empty()) GTEST_SKIP() << "no wheel under .pydeps/tools/wheels";
  const std::string want = util::sha256_hex(read_all(wheel));
  test::TempDir dir("pip-report");
  const std::string pythons[] = {FLASHFIT_TEST_PYTHON, (pydeps / "tools/bin/python").string()};
  for (const auto& python : pythons) {
    const auto out = dir.path() / "report.json";
    std::filesystem::remove(out);
    const std::string command = "'" + python +
                                "' -m pip install --quiet --dry-run --no-index --no-deps "
                                "--ignore-installed --report '" +
                                out.string() + "' '" + wheel.string() + "' >/dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    auto report = parse_pip_report(read_all(out));
    ASSERT_TRUE(report) << python << ": " << report.error().message;
    ASSERT_EQ(report->size(), 1u);
    EXPECT_EQ((*report)[0].sha256, want) << python;
    EXPECT_EQ((*report)[0].url, "file://" + wheel.string()) << python;
  }
}

}  // namespace
}  // namespace flashfit::workflow
