#include "util/utc_time.hpp"

namespace flashfit::util {

std::string format_utc(std::time_t when) {
  std::tm parts{};
  ::gmtime_r(&when, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

std::optional<std::time_t> parse_utc(std::string_view text) {
  if (text.size() != 20) return std::nullopt;
  std::tm parts{};
  const std::string copy(text);
  const char* end = ::strptime(copy.c_str(), "%Y-%m-%dT%H:%M:%SZ", &parts);
  if (end == nullptr || *end != '\0') return std::nullopt;
  const std::time_t when = ::timegm(&parts);
  // strptime takes "2026-02-30" and single digits: only the form format_utc writes.
  if (when == static_cast<std::time_t>(-1) || format_utc(when) != text) return std::nullopt;
  return when;
}

std::string now_utc() {
  return format_utc(std::time(nullptr));
}

}  // namespace flashfit::util
