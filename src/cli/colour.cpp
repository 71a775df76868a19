#include "cli/colour.hpp"

#include <unistd.h>

#include "util/env_vars.hpp"

namespace flashfit::cli {
namespace {
bool g_colour = false;
}

bool decide_colour(const ColourInputs& in) {
  if (in.no_color && !in.no_color->empty()) return false;
  if (in.clicolor_force && !in.clicolor_force->empty() && *in.clicolor_force != "0") return true;
  if (!in.terminal) return false;
  return !(in.term && *in.term == "dumb");
}

void init_colour() {
  g_colour = decide_colour({::isatty(STDOUT_FILENO) == 1, util::getenv_opt("NO_COLOR"),
                            util::getenv_opt("CLICOLOR_FORCE"), util::getenv_opt("TERM")});
}

void set_colour(bool on) {
  g_colour = on;
}
bool colour_enabled() {
  return g_colour;
}

std::string paint(Paint paint, std::string_view text) {
  if (!g_colour || text.empty()) return std::string(text);
  const char* code = "1";
  switch (paint) {
    case Paint::good:
      code = "32";
      break;
    case Paint::bad:
      code = "31";
      break;
    case Paint::warn:
      code = "33";
      break;
    case Paint::strong:
      code = "1";
      break;
  }
  return std::string("\x1b[") + code + "m" + std::string(text) + "\x1b[0m";
}

}  // namespace flashfit::cli
