// ninja's status lines as pip -v relays them, and what the user sees of them.
#include "build/progress.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace flashfit::build {
namespace {

using Clock = BuildProgress::Clock;

TEST(NinjaStatus, ParsesPlainAndPipIndentedLines) {
  auto s = parse_ninja_status("[3/73] /usr/local/cuda/bin/nvcc -c a.cu");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->done, 3u);
  EXPECT_EQ(s->total, 73u);
  EXPECT_EQ(s->what, "/usr/local/cuda/bin/nvcc -c a.cu");
  auto indented = parse_ninja_status("  [1/4] c++ -MMD -c add.cpp");
  ASSERT_TRUE(indented);
  EXPECT_EQ(indented->done, 1u);
}

TEST(NinjaStatus, RefusesEverythingElse) {
  for (const char* line :
       {"", "[", "[]", "[1/]", "[/4] x", "[0/4] x", "[5/4] x", "[a/4] x", "[1/b] x", "x [1/4] y",
        "[1-4] x", "[99999999999/99999999999] x", "[1/4", "\t[1/4] tab", "[-1/4] x"}) {
    EXPECT_FALSE(parse_ninja_status(line)) << line;
  }
}

TEST(BuildProgress, PlainLinesEveryTenPercentNotEveryStep) {
  std::vector<std::string> out;
  BuildProgress p("flash-attn", false, [&](std::string_view t) { out.emplace_back(t); });
  auto t0 = Clock::now();
  for (unsigned i = 1; i <= 100; ++i) {
    EXPECT_TRUE(
        p.on_line(fmt::format("[{}/100] nvcc -c k{}.cu", i, i), t0 + std::chrono::seconds(i)));
    EXPECT_FALSE(p.on_line("  warning: something", t0 + std::chrono::seconds(i)));
  }
  p.finish(true, t0 + std::chrono::seconds(101));
  // The first step, each 10% mark, and the final line: a short log, not 100 lines.
  EXPECT_GE(out.size(), 10u);
  EXPECT_LE(out.size(), 13u);
  EXPECT_NE(out.front().find("1/100"), std::string::npos);
  EXPECT_NE(out[out.size() - 2].find("100/100"), std::string::npos);
  EXPECT_NE(out.back().find("built after"), std::string::npos);
}

TEST(BuildProgress, EtaFromThePaceSoFar) {
  EXPECT_FALSE(BuildProgress::eta_seconds(0, 10, 5.0));
  EXPECT_DOUBLE_EQ(*BuildProgress::eta_seconds(5, 10, 50.0), 50.0);
  EXPECT_DOUBLE_EQ(*BuildProgress::eta_seconds(10, 10, 50.0), 0.0);
  EXPECT_FALSE(BuildProgress::eta_seconds(11, 10, 50.0));
}

TEST(BuildProgress, ASecondNinjaRunIsANewStep) {
  std::vector<std::string> out;
  BuildProgress p("pkg", false, [&](std::string_view t) { out.emplace_back(t); });
  auto t0 = Clock::now();
  p.on_line("[1/2] a", t0);
  p.on_line("[2/2] b", t0 + std::chrono::seconds(1));
  p.on_line("[1/3] c", t0 + std::chrono::seconds(2));
  ASSERT_FALSE(out.empty());
  EXPECT_NE(out.back().find("(step 2)"), std::string::npos) << out.back();
}

TEST(BuildProgress, BarFitsTheTerminalAndShowsPausedCompilers) {
  for (std::size_t columns : {20u, 40u, 80u, 200u}) {
    std::string line =
        BuildProgress::bar_line(std::string(300, 'x'), 37, 73, 1, 125.0, 120.0, 2, columns);
    EXPECT_LT(line.size(), columns) << columns;
  }
  std::string line = BuildProgress::bar_line("flash-attn", 37, 73, 1, 125.0, 120.0, 2, 120);
  EXPECT_NE(line.find("37/73"), std::string::npos);
  EXPECT_NE(line.find("2 paused"), std::string::npos);
  EXPECT_NE(line.find("ETA"), std::string::npos);
}

TEST(BuildProgress, BarModeRewritesOneLine) {
  std::string all;
  {
    BuildProgress p("pkg", true, [&](std::string_view t) { all += t; });
    auto t0 = Clock::now();
    p.on_line("[1/2] a", t0);
    p.on_line("[2/2] b", t0 + std::chrono::seconds(1));
    p.finish(true, t0 + std::chrono::seconds(2));
  }
  EXPECT_NE(all.find("\r\x1b[K"), std::string::npos);
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 2);  // the bar's end, then the final line
}

}  // namespace
}  // namespace flashfit::build
