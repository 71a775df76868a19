#pragma once
// What the HTML and JSON index parsers share: the page checks, and turning a
// resolved link URL into an IndexLink's url, filename and fragment hash.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace flashfit::resolve::detail {

// As net::HttpRequest's default: a page larger than a download may be is hostile.
inline constexpr std::size_t kMaxIndexPageBytes = std::size_t{64} << 20;

// NUL bytes (binary, not a page) or more than kMaxIndexPageBytes: an input error
// naming the page.
util::Result<void> check_page_text(std::string_view text, std::string_view page_url,
                                   std::string_view kind);

// Every link resolves against the page URL or <base href>, so a long base and
// many tiny links could turn one page into gigabytes of URLs. Resolution is
// charged base + href bytes against this budget; past it, the page is refused.
inline constexpr std::size_t kMaxLinkBytes = std::size_t{256} << 20;

// Adds `bytes` to `spent`; an input error naming the page once over kMaxLinkBytes.
util::Result<void> charge_link_bytes(std::size_t& spent, std::size_t bytes,
                                     std::string_view page_url);

struct LinkTarget {
  std::string url;                    // fragment removed, unsafe bytes percent-encoded
  std::string filename;               // percent-decoded last path segment
  std::optional<std::string> sha256;  // from a "#sha256=<64 hex>" fragment, lower-case
};

// Splits a resolved URL. nullopt when it names no file: a scheme other than
// http, https or file; no path or a path ending in '/'; or a last segment that
// decodes to something unsafe as a local file name (".", "..", '/', '\\',
// control bytes).
std::optional<LinkTarget> link_target(std::string_view resolved_url);

// True for http, https and file URLs, and for scheme-less ones (the page
// itself was named by a local path).
bool has_fetchable_scheme(std::string_view url);

// The URL without its fragment, with bytes curl would refuse (controls, space,
// non-ASCII, and the characters " < > \ ` { } | ^) percent-encoded.
std::string clean_url(std::string_view url);

// A file name safe to create in a directory: non-empty, not "." or "..", no
// '/', '\\', or bytes below 0x20 or 0x7f.
bool is_safe_filename(std::string_view name);

// 64 hex digits, lower-cased; nullopt otherwise.
std::optional<std::string> normalized_sha256(std::string_view hex);

}  // namespace flashfit::resolve::detail
