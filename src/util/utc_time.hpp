#pragma once
// The one timestamp form flashfit writes (cache entries, inspect verdicts,
// refreshed catalogs): ISO 8601 UTC with seconds, "2025-06-01T12:00:00Z".

#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace flashfit::util {

std::string format_utc(std::time_t when);
std::string now_utc();
// The time `text` names in exactly that form; nullopt for anything else.
std::optional<std::time_t> parse_utc(std::string_view text);

}  // namespace flashfit::util
