// pip's --report JSON: both hash spellings, and hostile reports refused.
#include "workflow/pip_report.hpp"

#include <gtest/gtest.h>

#include <string>

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
    {"metadata": {"name": "local", "version": "0.1"},
     "download_info": {"url": "file:///src/local", "dir_info": {}}}]})";
  auto report = parse_pip_report(text);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->size(), 3u);
  EXPECT_EQ((*report)[0].name, "numpy");
  EXPECT_EQ((*report)[0].version, "1.26.4");
  EXPECT_EQ((*report)[0].sha256, sha);
  EXPECT_EQ((*report)[1].sha256, std::string(64, 'b'));
  EXPECT_EQ((*report)[2].sha256, "");
  EXPECT_EQ((*report)[2].url, "file:///src/local");
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
