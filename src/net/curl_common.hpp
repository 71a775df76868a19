#pragma once
// What http.cpp (small GETs into memory) and download.cpp (files, resume)
// share about libcurl: one global init, RAII handles, the options every
// transfer sets the same way, the Ctrl-C poll and how URLs appear in
// messages. Internal to net/: nothing above includes <curl/curl.h>.
//
// libcurl is opened with dlopen at the first transfer, not linked: its
// TLS/HTTP2/LDAP/Kerberos chain is ~25 shared libraries that every command
// would otherwise load at start (bench/README.md, process floor). Only the
// header's types and constants are used; calls go through `api()`.
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>

#include <chrono>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace flashfit::net::detail {

inline constexpr const char* kNetworkHint =
    "check the URL, the network connection and the proxy variables "
    "(https_proxy, http_proxy, no_proxy)";

// The libcurl functions flashfit calls, resolved once from libcurl.so.4.
struct CurlApi {
  CURLcode (*global_init)(long flags);
  CURL* (*easy_init)();
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  CURLcode (*easy_perform)(CURL*);
  void (*easy_cleanup)(CURL*);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
};

// Opens libcurl and calls curl_global_init, once per process, before the
// first handle; an error when libcurl is missing or cannot be initialised.
util::Result<void> global_init();

// The table; only valid after global_init() succeeded.
const CurlApi& api();

struct EasyDeleter {
  void operator()(CURL* handle) const { api().easy_cleanup(handle); }
};
struct ListDeleter {
  void operator()(curl_slist* list) const { api().slist_free_all(list); }
};

struct CommonOptions {
  std::chrono::seconds connect_timeout{10};
  // Below `low_speed_bytes` per second for `stall_timeout`: give up.
  std::chrono::seconds stall_timeout{30};
  long low_speed_bytes = 1;
  int max_redirects = 10;
};

// The options every flashfit transfer sets: the URL, http(s) only (asked for
// and redirected to), redirects followed, timeouts, the user agent, no
// signals, proxies from the environment (libcurl's default), and the Ctrl-C
// poll as the progress callback (a caller with its own progress callback
// must call `interrupt_requested` from it). `error_text` must outlive the
// transfer (CURL_ERROR_SIZE bytes).
util::Result<void> set_common_options(CURL* curl, const std::string& url,
                                      const CommonOptions& options, char* error_text);

// The Ctrl-C poll: non-zero stops the transfer with CURLE_ABORTED_BY_CALLBACK.
int interrupt_requested(void*, curl_off_t, curl_off_t, curl_off_t, curl_off_t);

// The URL as shown in messages: without a "user:password@" part, printable, bounded.
std::string shown_url(std::string_view url);

// libcurl's own words for a failed transfer (its error buffer, else the code's text).
std::string curl_cause(CURLcode code, const char* error_text);

}  // namespace flashfit::net::detail
