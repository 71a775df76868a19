#include "net/http.hpp"

#include <fmt/format.h>

#include <memory>

#include "net/curl_common.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"
#include "util/verbosity.hpp"

namespace flashfit::net {
namespace {

using detail::EasyDeleter;
using detail::kNetworkHint;
using detail::ListDeleter;
using detail::shown_url;

// What the callbacks fill in during one transfer.
struct Transfer {
  std::size_t max_bytes = 0;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  bool too_large = false;
  CURL* curl = nullptr;  // for the status of the response being read
  bool range_asked = false;
  bool range_refused = false;  // a range was asked and the answer is not 206
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  if (transfer->range_asked) {
    long status = 0;  // known once the headers are in (redirects' bodies never come here)
    detail::api().easy_getinfo(transfer->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status != 206) {
      transfer->range_refused = true;
      return 0;  // the whole file is coming: not what was asked for
    }
  }
  if (n > transfer->max_bytes - transfer->body.size()) {
    transfer->too_large = true;
    return 0;  // anything but n aborts the transfer
  }
  transfer->body.append(data, n);
  return n;
}

// Called once per header line of every response, including those of
// redirects and proxy CONNECTs: a status line starts a new response, so only
// the last one's headers survive.
std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  std::string_view line(data, n);
  if (util::starts_with(line, "HTTP/")) {
    transfer->headers.clear();
    return n;
  }
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.empty()) return n;
  if ((line.front() == ' ' || line.front() == '\t') && !transfer->headers.empty()) {
    // An obsolete folded continuation line belongs to the previous header.
    transfer->headers.back().second += " " + std::string(util::trim(line));
    return n;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return n;  // not a header: ignore it
  transfer->headers.emplace_back(util::ascii_lower(util::trim(line.substr(0, colon))),
                                 std::string(util::trim(line.substr(colon + 1))));
  return n;
}

std::string media_type(const char* content_type) {
  if (content_type == nullptr) return {};
  std::string_view value(content_type);
  value = value.substr(0, value.find(';'));
  return util::ascii_lower(util::trim(value));
}

}  // namespace

std::string HttpResponse::header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return value;
  }
  return {};
}

static util::Result<HttpResponse> get_once(const HttpRequest& request);

util::Result<HttpResponse> http_get(const HttpRequest& request) {
  // --verbose: each request, its status, size and time.
  util::TraceSpan span("GET " + shown_url(request.url));
  auto response = get_once(request);
  span.set_outcome(response
                       ? fmt::format("HTTP {}, {} bytes", response->status, response->body.size())
                       : response.error().message);
  return response;
}

static util::Result<HttpResponse> get_once(const HttpRequest& request) {
  const std::string where = shown_url(request.url);
  if (util::interrupted()) {
    return util::fail(util::ErrorKind::interrupted,
                      fmt::format("interrupted before fetching {}", where));
  }
  if (auto init = detail::global_init(); !init) return tl::unexpected(init.error());
  std::unique_ptr<CURL, EasyDeleter> handle(detail::api().easy_init());
  if (!handle) return util::fail(util::ErrorKind::internal, "cannot create a libcurl handle");
  CURL* curl = handle.get();

  std::unique_ptr<curl_slist, ListDeleter> header_list;
  for (const std::string& header : request.headers) {
    curl_slist* appended = detail::api().slist_append(header_list.get(), header.c_str());
    if (appended == nullptr) return util::fail(util::ErrorKind::internal, "out of memory");
    (void)header_list.release();
    header_list.reset(appended);
  }

  Transfer transfer;
  transfer.max_bytes = request.max_bytes;
  char error_text[CURL_ERROR_SIZE] = {};
  detail::CommonOptions common;
  common.connect_timeout = request.connect_timeout;
  common.stall_timeout = request.stall_timeout;
  common.max_redirects = request.max_redirects;
  if (auto set = detail::set_common_options(curl, request.url, common, error_text); !set) {
    return tl::unexpected(set.error());
  }
  detail::api().easy_setopt(curl, CURLOPT_TIMEOUT,
                            static_cast<long>(request.total_timeout.count()));
  transfer.curl = curl;
  transfer.range_asked = !request.range.empty();
  if (transfer.range_asked) {
    detail::api().easy_setopt(curl, CURLOPT_RANGE, request.range.c_str());
  } else {
    detail::api().easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // whatever libcurl can decode
  }
  // A declared Content-Length above the cap fails before any byte arrives;
  // the write callback catches bodies without one. Not for a range: a server
  // that ignores it declares the whole file's length, which is an answer
  // (status, no body), not an error.
  if (request.head_only) {
    detail::api().easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (!transfer.range_asked) {
    detail::api().easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE,
                              static_cast<curl_off_t>(request.max_bytes));
  }
  if (header_list) detail::api().easy_setopt(curl, CURLOPT_HTTPHEADER, header_list.get());
  detail::api().easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  detail::api().easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  detail::api().easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  detail::api().easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);

  const CURLcode code = detail::api().easy_perform(curl);
  if (code == CURLE_ABORTED_BY_CALLBACK && util::interrupted()) {
    return util::fail(util::ErrorKind::interrupted,
                      fmt::format("interrupted while fetching {}", where));
  }
  if (!transfer.range_refused && (transfer.too_large || code == CURLE_FILESIZE_EXCEEDED)) {
    return util::fail(
        util::ErrorKind::failed,
        fmt::format("cannot fetch {}: response larger than {} bytes", where, request.max_bytes), {},
        "the server sent far more than such a response should hold: check the URL");
  }
  if (code != CURLE_OK && !transfer.range_refused) {
    return util::fail(
        util::ErrorKind::failed,
        fmt::format("cannot fetch {}: {}", where, detail::curl_cause(code, error_text)), {},
        kNetworkHint);
  }

  HttpResponse response;
  detail::api().easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  char* content_type = nullptr;
  detail::api().easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &content_type);
  response.content_type = media_type(content_type);
  char* effective = nullptr;
  detail::api().easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &effective);
  response.effective_url = effective != nullptr ? std::string(effective) : request.url;
  if (!transfer.range_refused) response.body = std::move(transfer.body);
  response.headers = std::move(transfer.headers);
  return response;
}

}  // namespace flashfit::net
