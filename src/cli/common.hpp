#pragma once
// Helpers every command shares: writing results.

#include <optional>
#include <string>
#include <string_view>

namespace flashfit::cli {

// Data goes to stdout in one write; a closed pipe (| head) is not an error.
void write_stdout(std::string_view text);

}  // namespace flashfit::cli
