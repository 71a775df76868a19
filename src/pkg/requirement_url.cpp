#include "pkg/requirement_url.hpp"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "pkg/version_grammar.hpp"
#include "util/strings.hpp"

namespace flashfit::pkg::detail {
namespace {

bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool is_scheme_char(char c) {
  return is_alpha(c) || is_digit(c) || c == '+' || c == '-' || c == '.';
}

bool is_ipv4_octet(std::string_view octet) {
  if (octet.empty() || octet.size() > 3) return false;
  for (const char c : octet) {
    if (!is_digit(c)) return false;
  }
  if (octet.size() > 1 && octet[0] == '0') return false;  // as strict as inet_pton
  return std::stoi(std::string(octet)) <= 255;
}

bool is_hextet(std::string_view part) {
  if (part.empty() || part.size() > 4) return false;
  for (const char c : part) {
    if (!is_hex(c)) return false;
  }
  return true;
}

// The checks of Python's _check_bracketed_netloc and _check_bracketed_host.
std::optional<std::string> bracketed_netloc_problem(std::string_view netloc) {
  const auto at = netloc.rfind('@');
  const auto host_and_port = at == std::string_view::npos ? netloc : netloc.substr(at + 1);
  std::string_view host;
  if (const auto open = host_and_port.find('['); open != std::string_view::npos) {
    if (open != 0) return "invalid IPv6 host: text before '['";
    const auto bracketed = host_and_port.substr(open + 1);
    const auto close = bracketed.find(']');
    host = bracketed.substr(0, close);
    if (close != std::string_view::npos) {
      const auto port = bracketed.substr(close + 1);
      if (!port.empty() && port[0] != ':') return "invalid IPv6 host: text after ']'";
    }
  } else {
    host = host_and_port.substr(0, host_and_port.find(':'));
  }
  if (!host.empty() && host[0] == 'v') {
    // IPvFuture: v<hex>.<anything>
    std::size_t i = 1;
    while (i < host.size() && is_hex(host[i])) ++i;
    if (i > 1 && i + 1 < host.size() && host[i] == '.') return std::nullopt;
    return fmt::format("invalid IPvFuture host '{}'", util::printable(host, 60));
  }
  if (is_python_ipv4(host)) return "an IPv4 address cannot be in brackets";
  if (is_python_ipv6(host)) return std::nullopt;
  return fmt::format("'{}' is not an IPv6 address (required when the host has brackets)",
                     util::printable(host, 60));
}

}  // namespace

bool is_python_ipv4(std::string_view text) {
  const auto parts = util::split(text, '.');
  if (parts.size() != 4) return false;
  for (const auto part : parts) {
    if (!is_ipv4_octet(part)) return false;
  }
  return true;
}

bool is_python_ipv6(std::string_view text) {
  if (text.find('/') != std::string_view::npos) return false;
  if (const auto percent = text.find('%'); percent != std::string_view::npos) {
    const auto scope = text.substr(percent + 1);
    if (scope.empty() || scope.find('%') != std::string_view::npos) return false;
    text = text.substr(0, percent);
  }
  if (text.empty()) return false;
  std::vector<std::string_view> parts = util::split(text, ':');
  if (parts.size() < 3) return false;
  std::size_t extra_parts = 0;  // an IPv4 tail counts as two hextets
  if (parts.back().find('.') != std::string_view::npos) {
    if (!is_python_ipv4(parts.back())) return false;
    parts.back() = "0";
    extra_parts = 1;
  }
  const std::size_t count = parts.size() + extra_parts;
  if (count > 9) return false;
  // A '::' shows as an empty part strictly inside the list; at most one.
  std::size_t skip = 0;
  for (std::size_t i = 1; i + 1 < parts.size(); ++i) {
    if (!parts[i].empty()) continue;
    if (skip != 0) return false;
    skip = i;
  }
  std::size_t first = 0;
  std::size_t last = parts.size();  // hextets to check: [first, last) minus the skip
  if (skip != 0) {
    std::size_t high = skip;
    std::size_t low = count - skip - 1;
    if (parts.front().empty()) {
      if (--high != 0) return false;  // a leading ':' only as part of '::'
      first = 1;
    }
    if (parts.back().empty() && extra_parts == 0) {
      if (--low != 0) return false;
      last = parts.size() - 1;
    }
    if (high + low >= 8) return false;  // '::' must stand for at least one hextet
  } else if (count != 8) {
    return false;
  }
  for (std::size_t i = first; i < last; ++i) {
    if (i == skip && skip != 0) continue;
    if (!is_hextet(parts[i])) return false;
  }
  return true;
}

std::optional<std::string> requirement_url_problem(std::string_view url) {
  for (const char c : url) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      return fmt::format("a URL cannot contain the control character \\x{:02x}", byte);
    }
  }
  // urllib.parse.urlsplit, minus what control characters would change.
  std::string scheme;
  std::string_view rest = url;
  if (const auto colon = url.find(':');
      colon != std::string_view::npos && colon > 0 && is_alpha(url[0])) {
    bool all_scheme_chars = true;
    for (std::size_t i = 0; i < colon; ++i)
      all_scheme_chars = all_scheme_chars && is_scheme_char(url[i]);
    if (all_scheme_chars) {
      scheme = util::ascii_lower(url.substr(0, colon));
      rest = url.substr(colon + 1);
    }
  }
  std::string_view netloc;
  if (util::starts_with(rest, "//")) {
    const auto end = std::min(rest.find_first_of("/?#", 2), rest.size());
    netloc = rest.substr(2, end - 2);
    rest = rest.substr(end);
    const bool open = netloc.find('[') != std::string_view::npos;
    const bool close = netloc.find(']') != std::string_view::npos;
    if (open != close) return "invalid IPv6 host: unbalanced '[' and ']'";
    if (open) {
      if (auto problem = bracketed_netloc_problem(netloc)) return problem;
    }
    if (!util::is_ascii(netloc)) {
      return "a URL host must be ASCII (write international domain names in punycode)";
    }
  }
  std::string_view fragment;
  if (const auto hash = rest.find('#'); hash != std::string_view::npos) {
    fragment = rest.substr(hash + 1);
    rest = rest.substr(0, hash);
  }
  std::string_view query;
  if (const auto question = rest.find('?'); question != std::string_view::npos) {
    query = rest.substr(question + 1);
    rest = rest.substr(0, question);
  }
  const std::string_view path = rest;

  if (scheme == "file") {
    // packaging wants urlunparse(urlparse(url)) == url.
    std::string rebuilt(path);
    if (!netloc.empty() || !util::starts_with(path, "//")) {
      if (!path.empty() && path[0] != '/') rebuilt = "/" + rebuilt;
      rebuilt = "//" + std::string(netloc) + rebuilt;
    }
    rebuilt = "file:" + rebuilt;
    if (!query.empty()) rebuilt += "?" + std::string(query);
    if (!fragment.empty()) rebuilt += "#" + std::string(fragment);
    if (rebuilt != url) {
      return fmt::format("a file URL must be in normal form: this one reads back as '{}'",
                         util::printable(rebuilt, 120));
    }
    return std::nullopt;
  }
  if (scheme.empty() || netloc.empty()) {
    return "expected a URL with a scheme and a host, such as https://host/path/file.whl";
  }
  return std::nullopt;
}

}  // namespace flashfit::pkg::detail
