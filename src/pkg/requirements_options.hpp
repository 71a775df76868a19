#pragma once
// Internal to pkg/: the options part of a requirements-file line, read as pip
// 23.0.1 does: shlex.split (POSIX rules) and then optparse over the options a
// requirements file may hold, long options by any unique prefix.

#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace flashfit::pkg::detail {

// shlex.split(text): words split at whitespace; '...' keeps everything;
// "..." keeps everything but \" and \\; a backslash outside quotes keeps the
// next character. The error (message only) is for an unclosed quote or a
// backslash at the end.
util::Result<std::vector<std::string>> shell_split(std::string_view text);

struct ParsedOption {
  std::string_view name;  // the option's long name ("--requirement" for -r)
  std::string value;      // empty for a flag
  bool takes_value = false;
};

// Options in `--x=v`, `--x v`, `-xv`, `-x v` form, names canonical. Errors
// name `where`: unknown or ambiguous option, a missing value, a value for a flag.
util::Result<std::vector<ParsedOption>> parse_options(const std::vector<std::string>& tokens,
                                                      const std::string& where);

}  // namespace flashfit::pkg::detail
