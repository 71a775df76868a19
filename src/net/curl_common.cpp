#include "net/curl_common.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>

#include "util/build_info.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"

namespace flashfit::net::detail {

namespace {

CurlApi g_api{};

// dlopen/dlsym; the library stays open for the process's life. The error
// names what is missing, for the message.
std::optional<std::string> load_api() {
  // libcurl.so.4 is the soname of every libcurl since 7.16 (Debian's
  // libcurl4 package, which the .deb Depends on).
  void* lib = ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    return fmt::format("libcurl.so.4 cannot be loaded ({})", why ? why : "no reason given");
  }
  const auto bind = [lib](auto& slot, const char* name) -> bool {
    void* sym = ::dlsym(lib, name);
    if (sym == nullptr) return false;
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(sym);
    return true;
  };
  const std::pair<bool, const char*> bound[] = {
      {bind(g_api.global_init, "curl_global_init"), "curl_global_init"},
      {bind(g_api.easy_init, "curl_easy_init"), "curl_easy_init"},
      {bind(g_api.easy_setopt, "curl_easy_setopt"), "curl_easy_setopt"},
      {bind(g_api.easy_getinfo, "curl_easy_getinfo"), "curl_easy_getinfo"},
      {bind(g_api.easy_perform, "curl_easy_perform"), "curl_easy_perform"},
      {bind(g_api.easy_cleanup, "curl_easy_cleanup"), "curl_easy_cleanup"},
      {bind(g_api.easy_strerror, "curl_easy_strerror"), "curl_easy_strerror"},
      {bind(g_api.slist_append, "curl_slist_append"), "curl_slist_append"},
      {bind(g_api.slist_free_all, "curl_slist_free_all"), "curl_slist_free_all"},
  };
  for (const auto& [ok, name] : bound) {
    if (!ok) return fmt::format("libcurl.so.4 has no {} (too old a libcurl)", name);
  }
  return std::nullopt;
}

}  // namespace

const CurlApi& api() {
  return g_api;
}

util::Result<void> global_init() {
  // libcurl's global state must be set up once, before the first handle
  // (docs/background.md §17: before threads start, so the first call wins).
  static std::once_flag once;
  static std::optional<std::string> load_error;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] {
    load_error = load_api();
    if (!load_error) result = g_api.global_init(CURL_GLOBAL_DEFAULT);
  });
  if (load_error) {
    return util::fail(util::ErrorKind::failed, "cannot use the network: " + *load_error, "",
                      "install libcurl (Debian/Ubuntu: apt install libcurl4)");
  }
  if (result != CURLE_OK) {
    return util::fail(util::ErrorKind::internal,
                      fmt::format("cannot initialise libcurl: {}", g_api.easy_strerror(result)));
  }
  return {};
}

util::Result<void> set_common_options(CURL* curl, const std::string& url,
                                      const CommonOptions& options, char* error_text) {
  // libcurl copies string options, so the temporary user agent is fine.
  const std::string user_agent = fmt::format("flashfit/{}", util::kVersion);
  api().easy_setopt(curl, CURLOPT_URL, url.c_str());
  api().easy_setopt(curl, CURLOPT_ERRORBUFFER, error_text);
  api().easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  // Only the web: no file://, ftp:// or others, neither asked for nor redirected to.
  if (api().easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
      api().easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK) {
    return util::fail(util::ErrorKind::internal,
                      "libcurl refused to restrict protocols to http(s)");
  }
  api().easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  api().easy_setopt(curl, CURLOPT_MAXREDIRS, static_cast<long>(options.max_redirects));
  api().easy_setopt(curl, CURLOPT_CONNECTTIMEOUT,
                    static_cast<long>(options.connect_timeout.count()));
  api().easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, options.low_speed_bytes);
  api().easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, static_cast<long>(options.stall_timeout.count()));
  api().easy_setopt(curl, CURLOPT_USERAGENT, user_agent.c_str());
  api().easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, interrupt_requested);
  api().easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
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
                                : api().easy_strerror(code);
  return util::printable(cause);
}

}  // namespace flashfit::net::detail
