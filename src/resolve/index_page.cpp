// PEP 503 / PEP 592 HTML pages and pip's --find-links pages and directories.
// The HTML is whatever a server sends, so parsing is lenient (browsers are);
// only what would make a link dangerous or meaningless drops it.
#include "resolve/index_page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "net/http.hpp"
#include "resolve/html_links.hpp"
#include "resolve/index_link_url.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

// A data-core-metadata value (PEP 658): "true", or "<hash name>=<hex digest>"
// (any algorithm means offered; only sha256 is kept to check). Anything else,
// a malformed sha256 included, reads as not offered: the wheel is read
// instead, with its own sha256 checked.
std::optional<std::string> offered_metadata(std::string_view value) {
  value = util::trim(value);
  if (util::ascii_lower(value) == "true") return std::string();
  const auto equals = value.find('=');
  if (equals == std::string_view::npos || equals == 0) return std::nullopt;
  if (util::ascii_lower(value.substr(0, equals)) != "sha256") return std::string();
  return detail::normalized_sha256(value.substr(equals + 1));
}

}  // namespace

util::Result<std::vector<IndexLink>> parse_simple_html(std::string_view html,
                                                       std::string_view page_url) {
  if (auto checked = detail::check_page_text(html, page_url, "index page"); !checked) {
    return tl::unexpected(std::move(checked.error()));
  }
  detail::HtmlAnchors found = detail::scan_html_anchors(html);

  // HTML5: the first <base href> sets the base of every link on the page,
  // wherever it stands; it is itself relative to the page's URL.
  std::string base(page_url);
  if (found.base_href) {
    std::string_view base_href = util::trim(*found.base_href);
    if (!base_href.empty()) base = net::resolve_url(page_url, base_href);
  }

  std::vector<IndexLink> links;
  links.reserve(found.anchors.size());
  std::size_t spent = 0;
  for (detail::RawAnchor& anchor : found.anchors) {
    // Browsers strip the spaces around a URL. An empty href or a bare
    // "#fragment" is the page itself, not a file on it.
    std::string_view href = util::trim(anchor.href);
    if (href.empty() || href[0] == '#') continue;
    if (auto charged = detail::charge_link_bytes(spent, base.size() + href.size(), page_url);
        !charged) {
      return tl::unexpected(std::move(charged.error()));
    }
    std::optional<detail::LinkTarget> target = detail::link_target(net::resolve_url(base, href));
    if (!target) continue;
    IndexLink link;
    link.filename = std::move(target->filename);
    link.url = std::move(target->url);
    link.sha256 = std::move(target->sha256);
    // pip treats an empty data-requires-python as none.
    if (anchor.requires_python && !anchor.requires_python->empty()) {
      link.requires_python = std::move(anchor.requires_python);
    }
    // PEP 592: the attribute's presence yanks; its value, possibly empty, is the reason.
    if (anchor.yanked) {
      link.yanked = true;
      link.yanked_reason = std::move(*anchor.yanked);
    }
    if (anchor.core_metadata) link.core_metadata = offered_metadata(*anchor.core_metadata);
    links.push_back(std::move(link));
  }
  return links;
}

util::Result<std::vector<IndexLink>> list_wheel_directory(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status status = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return util::input_error(fmt::format("cannot read the wheel directory: {}", ec.message()),
                             util::printable(dir));
  }
  if (!fs::exists(status)) {
    return util::input_error("no such wheel directory", util::printable(dir),
                             "check the --find-links path");
  }
  if (!fs::is_directory(status)) {
    return util::input_error("not a directory", util::printable(dir),
                             "--find-links takes a directory of wheels or an index page URL");
  }
  fs::path absolute = fs::absolute(fs::path(dir), ec);
  if (ec) {
    return util::input_error(fmt::format("cannot make the path absolute: {}", ec.message()),
                             util::printable(dir));
  }
  // Drops "." segments only: removing ".." by text would be wrong past a symlink.
  fs::path root;
  for (const fs::path& part : absolute) {
    if (part != "." && !part.empty()) root /= part;
  }

  std::vector<IndexLink> links;
  fs::directory_iterator it(root, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.size() <= 4 || !util::ends_with(name, ".whl")) continue;
    if (!detail::is_safe_filename(name)) continue;  // control bytes: unprintable, unusable
    // Follows symlinks, as pip's os.path.isfile does; a dangling link or a
    // directory named *.whl is no wheel.
    std::error_code file_ec;
    if (!it->is_regular_file(file_ec) || file_ec) continue;
    IndexLink link;
    link.filename = name;
    link.url = (root / name).string();
    links.push_back(std::move(link));
  }
  if (ec) {
    return util::input_error(fmt::format("cannot list the wheel directory: {}", ec.message()),
                             util::printable(dir));
  }
  std::sort(links.begin(), links.end(),
            [](const IndexLink& a, const IndexLink& b) { return a.filename < b.filename; });
  return links;
}

}  // namespace flashfit::resolve
