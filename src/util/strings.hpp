#pragma once
// Small ASCII string helpers. Packaging names, versions and tags are ASCII by
// standard, so these never try to be locale- or Unicode-aware.

#include <string>
#include <string_view>
#include <vector>

namespace flashfit::util {

std::vector<std::string_view> split(std::string_view text, char separator);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::string ascii_lower(std::string_view text);
std::string_view trim(std::string_view text);  // ASCII whitespace, both ends
bool is_ascii(std::string_view text);
bool starts_with(std::string_view text, std::string_view prefix);
bool ends_with(std::string_view text, std::string_view suffix);

// Text safe to quote in an error message: non-printable and non-ASCII bytes
// are shown as \xNN and very long input is cut, so hostile input cannot flood
// or garble the terminal.
std::string printable(std::string_view text, std::size_t max_length = 200);

// Edit distance counting a swap of neighbours as one edit, for "did you mean".
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace flashfit::util
