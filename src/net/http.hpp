#pragma once
// HTTP(S) GET through libcurl (docs/background.md §17: proxies from the
// environment, TLS, redirects). Small responses into memory, for index pages
// and release listings; large downloads to files come with the install issue.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace flashfit::net {

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;   // "Accept: application/vnd.pypi.simple.v1+json"
  std::size_t max_bytes = 64u << 20;  // a larger body is an error, not an allocation
  std::chrono::seconds connect_timeout{10};
  std::chrono::seconds stall_timeout{30};  // less than 1 byte/s for this long: give up
  std::chrono::seconds total_timeout{120};
  int max_redirects = 10;
  bool head_only =
      false;  // HEAD: the status and headers, no body (and no size cap: it is not fetched)
  // A byte range, as CURLOPT_RANGE takes it: "100-199", or "-65536" for the
  // last 64 KiB. Asked without content coding (a range of gzip is not a range
  // of the file). A response that is not 206 (a server that ignores ranges
  // sends the whole file) ends at its headers: its status, no body.
  std::string range;
};

struct HttpResponse {
  long status = 0;           // the final response's status (after redirects)
  std::string content_type;  // lower-cased media type without parameters: "text/html"
  std::string body;
  std::string effective_url;  // after redirects: relative links resolve against this
  std::vector<std::pair<std::string, std::string>> headers;  // final response, names lower-cased
  // The value of a header ("link"), empty when absent.
  std::string header(std::string_view lower_name) const;
};

// One GET. Transport failures (refused, DNS, TLS, timeout, too large, Ctrl-C)
// are errors naming the URL and the cause; any HTTP status is a response, for
// the caller to judge. Interrupted transfers return ErrorKind::interrupted.
util::Result<HttpResponse> http_get(const HttpRequest& request);

// Resolves `reference` (absolute, scheme-relative, absolute-path or relative)
// against `base`, as a browser would (RFC 3986 §5.2), keeping any fragment.
std::string resolve_url(std::string_view base, std::string_view reference);

// RFC 3986 percent-encoding of everything but the unreserved characters: "+"
// is "%2B" (a literal "+" in a path is a space to some servers), as index
// pages and SigV4's canonical form want; `keep_slash` for S3 object keys.
std::string percent_encode(std::string_view text, bool keep_slash = false);
// Percent-decodes a URL path segment ("flash_attn-2.8.3%2Bcu12...whl").
std::string percent_decode(std::string_view text);
// The file a URL names: its path's last segment (query and fragment dropped),
// percent-decoded. Not necessarily UTF-8 ("%c1").
std::string url_file_name(std::string_view url);

// An absolute path or a file:// URL (copied rather than fetched).
bool is_local_source(std::string_view url);
// The path a local source names: the path itself, or a file:// URL's
// percent-decoded path (host empty or "localhost"). Errors: input, for
// another host or a NUL byte.
util::Result<std::filesystem::path> local_source_path(std::string_view url);

}  // namespace flashfit::net
