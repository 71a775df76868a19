#pragma once
// The table of commands. Each command lives in its own cli/<name>.cpp and
// contributes a `define` function: it declares the command's options on a
// CLI11 subcommand and returns the runner to call once parsing succeeded.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/error.hpp"

namespace CLI {  // NOLINT(readability-identifier-naming): CLI11's namespace
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
  bool hidden = false;  // left out of --help, completions, man pages and suggestions
};

const std::vector<Command>& command_table();

// The parser for every command: the root app (global flags) with one
// subcommand per table row, and the runner each row's define returned. The
// help, man pages and completions are read from this same tree.
//
// With `only`, the other rows' subcommands get their name and summary and no
// options, subcommands or runner (an empty Runner): defining every command's
// options is most of what a command pays to start, and a parse that touches
// only the named command needs none of the others'.
struct CommandTree {
  CommandTree();
  ~CommandTree();
  std::unique_ptr<CLI::App> app;
  std::vector<std::pair<CLI::App*, Runner>> runners;
};
std::unique_ptr<CommandTree> make_command_tree(std::optional<std::string_view> only = std::nullopt);

// The closest command name to a mistyped one, if any is close enough.
std::optional<std::string> suggest_command(std::string_view typed);

// Parses argv, runs the command and returns the process exit code. Never throws.
int run(int argc, const char* const* argv);

}  // namespace flashfit::cli
