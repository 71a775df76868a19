#pragma once
// flashfit's own usage errors in place of CLI11's messages: one shape
// ("flashfit: COMMAND: what is wrong" + "hint: the fix"), and did-you-mean for
// mistyped commands and options.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace CLI {  // NOLINT(readability-identifier-naming): CLI11's namespace
class App;
class ParseError;
}  // namespace CLI

namespace flashfit::cli {

// The closest of `candidates` to `typed`: at most a third of it wrong (never
// more than 3 edits), or `typed` a prefix of it.
std::optional<std::string> closest_name(std::string_view typed,
                                        const std::vector<std::string>& candidates);

// The subcommands named in argv, deepest last ("cache", "list"): what an error concerns.
std::vector<CLI::App*> command_path(CLI::App& root, int argc, const char* const* argv);

// Arguments nothing accepted (`extras`, in order) for the command `command`:
// an option typo gets the nearest option of the command or its parents, a
// word where a subcommand belongs the nearest subcommand.
util::Error unexpected_arguments(const CLI::App& command, const std::vector<std::string>& extras);

// CLI11's other parse errors (missing SPEC, a value of the wrong type, a
// repeated option), said in flashfit's words.
util::Error usage_error(const CLI::ParseError& error, const CLI::App& command);

}  // namespace flashfit::cli
