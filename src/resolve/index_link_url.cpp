// Link URLs from index pages become download URLs and cache file names, so
// everything a hostile page could smuggle through them is checked here.
#include "resolve/index_link_url.hpp"

#include <fmt/format.h>

#include <array>

#include "net/http.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve::detail {
namespace {

bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Length of "scheme" in "scheme:..." (RFC 3986 §3.1), 0 when there is none.
std::size_t scheme_length(std::string_view url) {
  if (url.empty() || !is_alpha(url[0])) return 0;
  for (std::size_t i = 1; i < url.size(); ++i) {
    char c = url[i];
    if (c == ':') return i;
    if (!(is_alpha(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')) return 0;
  }
  return 0;
}

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

}  // namespace

util::Result<void> check_page_text(std::string_view text, std::string_view page_url,
                                   std::string_view kind) {
  if (text.size() > kMaxIndexPageBytes) {
    return util::input_error(fmt::format("{} is {} bytes, more than the {} MiB allowed", kind,
                                         text.size(), kMaxIndexPageBytes >> 20),
                             util::printable(page_url),
                             "an index page this large is not one; check the index URL");
  }
  if (std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return util::input_error(
        fmt::format("{} has a NUL byte at offset {}: binary data, not a page", kind, nul),
        util::printable(page_url), "check that the URL names an index page, not a file");
  }
  return {};
}

util::Result<void> charge_link_bytes(std::size_t& spent, std::size_t bytes,
                                     std::string_view page_url) {
  spent += bytes;
  if (spent <= kMaxLinkBytes) return {};
  return util::input_error(
      fmt::format("the page's links resolve to more than {} MiB of URLs", kMaxLinkBytes >> 20),
      util::printable(page_url),
      "a long <base href> or page URL times many links: not a real index");
}

bool has_fetchable_scheme(std::string_view url) {
  std::size_t length = scheme_length(url);
  if (length == 0) return true;
  std::string scheme = util::ascii_lower(url.substr(0, length));
  if (scheme == "file") return true;
  // An http(s) URL names a host ("http:x.whl" under an https page does not):
  // without one nothing can fetch it (found by the fuzz harness index_html).
  return (scheme == "http" || scheme == "https") && url.substr(length + 1, 2) == "//";
}

std::string clean_url(std::string_view url) {
  url = url.substr(0, url.find('#'));
  static constexpr std::array<bool, 256> kUnsafe = [] {
    std::array<bool, 256> unsafe{};
    for (std::size_t byte = 0; byte < unsafe.size(); ++byte)
      unsafe[byte] = byte <= 0x20 || byte >= 0x7f;
    for (char c : std::string_view("\"<>\\`{}|^")) unsafe[static_cast<unsigned char>(c)] = true;
    return unsafe;
  }();
  constexpr std::string_view kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(url.size());
  std::size_t run = 0;  // start of the current run of safe bytes, appended in one go
  for (std::size_t i = 0; i < url.size(); ++i) {
    auto byte = static_cast<unsigned char>(url[i]);
    if (!kUnsafe[byte]) continue;
    out.append(url.substr(run, i - run));
    out.push_back('%');
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0xF]);
    run = i + 1;
  }
  out.append(url.substr(run));
  return out;
}

bool is_safe_filename(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  for (char c : name) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '/' || c == '\\' || byte < 0x20 || byte == 0x7f) return false;
  }
  return true;
}

std::optional<std::string> normalized_sha256(std::string_view hex) {
  if (hex.size() != 64) return std::nullopt;
  for (char c : hex) {
    if (!is_hex(c)) return std::nullopt;
  }
  return util::ascii_lower(hex);
}

std::optional<LinkTarget> link_target(std::string_view resolved_url) {
  if (!has_fetchable_scheme(resolved_url)) return std::nullopt;
  std::size_t hash = resolved_url.find('#');
  std::string_view without_fragment = resolved_url.substr(0, hash);
  std::string_view fragment =
      hash == std::string_view::npos ? std::string_view{} : resolved_url.substr(hash + 1);

  // The path: after scheme and authority, before the query.
  std::string_view path = without_fragment.substr(0, without_fragment.find('?'));
  std::size_t scheme = scheme_length(path);
  path.remove_prefix(scheme == 0 ? 0 : scheme + 1);
  if (path.substr(0, 2) == "//") {
    std::size_t slash = path.find('/', 2);
    if (slash == std::string_view::npos) return std::nullopt;  // "https://host": no file
    path.remove_prefix(slash);
  }
  if (path.empty() || path.back() == '/') return std::nullopt;

  LinkTarget target;
  target.filename = net::percent_decode(path.substr(path.rfind('/') + 1));
  if (!is_safe_filename(target.filename)) return std::nullopt;
  target.url = clean_url(without_fragment);

  // PEP 503: "#<hashname>=<hexdigest>"; pip also finds it after an '&'
  // ("#egg=x&sha256=..."). The first sha256 decides; a malformed one is none.
  for (std::string_view piece : util::split(fragment, '&')) {
    if (piece.substr(0, 7) == "sha256=") {
      target.sha256 = normalized_sha256(piece.substr(7));
      break;
    }
  }
  return target;
}

}  // namespace flashfit::resolve::detail
