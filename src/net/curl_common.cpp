#include "net/curl_common.hpp"

#include <fmt/format.h>

#include <mutex>

#include "util/build_info.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"

namespace flashfit::net::detail {

util::Result<void> global_init() {
  // libcurl's global state must be set up once, before the first handle
  // (docs/background.md §17: before threads start, so the first call wins).
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (result != CURLE_OK) {
    return util::fail(util::ErrorKind::internal,
                      fmt::format("cannot initialise libcurl: {}", curl_easy_strerror(result)));
  }
  return {};
}

util::Result<void> set_common_options(CURL* curl, const std::string& url,
                                      const CommonOptions& options, char* error_text) {
  // libcurl copies string options, so the temporary user agent is fine.
  const std::string user_agent = fmt::format("flashfit/{}", util::kVersion);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_text);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  // Only the web: no file://, ftp:// or others, neither asked for nor redirected to.
  if (curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
      curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK) {
    return util::fail(util::ErrorKind::internal,
                      "libcurl refused to restrict protocols to http(s)");
  }
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, static_cast<long>(options.max_redirects));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT,
                   static_cast<long>(options.connect_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, options.low_speed_bytes);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, static_cast<long>(options.stall_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_USERAGENT, user_agent.c_str());
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, interrupt_requested);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  return {};
}

// Polled by libcurl about once a second and on every chunk: Ctrl-C stops the transfer.
int interrupt_requested(void*, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return util::interrupted() ? 1 : 0;
}

std::string shown_url(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end != std::string_view::npos) {
    const auto authority = scheme_end + 3;
    const auto authority_end = url.find_first_of("/?#", authority);
    const auto at = url.substr(0, authority_end).rfind('@');
    if (at != std::string_view::npos && at >= authority) {
      return util::printable(
          std::string(url.substr(0, authority)) + "***@" + std::string(url.substr(at + 1)), 300);
    }
  }
  return util::printable(url, 300);
}

std::string curl_cause(CURLcode code, const char* error_text) {
  const std::string cause = error_text != nullptr && error_text[0] != '\0'
                                ? std::string(error_text)
                                : curl_easy_strerror(code);
  return util::printable(cause);
}

}  // namespace flashfit::net::detail
