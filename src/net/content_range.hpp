#pragma once
// The Content-Range header of a 206 or 416 answer (RFC 9110 §14.4), read by
// the resuming download and by `lock`'s ranged read of a wheel's tail.
#include <cstdint>
#include <optional>
#include <string_view>

namespace flashfit::net {

// "bytes 100-199/200" -> {100, 199, 200}; "bytes */200" -> {nullopt, nullopt,
// 200}; "bytes 0-9/*" -> {0, 9, nullopt}. A part that is garbled, or a range
// whose end is before its start or not inside a known total, is nullopt.
struct ContentRange {
  std::optional<std::uint64_t> start;
  std::optional<std::uint64_t> end;  // inclusive
  std::optional<std::uint64_t> total;
};
ContentRange parse_content_range(std::string_view value);

// A decimal number without sign or spaces around it (spaces trimmed first);
// nullopt when empty, not digits or past 2^64.
std::optional<std::uint64_t> parse_u64(std::string_view text);

}  // namespace flashfit::net
