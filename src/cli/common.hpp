#pragma once
// Helpers every command shares: writing results.

#include <optional>
#include <string>
#include <string_view>

namespace flashfit::cli {

// Data goes to stdout in one write; a closed pipe (| head) is not an error.
void write_stdout(std::string_view text);

// A progress note on stderr ("flashfit: <line>"); -q/--quiet silences it.
// Warnings and errors do not go through here: -q keeps them.
void note(std::string_view line);

}  // namespace flashfit::cli
