#pragma once
// The one timestamp form flashfit writes (cache entries, inspect verdicts,
// refreshed catalogs): ISO 8601 UTC with seconds, "2025-06-01T12:00:00Z".

#include <ctime>
#include <string>

namespace flashfit::util {

std::string format_utc(std::time_t when);
std::string now_utc();

}  // namespace flashfit::util
