#include "util/utc_time.hpp"

namespace flashfit::util {

std::string format_utc(std::time_t when) {
  std::tm parts{};
  ::gmtime_r(&when, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

std::string now_utc() {
  return format_utc(std::time(nullptr));
}

}  // namespace flashfit::util
