#pragma once
// Internal to pkg/: the URL check of packaging 23.0's Requirement, which
// splits the URL with Python 3.11's urllib.parse.urlparse (Debian 3.11.2,
// with its bracketed-host checks) and then wants a scheme and a host, or for
// file: URLs a text that urlunparse gives back unchanged.

#include <optional>
#include <string>
#include <string_view>

namespace flashfit::pkg::detail {

// Why packaging would refuse `url`, or nullopt when it accepts it. Narrower
// than packaging on purpose: control characters anywhere and non-ASCII
// characters in the host are refused (packaging's verdict on the latter
// depends on Unicode NFKC normalisation).
std::optional<std::string> requirement_url_problem(std::string_view url);

// ipaddress.IPv4Address / IPv6Address (with an optional %scope) acceptance.
bool is_python_ipv4(std::string_view text);
bool is_python_ipv6(std::string_view text);

}  // namespace flashfit::pkg::detail
