#pragma once
// Colour on a terminal only: verdicts, ok/FAIL marks, the selected line.
// The decision is a pure function of the terminal and the conventions users
// set (NO_COLOR: https://no-color.org; CLICOLOR_FORCE; TERM=dumb); app.cpp
// makes it once for stdout, and renderers call paint(), which is the plain
// text whenever colour is off (pipes, files, JSON never get escapes).
#include <optional>
#include <string>
#include <string_view>

namespace flashfit::cli {

struct ColourInputs {
  bool terminal = false;                      // stdout is a TTY
  std::optional<std::string> no_color;        // $NO_COLOR
  std::optional<std::string> clicolor_force;  // $CLICOLOR_FORCE
  std::optional<std::string> term;            // $TERM
};

// NO_COLOR (non-empty) wins; then CLICOLOR_FORCE (non-empty, not "0") forces
// colour even into a pipe; otherwise only a terminal that is not TERM=dumb.
bool decide_colour(const ColourInputs& in);

// Decided once for stdout from the process (isatty + the variables).
void init_colour();
void set_colour(bool on);  // tests
bool colour_enabled();

enum class Paint { good, bad, warn, strong };
// `text` wrapped in the SGR sequence for `paint` when colour is on, else `text`.
std::string paint(Paint paint, std::string_view text);

}  // namespace flashfit::cli
