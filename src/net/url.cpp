// URL reference resolution (RFC 3986 §5.2), percent-encoding and -decoding: what turns
// an index page's or a listing's links into absolute URLs and file names.
#include <fmt/core.h>

#include <optional>
#include <string>
#include <string_view>

#include "net/http.hpp"
#include "util/strings.hpp"

namespace flashfit::net {
namespace {

// A URI reference split as in RFC 3986 Appendix B; an absent component is
// different from an empty one ("http://a/b?" has an empty query).
struct UriParts {
  std::optional<std::string> scheme;
  std::optional<std::string> authority;
  std::string path;
  std::optional<std::string> query;
  std::optional<std::string> fragment;
};

bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_scheme(std::string_view text) {
  if (text.empty() || !is_alpha(text.front())) return false;
  for (char c : text) {
    if (!is_alpha(c) && !is_digit(c) && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

UriParts split_uri(std::string_view text) {
  UriParts parts;
  if (const auto hash = text.find('#'); hash != std::string_view::npos) {
    parts.fragment = std::string(text.substr(hash + 1));
    text = text.substr(0, hash);
  }
  if (const auto question = text.find('?'); question != std::string_view::npos) {
    parts.query = std::string(text.substr(question + 1));
    text = text.substr(0, question);
  }
  // A scheme ends at the first ':' only when no '/' comes before it ("./a:b" has none).
  if (const auto colon = text.find(':'); colon != std::string_view::npos) {
    const std::string_view candidate = text.substr(0, colon);
    if (candidate.find('/') == std::string_view::npos && is_scheme(candidate)) {
      parts.scheme = std::string(candidate);
      text = text.substr(colon + 1);
    }
  }
  if (util::starts_with(text, "//")) {
    const auto end = text.find('/', 2);
    parts.authority = std::string(text.substr(2, end == std::string_view::npos ? end : end - 2));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end);
  }
  parts.path = std::string(text);
  return parts;
}

// Drops the last segment and its preceding '/' from `output` (§5.2.4 step 2C).
void pop_segment(std::string& output) {
  const auto slash = output.rfind('/');
  output.erase(slash == std::string::npos ? 0 : slash);
}

// RFC 3986 §5.2.4, step by step on an input buffer.
std::string remove_dot_segments(std::string_view path) {
  std::string input(path);
  std::string output;
  std::size_t pos = 0;  // input consumed so far: erasing from the front would be quadratic
  auto rest = [&] { return std::string_view(input).substr(pos); };
  while (pos < input.size()) {
    const std::string_view in = rest();
    if (util::starts_with(in, "../")) {
      pos += 3;
    } else if (util::starts_with(in, "./") || util::starts_with(in, "/./")) {
      pos += 2;  // "./x" -> "x", "/./x" -> "/x"
    } else if (in == "/.") {
      input.replace(pos, 2, "/");
    } else if (util::starts_with(in, "/../")) {
      pos += 3;
      pop_segment(output);
    } else if (in == "/..") {
      input.replace(pos, 3, "/");
      pop_segment(output);
    } else if (in == "." || in == "..") {
      pos = input.size();
    } else {
      const auto next = in.find('/', 1);
      const std::size_t length = next == std::string_view::npos ? in.size() : next;
      output.append(in.substr(0, length));
      pos += length;
    }
  }
  return output;
}

// §5.2.3: the reference's path relative to the base's directory.
std::string merge_paths(const UriParts& base, std::string_view reference_path) {
  if (base.authority && base.path.empty()) return "/" + std::string(reference_path);
  const auto slash = base.path.rfind('/');
  if (slash == std::string::npos) return std::string(reference_path);
  return base.path.substr(0, slash + 1) + std::string(reference_path);
}

std::string recompose(const UriParts& parts) {
  std::string out;
  if (parts.scheme) out += *parts.scheme + ":";
  if (parts.authority) out += "//" + *parts.authority;
  out += parts.path;
  if (parts.query) out += "?" + *parts.query;
  if (parts.fragment) out += "#" + *parts.fragment;
  return out;
}

int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string resolve_url(std::string_view base, std::string_view reference) {
  // Browsers ignore spaces around an href; RFC 3986 §5.2.2 does the rest (strict form).
  UriParts r = split_uri(util::trim(reference));
  const UriParts b = split_uri(util::trim(base));
  // "https:file.whl" under an https base is relative (RFC 3986 §5.2.2's
  // non-strict option, as Python's urljoin and so pip read it): taken
  // strictly it is an https URL without a host, which nothing can fetch.
  if (r.scheme && !r.authority && b.scheme &&
      util::ascii_lower(*r.scheme) == util::ascii_lower(*b.scheme)) {
    r.scheme.reset();
  }
  UriParts t;
  if (r.scheme) {
    t = r;
    t.path = remove_dot_segments(r.path);
  } else {
    if (r.authority) {
      t.authority = r.authority;
      t.path = remove_dot_segments(r.path);
      t.query = r.query;
    } else {
      if (r.path.empty()) {
        t.path = b.path;
        t.query = r.query ? r.query : b.query;
      } else {
        t.path =
            remove_dot_segments(util::starts_with(r.path, "/") ? r.path : merge_paths(b, r.path));
        t.query = r.query;
      }
      t.authority = b.authority;
    }
    t.scheme = b.scheme;
  }
  t.fragment = r.fragment;
  return recompose(t);
}

std::string percent_encode(std::string_view text, bool keep_slash) {
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

std::string url_file_name(std::string_view url) {
  const std::string_view path = url.substr(0, url.find_first_of("?#"));
  const auto slash = path.rfind('/');
  return percent_decode(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
        hex_value(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

bool is_local_source(std::string_view url) {
  return util::starts_with(url, "/") || util::ascii_lower(url.substr(0, 7)) == "file://";
}

util::Result<std::filesystem::path> local_source_path(std::string_view url) {
  if (util::starts_with(url, "/")) return std::filesystem::path(url);
  std::string_view rest = url.substr(7);
  const auto slash = rest.find('/');
  const std::string_view host = rest.substr(0, slash);
  if (slash == std::string_view::npos ||
      !(host.empty() || util::ascii_lower(host) == "localhost")) {
    return util::input_error(
        fmt::format("a file:// URL must name a local absolute path: {}", util::printable(url)));
  }
  std::string path = percent_decode(rest.substr(slash));
  if (path.find('\0') != std::string::npos) {
    return util::input_error(fmt::format("a NUL byte in the file:// URL {}", util::printable(url)));
  }
  return std::filesystem::path(path);
}

}  // namespace flashfit::net
