#pragma once
// The table of commands. Each command lives in its own cli/<name>.cpp and
// contributes a `define` function: it declares the command's options on a
// CLI11 subcommand and returns the runner to call once parsing succeeded.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace CLI {
class App;
}

namespace flashfit::cli {

// Runs a parsed command; the value is the exit status (0, or 1 when the
// command reported a failed outcome itself), an Error otherwise.
using Runner = std::function<util::Result<int>()>;

struct Command {
  std::string_view name;
  std::string_view summary;
  Runner (*define)(CLI::App& app);
};

const std::vector<Command>& command_table();

// The closest command name to a mistyped one, if any is close enough.
std::optional<std::string> suggest_command(std::string_view typed);

// Parses argv, runs the command and returns the process exit code. Never throws.
int run(int argc, const char* const* argv);

}  // namespace flashfit::cli
