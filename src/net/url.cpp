// URL reference resolution (RFC 3986 §5.2, strict) and percent-decoding.
// Index pages link wheels with relative, absolute-path and absolute URLs; the
// resolution must match a browser's (and pip's urljoin) or links break.
// Self-contained: depends on nothing but the declarations in http.hpp.
#include <optional>
#include <string>
#include <string_view>

#include "net/http.hpp"

namespace flashfit::net {
namespace {

// The five components of RFC 3986 Appendix B. An absent component differs
// from an empty one ("http://a/b?" keeps its empty query).
struct UriParts {
  std::optional<std::string_view> scheme;
  std::optional<std::string_view> authority;
  std::string_view path;
  std::optional<std::string_view> query;
  std::optional<std::string_view> fragment;
};

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) before the first ':'
// that comes before any '/', '?' or '#'. Anything else is no scheme, so
// "./g:h" and "1x:y" are relative paths.
std::optional<std::string_view> scheme_of(std::string_view text) {
  if (text.empty() || !is_alpha(text[0])) return std::nullopt;
  for (std::size_t i = 1; i < text.size(); ++i) {
    char c = text[i];
    if (c == ':') return text.substr(0, i);
    if (!(is_alpha(c) || is_digit(c) || c == '+' || c == '-' || c == '.')) return std::nullopt;
  }
  return std::nullopt;
}

UriParts split_uri(std::string_view text) {
  UriParts parts;
  if (auto scheme = scheme_of(text)) {
    parts.scheme = scheme;
    text.remove_prefix(scheme->size() + 1);
  }
  if (std::size_t hash = text.find('#'); hash != std::string_view::npos) {
    parts.fragment = text.substr(hash + 1);
    text = text.substr(0, hash);
  }
  if (std::size_t question = text.find('?'); question != std::string_view::npos) {
    parts.query = text.substr(question + 1);
    text = text.substr(0, question);
  }
  if (text.substr(0, 2) == "//") {
    std::size_t end = text.find('/', 2);
    if (end == std::string_view::npos) end = text.size();
    parts.authority = text.substr(2, end - 2);
    text.remove_prefix(end);
  }
  parts.path = text;
  return parts;
}

// RFC 3986 §5.2.4, in one pass: each input segment is appended once and
// removed at most once, so hostile "../../.." chains stay linear.
std::string remove_dot_segments(std::string_view input) {
  std::string output;
  output.reserve(input.size());
  auto drop_last_segment = [&output] {
    std::size_t slash = output.rfind('/');
    output.erase(slash == std::string::npos ? 0 : slash);
  };
  while (!input.empty()) {
    if (input.substr(0, 3) == "../") {
      input.remove_prefix(3);
    } else if (input.substr(0, 2) == "./") {
      input.remove_prefix(2);
    } else if (input.substr(0, 3) == "/./") {
      input.remove_prefix(2);  // leaves "/"
    } else if (input == "/.") {
      input = "/";
    } else if (input.substr(0, 4) == "/../") {
      input.remove_prefix(3);  // leaves "/"
      drop_last_segment();
    } else if (input == "/..") {
      input = "/";
      drop_last_segment();
    } else if (input == "." || input == "..") {
      input = {};
    } else {
      // Move the first segment (with its leading '/', if any) to the output.
      std::size_t end = input.find('/', input[0] == '/' ? 1 : 0);
      if (end == std::string_view::npos) end = input.size();
      output.append(input.substr(0, end));
      input.remove_prefix(end);
    }
  }
  return output;
}

// RFC 3986 §5.2.3.
std::string merge_paths(const UriParts& base, std::string_view reference_path) {
  if (base.authority && base.path.empty()) return "/" + std::string(reference_path);
  std::size_t slash = base.path.rfind('/');
  if (slash == std::string_view::npos) return std::string(reference_path);
  return std::string(base.path.substr(0, slash + 1)) + std::string(reference_path);
}

// RFC 3986 §5.3.
std::string recompose(const std::optional<std::string_view>& scheme,
                      const std::optional<std::string_view>& authority, std::string_view path,
                      const std::optional<std::string_view>& query,
                      const std::optional<std::string_view>& fragment) {
  std::string out;
  if (scheme) out.append(*scheme).push_back(':');
  if (authority) out.append("//").append(*authority);
  out.append(path);
  if (query) out.append("?").append(*query);
  if (fragment) out.append("#").append(*fragment);
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string resolve_url(std::string_view base, std::string_view reference) {
  UriParts b = split_uri(base);
  UriParts r = split_uri(reference);
  // §5.2.2, strict: a reference with a scheme is absolute even if it is the
  // base's scheme ("http:g" stays "http:g").
  if (r.scheme) {
    return recompose(r.scheme, r.authority, remove_dot_segments(r.path), r.query, r.fragment);
  }
  if (r.authority) {
    return recompose(b.scheme, r.authority, remove_dot_segments(r.path), r.query, r.fragment);
  }
  if (r.path.empty()) {
    return recompose(b.scheme, b.authority, b.path, r.query ? r.query : b.query, r.fragment);
  }
  std::string path = r.path[0] == '/' ? remove_dot_segments(r.path)
                                      : remove_dot_segments(merge_paths(b, r.path));
  return recompose(b.scheme, b.authority, path, r.query, r.fragment);
}

std::string percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      int high = hex_value(text[i + 1]);
      int low = hex_value(text[i + 2]);
      if (high >= 0 && low >= 0) {
        out.push_back(static_cast<char>(high * 16 + low));
        i += 2;
        continue;
      }
    }
    // A '%' not followed by two hex digits is kept as written, as browsers do.
    out.push_back(text[i]);
  }
  return out;
}

}  // namespace flashfit::net
