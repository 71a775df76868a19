#pragma once
// Fetching one package-index page (a PEP 503 / PEP 691 project page or a
// find-links page) and reading its links by the content type the server
// declared, for callers that want the links or an error rather than
// gather()'s per-source warnings (the build layer looking for an sdist).
#include <optional>
#include <string>
#include <vector>

#include "resolve/index_page.hpp"
#include "util/error.hpp"

namespace flashfit::resolve {

// The Accept header flashfit sends to indexes: PEP 691 JSON preferred, HTML accepted.
// NOLINTNEXTLINE(readability-identifier-naming): a constant, named as the constexpr ones are
extern const char* const kIndexAcceptHeader;

// A fetched page's links, read by the content type the server declared: PEP
// 691 JSON for application/vnd.pypi.simple.v1+json, else HTML.
util::Result<std::vector<IndexLink>> parse_index_page(std::string_view body,
                                                      std::string_view content_type,
                                                      std::string_view base_url);

// One page fetched, as a value that says what happened: the links, "not on
// this index" (404 from a simple index's project page), or which step failed
// (gather words each case as its own warning; fetch_index_links makes an error).
struct IndexPageFetch {
  enum class Outcome { ok, not_found, unreachable, http_status, unreadable };
  Outcome outcome = Outcome::ok;
  std::vector<IndexLink> links;  // ok
  int status = 0;                // http_status: what the server answered
  util::Error error;             // unreachable (transport, Ctrl-C), unreadable (the parser's)
};
IndexPageFetch fetch_index_page(const std::string& url, bool simple);

// GETs `url` and parses the page: PEP 691 JSON when the server says
// application/vnd.pypi.simple.v1+json, else HTML. With `simple` (a project
// page of a simple index) a 404 means "not on this index": nullopt, no error.
// Errors: failed for transport problems and other HTTP statuses (naming the
// status and URL), interrupted for Ctrl-C, input for a page that cannot be read.
util::Result<std::optional<std::vector<IndexLink>>> fetch_index_links(const std::string& url,
                                                                      bool simple);

// A link for a URL the user typed (".../pkg-1.0.tar.gz#sha256=..."): its
// file name and fragment hash, or nullopt when the URL names no file.
std::optional<IndexLink> link_from_url(const std::string& url);

}  // namespace flashfit::resolve
