#pragma once
// Helpers every command shares: environment reads and writing results.

#include <optional>
#include <string>
#include <string_view>

namespace flashfit::cli {

std::optional<std::string> getenv_opt(const char* name);

// Data goes to stdout in one write; a closed pipe (| head) is not an error.
void write_stdout(std::string_view text);

}  // namespace flashfit::cli
