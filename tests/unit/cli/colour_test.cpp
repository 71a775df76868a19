// The colour decision (cli/colour): NO_COLOR, CLICOLOR_FORCE, TERM=dumb, TTY.
#include "cli/colour.hpp"

#include <gtest/gtest.h>

namespace flashfit::cli {
namespace {

ColourInputs tty(std::optional<std::string> term = "xterm-256color") {
  return {true, std::nullopt, std::nullopt, std::move(term)};
}

TEST(Colour, OnATerminalOnly) {
  EXPECT_TRUE(decide_colour(tty()));
  EXPECT_TRUE(decide_colour(tty(std::nullopt)));  // no TERM: still a terminal
  ColourInputs pipe = tty();
  pipe.terminal = false;
  EXPECT_FALSE(decide_colour(pipe));
}

TEST(Colour, TermDumbHasNone) {
  EXPECT_FALSE(decide_colour(tty("dumb")));
}

TEST(Colour, NoColorWinsWhenNonEmpty) {
  ColourInputs in = tty();
  in.no_color = "1";
  EXPECT_FALSE(decide_colour(in));
  in.clicolor_force = "1";  // NO_COLOR beats the force
  EXPECT_FALSE(decide_colour(in));
  in.no_color = "";  // an empty NO_COLOR is not set (no-color.org)
  in.clicolor_force.reset();
  EXPECT_TRUE(decide_colour(in));
}

TEST(Colour, CliColorForceReachesPipesAndDumbTerminals) {
  ColourInputs pipe{false, std::nullopt, "1", std::nullopt};
  EXPECT_TRUE(decide_colour(pipe));
  pipe.clicolor_force = "0";
  EXPECT_FALSE(decide_colour(pipe));
  pipe.clicolor_force = "";
  EXPECT_FALSE(decide_colour(pipe));
  ColourInputs dumb = tty("dumb");
  dumb.clicolor_force = "yes";
  EXPECT_TRUE(decide_colour(dumb));
}

TEST(Colour, PaintIsPlainWhenOff) {
  set_colour(false);
  EXPECT_EQ(paint(Paint::bad, "FAIL"), "FAIL");
  set_colour(true);
  EXPECT_EQ(paint(Paint::bad, "FAIL"), "\x1b[31mFAIL\x1b[0m");
  EXPECT_EQ(paint(Paint::good, ""), "");
  set_colour(false);
}

}  // namespace
}  // namespace flashfit::cli
