#include "net/progress.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace flashfit::net {
namespace {

using ::testing::HasSubstr;

TEST(FormatBytes, BinaryUnitsThreeDigits) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1.00 KiB");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(5'000'000), "4.77 MiB");
  EXPECT_EQ(format_bytes(150u << 20), "150 MiB");
  EXPECT_EQ(format_bytes(std::uint64_t{1} << 30), "1.00 GiB");
  EXPECT_EQ(format_bytes(~std::uint64_t{0}), "16.0 EiB");
}

TEST(FormatDuration, MinutesAndHours) {
  EXPECT_EQ(format_duration(0.0), "0:00");
  EXPECT_EQ(format_duration(7.4), "0:07");
  EXPECT_EQ(format_duration(754.0), "12:34");
  EXPECT_EQ(format_duration(3723.0), "1:02:03");
  EXPECT_EQ(format_duration(std::nullopt), "?");
  EXPECT_EQ(format_duration(-1.0), "?");
  EXPECT_EQ(format_duration(1e300), "?");
}

TEST(ProgressRenderer, PlainLinesAtStartQuartersAndEnd) {
  std::vector<std::string> out;
  {
    ProgressRenderer renderer("x.whl", false, [&](std::string_view s) { out.emplace_back(s); });
    for (std::uint64_t received = 0; received <= 1000; received += 50) {
      renderer.update({received, 1000, 100.0});
    }
    renderer.finish({1000, 1000, 100.0}, true);
  }
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0], "downloading x.whl (1000 B)\n");
  EXPECT_EQ(out[1], "x.whl: 25% (250 B of 1000 B)\n");
  EXPECT_EQ(out[2], "x.whl: 50% (500 B of 1000 B)\n");
  EXPECT_EQ(out[3], "x.whl: 75% (750 B of 1000 B)\n");
  EXPECT_THAT(out[4], HasSubstr("downloaded x.whl: 1000 B in "));
}

TEST(ProgressRenderer, AResumeDoesNotRepeatPassedMarks) {
  std::vector<std::string> out;
  ProgressRenderer renderer("x.whl", false, [&](std::string_view s) { out.emplace_back(s); });
  renderer.update({600, 1000, 0});
  renderer.update({800, 1000, 0});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1], "x.whl: 75% (800 B of 1000 B)\n");
}

TEST(ProgressRenderer, UnknownTotalGivesStartAndEndOnly) {
  std::vector<std::string> out;
  ProgressRenderer renderer("x.whl", false, [&](std::string_view s) { out.emplace_back(s); });
  renderer.update({10, std::nullopt, 0});
  renderer.update({20000, std::nullopt, 0});
  renderer.finish({20000, 20000, 0}, true);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], "downloading x.whl\n");
}

TEST(ProgressRenderer, TheBarIsOneRewrittenLine) {
  std::vector<std::string> out;
  {
    ProgressRenderer renderer("flash_attn.whl", true,
                              [&](std::string_view s) { out.emplace_back(s); });
    renderer.update({512 << 10, 1 << 20, 256 << 10});
    renderer.update({600 << 10, 1 << 20, 256 << 10});  // within 100 ms: not drawn
    renderer.note("retrying");
    renderer.finish({1 << 20, 1 << 20, 256 << 10}, true);
  }
  ASSERT_GE(out.size(), 4u);
  EXPECT_EQ(out[0], "\rflash_attn.whl  512 KiB / 1.00 MiB   50%  256 KiB/s  ETA 0:02\x1b[K");
  EXPECT_EQ(out[1], "\n");  // the note starts on its own line
  EXPECT_EQ(out[2], "retrying\n");
  EXPECT_THAT(out[3], HasSubstr("100%"));
  EXPECT_EQ(out.back(), "\n");
}

TEST(ProgressRenderer, HostileLabelsArePrintableAndShort) {
  const std::string label = "evil\x1b[2J" + std::string(300, 'x') + "\n.whl";
  const std::string line = ProgressRenderer::bar_line(label, {1, 2, 0});
  EXPECT_EQ(line.find('\x1b'), std::string::npos);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_LT(line.size(), 80u);
}

TEST(ProgressRenderer, TheBarFitsTheTerminal) {
  const std::string label =
      "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl";
  const DownloadProgress p{100 << 20, 200 << 20, 10 << 20};
  for (std::size_t columns : {40u, 80u, 200u}) {
    const std::string line = ProgressRenderer::bar_line(label, p, columns);
    EXPECT_LT(line.size(), std::max<std::size_t>(columns, 60)) << line;
    EXPECT_THAT(line, HasSubstr("50%"));
  }
  EXPECT_EQ(ProgressRenderer::bar_line(label, p, 200).substr(0, label.size()), label);
  EXPECT_THAT(ProgressRenderer::bar_line(label, p, 80), HasSubstr("..."));
}

}  // namespace
}  // namespace flashfit::net
