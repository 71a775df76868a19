// One index page, fetched and parsed (see index_fetch.hpp).
#include "resolve/index_fetch.hpp"

#include <fmt/format.h>

#include "net/http.hpp"
#include "resolve/index_link_url.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {

const char* const kIndexAcceptHeader =
    "Accept: application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01";

util::Result<std::vector<IndexLink>> parse_index_page(std::string_view body, std::string_view content_type,
                                                      std::string_view base_url) {
  return content_type == "application/vnd.pypi.simple.v1+json" ? parse_simple_json(body, base_url)
                                                               : parse_simple_html(body, base_url);
}

util::Result<std::optional<std::vector<IndexLink>>> fetch_index_links(const std::string& url, bool simple) {
  net::HttpRequest request;
  request.url = url;
  request.headers.emplace_back(kIndexAcceptHeader);
  request.max_bytes = detail::kMaxIndexPageBytes;
  auto response = net::http_get(request);
  if (!response) return tl::unexpected(std::move(response.error()));
  if (response->status == 404 && simple) return std::optional<std::vector<IndexLink>>{};
  if (response->status != 200) {
    return util::fail(util::ErrorKind::failed, fmt::format("the index answered HTTP {}", response->status),
                      util::printable(url));
  }
  const std::string& base = response->effective_url.empty() ? url : response->effective_url;
  auto links = parse_index_page(response->body, response->content_type, base);
  if (!links) return tl::unexpected(std::move(links.error()));
  return std::optional<std::vector<IndexLink>>(std::move(*links));
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
