#pragma once
// Internal to pkg/: how pip 23.0.1 turns a requirements file's bytes into
// logical lines (req_file.py's auto_decode, splitlines, join_lines and
// ignore_comments), before any line is parsed.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace flashfit::pkg::detail {

bool is_space(char c);  // the ASCII whitespace Python's str.strip() removes
std::string_view trim(std::string_view s);

// The file's text as UTF-8. pip decodes by the byte-order mark: a UTF-8 BOM is
// dropped and UTF-16 / UTF-32 (big-endian) files are converted. A UTF-32
// little-endian BOM is refused: pip 23.0.1 tests the UTF-16 BOM first and so
// misreads such a file as UTF-16 (every line fails); flashfit says so instead.
util::Result<std::string> decode_text(std::string_view bytes, const std::string& file);

// Python's str.splitlines(): lines end at \n, \r\n, \r, \v, \f, \x1c-\x1e,
// U+0085, U+2028 and U+2029 (the last three as UTF-8); a final separator
// does not start an empty line.
std::vector<std::string_view> split_lines(std::string_view text);

// pip's COMMENT_RE `(^|\s+)#.*$`: a '#' at the start or after whitespace.
std::string_view strip_comment(std::string_view line);

struct LogicalLine {
  std::size_t number;  // 1-based, the first physical line of a continuation
  std::string text;
};

// pip's join_lines: a line ending in '\' (and not a comment) continues on
// the next; an unfinished one at end of file is an error here.
util::Result<std::vector<LogicalLine>> join_lines(std::string_view text, const std::string& file);

}  // namespace flashfit::pkg::detail
