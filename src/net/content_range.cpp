#include "net/content_range.hpp"

#include <charconv>

#include "util/strings.hpp"

namespace flashfit::net {

std::optional<std::uint64_t> parse_u64(std::string_view text) {
  text = util::trim(text);
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

ContentRange parse_content_range(std::string_view value) {
  ContentRange out;
  value = util::trim(value);
  if (!util::starts_with(util::ascii_lower(value.substr(0, 6)), "bytes ")) return out;
  value.remove_prefix(6);
  const auto slash = value.find('/');
  if (slash == std::string_view::npos) return out;
  out.total = parse_u64(value.substr(slash + 1));
  const std::string_view range = value.substr(0, slash);
  const auto dash = range.find('-');
  if (dash == std::string_view::npos) return out;
  out.start = parse_u64(range.substr(0, dash));
  out.end = parse_u64(range.substr(dash + 1));
  // One end garbled, an end before its start, or past the total: no range at all.
  if (!out.start || !out.end || *out.end < *out.start || (out.total && *out.end >= *out.total)) {
    out.start.reset();
    out.end.reset();
  }
  return out;
}

}  // namespace flashfit::net
