// One index page, fetched and parsed (see index_fetch.hpp).
#include "resolve/index_fetch.hpp"

#include <fmt/format.h>

#include "net/http.hpp"
#include "resolve/index_link_url.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {

const char* const kIndexAcceptHeader =
    "Accept: application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.01";

util::Result<std::vector<IndexLink>> parse_index_page(std::string_view body,
                                                      std::string_view content_type,
                                                      std::string_view base_url) {
  return content_type == "application/vnd.pypi.simple.v1+json" ? parse_simple_json(body, base_url)
                                                               : parse_simple_html(body, base_url);
}

IndexPageFetch fetch_index_page(const std::string& url, bool simple) {
  using Outcome = IndexPageFetch::Outcome;
  IndexPageFetch out;
  net::HttpRequest request;
  request.url = url;
  request.headers.emplace_back(kIndexAcceptHeader);
  request.max_bytes = detail::kMaxIndexPageBytes;
  auto response = net::http_get(request);
  if (!response) {
    out.outcome = Outcome::unreachable;
    out.error = std::move(response.error());
    return out;
  }
  if (response->status == 404 && simple) {
    out.outcome = Outcome::not_found;
    return out;
  }
  if (response->status != 200) {
    out.outcome = Outcome::http_status;
    out.status = static_cast<int>(response->status);  // three digits, as libcurl reads it
    return out;
  }
  const std::string& base = response->effective_url.empty() ? url : response->effective_url;
  auto links = parse_index_page(response->body, response->content_type, base);
  if (!links) {
    out.outcome = Outcome::unreadable;
    out.error = std::move(links.error());
    return out;
  }
  out.links = std::move(*links);
  return out;
}

util::Result<std::optional<std::vector<IndexLink>>> fetch_index_links(const std::string& url,
                                                                      bool simple) {
  IndexPageFetch page = fetch_index_page(url, simple);
  switch (page.outcome) {
    case IndexPageFetch::Outcome::ok:
      return std::optional<std::vector<IndexLink>>(std::move(page.links));
    case IndexPageFetch::Outcome::not_found:
      return std::optional<std::vector<IndexLink>>{};
    case IndexPageFetch::Outcome::http_status:
      return util::fail(util::ErrorKind::failed,
                        fmt::format("the index answered HTTP {}", page.status),
                        util::printable(url));
    case IndexPageFetch::Outcome::unreachable:
    case IndexPageFetch::Outcome::unreadable:
      break;
  }
  return tl::unexpected(std::move(page.error));
}

std::optional<IndexLink> link_from_url(const std::string& url) {
  std::optional<detail::LinkTarget> target = detail::link_target(url);
  if (!target) return std::nullopt;
  IndexLink link;
  link.filename = std::move(target->filename);
  link.url = std::move(target->url);
  link.sha256 = std::move(target->sha256);
  return link;
}

}  // namespace flashfit::resolve
