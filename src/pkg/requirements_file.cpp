// pip's requirements-file format; see requirements_file.hpp for the
// differences from pip 23.0.1.
#include "pkg/requirements_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "pkg/marker.hpp"
#include "pkg/requirements_options.hpp"
#include "pkg/requirements_text.hpp"
#include "util/strings.hpp"

namespace flashfit::pkg {
namespace {

constexpr std::size_t kMaxIncludeDepth = 32;

using detail::is_space;
using detail::ParsedOption;
using detail::trim;

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

bool is_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

util::Result<std::string> check_hash(std::string_view value, const std::string& where) {
  const auto colon = value.find(':');
  const auto algo = colon == std::string_view::npos ? value : value.substr(0, colon);
  const auto hex = colon == std::string_view::npos ? std::string_view{} : value.substr(colon + 1);
  std::size_t digits = 0;
  if (algo == "sha256") digits = 64;
  if (algo == "sha384") digits = 96;
  if (algo == "sha512") digits = 128;
  if (colon == std::string_view::npos || digits == 0 || hex.size() != digits || !is_hex(hex)) {
    return util::input_error(
        fmt::format("malformed hash '{}'", util::printable(value)), where,
        "write --hash=sha256:<64 hex digits> (sha384 and sha512 are accepted too)");
  }
  std::string out(value);
  std::transform(out.begin() + static_cast<std::ptrdiff_t>(colon), out.end(),
                 out.begin() + static_cast<std::ptrdiff_t>(colon),
                 [](char c) { return static_cast<char>(c >= 'A' && c <= 'F' ? c + 32 : c); });
  return out;
}

// pip's is_url: a scheme it fetches (http, https, file, ftp, or a VCS one).
bool is_url(std::string_view spec) {
  const auto colon = spec.find(':');
  if (colon == std::string_view::npos) return false;
  const auto scheme = util::ascii_lower(spec.substr(0, colon));
  if (scheme == "http" || scheme == "https" || scheme == "file" || scheme == "ftp") return true;
  for (auto vcs : {"git", "hg", "svn", "bzr"}) {
    if (scheme == vcs || starts_with(scheme, std::string(vcs) + "+")) return true;
  }
  return false;
}

struct PathAndExtras {
  std::string_view path;
  std::string_view extras;  // "[a,b]", or empty
};

// pip's _strip_extras: a path (not a URL) may end in `[extras]`, which pip
// cuts off before it looks at the file.
PathAndExtras strip_extras(std::string_view head) {
  if (is_url(head) || head.size() < 3 || head.back() != ']') return {head, {}};
  const auto open = head.rfind('[');
  if (open == std::string_view::npos || open == 0 || open + 2 >= head.size() ||
      head.substr(open + 1, head.size() - open - 2).find(']') != std::string_view::npos)
    return {head, {}};
  return {head.substr(0, open), head.substr(open)};
}

// pip treats as a path or URL what has a known scheme, a path separator, a
// leading '.', or an archive suffix; everything else must be PEP 508. So is
// `name@URL` without spaces (`flash-attn@git+https://…@v2.7.4`): what comes
// before its first '@' does not look like a path (pip's _get_url_from_path;
// pip would take an existing file of that name, which this pure reader does
// not look for).
bool looks_like_location(std::string_view spec) {
  const auto semi = spec.find(';');
  const auto head = strip_extras(trim(spec.substr(0, semi))).path;
  if (head.find(" @") != std::string_view::npos || head.find("@ ") != std::string_view::npos) {
    return false;
  }
  if (is_url(head)) return true;
  if (const auto at = head.find('@'); at != std::string_view::npos) {
    const auto before = head.substr(0, at);
    if (before.find('/') == std::string_view::npos && !starts_with(before, ".")) return false;
  }
  if (head.find('/') != std::string_view::npos || starts_with(head, ".")) return true;
  for (auto suffix : {".whl", ".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar"}) {
    if (ends_with(head, suffix)) return true;
  }
  return false;
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

// packaging 21.3 (inside pip 23.0.1) also reads legacy specifiers: one of
// ==, !=, <=, >=, <, > and any text up to ',', ';', ')' or whitespace
// (`>=1.0.*`, `>=abc`, even `>=` alone), maybe in parentheses. The
// requirement without its specifier when that grammar reads `head` (no
// marker), nullopt when it refuses it too.
std::optional<Requirement> loose_requirement(std::string_view head) {
  head = trim(head);
  std::size_t i = 0;
  const auto skip_space = [&] {
    while (i < head.size() && is_space(head[i])) ++i;
  };
  while (i < head.size() && is_name_char(head[i])) ++i;
  const auto name = head.substr(0, i);
  skip_space();
  std::string_view extras;
  if (i < head.size() && head[i] == '[') {
    const auto close = head.find(']', i);
    if (close == std::string_view::npos) return std::nullopt;
    extras = head.substr(i, close + 1 - i);
    i = close + 1;
    skip_space();
  }
  const bool parenthesised = i < head.size() && head[i] == '(';
  if (parenthesised) ++i;
  bool any_legacy = false;
  for (bool first = true;; first = false) {
    skip_space();
    std::string_view op;
    for (auto candidate : {"===", "~=", "==", "!=", "<=", ">=", "<", ">"}) {
      if (starts_with(head.substr(i), candidate)) {
        op = candidate;
        break;
      }
    }
    if (op.empty()) {
      if (!first) return std::nullopt;  // a ',' with nothing after it
      break;
    }
    i += op.size();
    skip_space();
    const auto begin = i;
    while (i < head.size() && !is_space(head[i]) && head[i] != ',' && head[i] != ';' &&
           head[i] != ')')
      ++i;
    const auto version = head.substr(begin, i - begin);
    // pip's "Extras after version" check, after packaging has read it.
    if (ends_with(version, "]")) return std::nullopt;
    if (op == "~=" || op == "===") {
      // Not legacy operators: only their strict form is read.
      if (!SpecifierSet::parse(std::string(op) + std::string(version))) return std::nullopt;
    } else {
      any_legacy = true;
    }
    skip_space();
    if (i < head.size() && head[i] == ',') {
      ++i;
      continue;
    }
    break;
  }
  if (parenthesised) {
    if (i >= head.size() || head[i] != ')') return std::nullopt;
    ++i;
    skip_space();
  }
  if (!any_legacy || i != head.size()) return std::nullopt;
  auto base = parse_requirement(std::string(name) + std::string(extras));
  if (!base) return std::nullopt;
  return std::move(*base);
}

std::string join_path(const std::string& including, std::string_view target) {
  if (target.find("://") != std::string_view::npos || starts_with(target, "/")) {
    return std::string(target);
  }
  const auto slash = including.rfind('/');
  if (slash == std::string::npos) return std::string(target);
  return including.substr(0, slash + 1) + std::string(target);
}

std::string render_option(const ParsedOption& option) {
  if (!option.takes_value) return std::string(option.name);
  return std::string(option.name) + "=" + quote_option_value(option.value);
}

bool belongs_to_a_requirement(std::string_view name) {
  return name == "--hash" || name == "--global-option" || name == "--install-option" ||
         name == "--config-settings";
}

class Parser {
 public:
  explicit Parser(FileReader& reader) : reader_(reader) {}

  util::Result<void> parse(std::string_view bytes, const std::string& file, bool constraint) {
    if (stack_.size() >= kMaxIncludeDepth) {
      return util::input_error("includes nested too deeply", file);
    }
    stack_.push_back(file);
    auto text = detail::decode_text(bytes, file);
    if (!text) return tl::unexpected(text.error());
    auto lines = detail::join_lines(*text, file);
    if (!lines) return tl::unexpected(lines.error());
    for (const auto& logical : *lines) {
      const auto where = fmt::format("{}:{}", file, logical.number);
      const auto body = trim(detail::strip_comment(logical.text));
      if (body.empty()) continue;
      auto done = parse_line(body, file, logical.number, where, constraint);
      if (!done) return done;
    }
    stack_.pop_back();
    return {};
  }

  RequirementsFile result;

 private:
  util::Result<void> parse_line(std::string_view body, const std::string& file, std::size_t number,
                                const std::string& where, bool constraint) {
    // pip's break_args_options: the requirement is the words before the first
    // one starting with '-'; from there on the line is shlex-split, so option
    // values may be quoted ("--find-links 'my wheels'").
    std::string spec;
    std::size_t i = 0;
    while (i < body.size()) {
      while (i < body.size() && is_space(body[i])) ++i;
      if (i == body.size() || body[i] == '-') break;
      const auto start = i;
      while (i < body.size() && !is_space(body[i])) ++i;
      if (!spec.empty()) spec += ' ';
      spec += body.substr(start, i - start);
    }
    auto tokens = detail::shell_split(body.substr(i));
    if (!tokens) {
      return util::input_error(fmt::format("cannot split the options: {}", tokens.error().message),
                               where, "close the quote, or quote the value as a shell would");
    }
    auto options = detail::parse_options(*tokens, where);
    if (!options) return tl::unexpected(options.error());

    if (!spec.empty()) return requirement_line(spec, *options, file, number, where, constraint);
    return option_line(*options, file, number, where);
  }

  util::Result<void> option_line(const std::vector<ParsedOption>& options, const std::string& file,
                                 std::size_t number, const std::string& where) {
    // pip's _parse_and_recurse: a line with -r (else -c) includes the first
    // such file and nothing else on it is acted on. The option, not the
    // including file, says how the lines are read: `-r` inside a -c file
    // reads requirements.
    for (std::string_view include_option : {"--requirement", "--constraint"}) {
      for (const auto& option : options) {
        if (option.name == include_option) {
          return include(option.value, file, where, include_option == "--constraint");
        }
      }
    }
    std::vector<std::string> kept;
    bool find_links_seen = false;
    // pip's handle_option_line, whatever the options' order on the line:
    // --no-index empties the index URLs and no later one is taken; else a
    // line's --index-url replaces those read so far (the extra ones too),
    // then its --extra-index-urls are added.
    const auto on_line = [&](std::string_view name) {
      return std::any_of(options.begin(), options.end(),
                         [&](const ParsedOption& o) { return o.name == name; });
    };
    if (on_line("--no-index")) {
      result.no_index = true;
      result.index_url.reset();
      result.extra_index_urls.clear();
    }
    for (const auto& option : options) {
      if (option.name != "--index-url" || result.no_index) continue;
      result.index_url = option.value;
      result.extra_index_urls.clear();
    }
    for (const auto& option : options) {
      const auto& name = option.name;
      if (name == "--index-url" || name == "--no-index") {
        continue;
      } else if (name == "--extra-index-url") {
        if (!result.no_index) result.extra_index_urls.push_back(option.value);
      } else if (name == "--find-links") {
        // pip takes the first --find-links of a line only.
        if (!find_links_seen) result.find_links.push_back(option.value);
        find_links_seen = true;
      } else if (belongs_to_a_requirement(name)) {
        return util::input_error(
            fmt::format("option '{}' belongs after a requirement on the same line", name), where);
      } else {
        kept.push_back(render_option(option));
      }
    }
    if (!kept.empty()) result.passthrough.push_back({file, number, util::join(kept, " ")});
    return {};
  }

  util::Result<void> requirement_line(const std::string& spec,
                                      const std::vector<ParsedOption>& options,
                                      const std::string& file, std::size_t number,
                                      const std::string& where, bool constraint) {
    RequirementLine line;
    line.file = file;
    line.line = number;
    line.text = spec;
    line.constraint = constraint;
    for (const auto& option : options) {
      if (option.name == "--hash") {
        auto hash = check_hash(option.value, where);
        if (!hash) return tl::unexpected(hash.error());
        line.hashes.push_back(std::move(*hash));
      } else if (belongs_to_a_requirement(option.name)) {
        line.options.push_back({std::string(option.name), option.value});
      } else {
        return util::input_error(
            fmt::format("option '{}' cannot follow a requirement", option.name), where);
      }
    }
    // pip cuts the marker off at the first ';' before it reads the rest, so
    // `name @ URL;marker` needs no space before the ';'. (A line that starts
    // with a URL pip cuts at "; "; flashfit cuts it at ';' too, as before.)
    std::string_view head = spec;
    std::optional<Marker> marker;
    if (const auto semi = head.find(';'); semi != std::string_view::npos) {
      const auto marker_text = trim(head.substr(semi + 1));
      if (!marker_text.empty()) {
        auto parsed = Marker::parse(marker_text);
        if (!parsed) {
          return util::input_error(fmt::format("bad marker: {}", parsed.error().message), where);
        }
        marker = std::move(*parsed);
      }
      head = head.substr(0, semi);
    }
    if (looks_like_location(spec)) {
      const auto [path, extras] = strip_extras(trim(head));
      if (!extras.empty()) {
        auto named = parse_requirement("placeholder" + std::string(extras));
        if (!named) {
          return util::input_error(
              fmt::format("bad extras '{}': {}", util::printable(extras), named.error().message),
              where);
        }
        line.extras = named->extras;
      }
      line.location = std::string(path);
    } else {
      auto requirement = parse_requirement(head);
      if (!requirement) {
        auto loose = loose_requirement(head);
        if (!loose) {
          return util::input_error(requirement.error().message, where, requirement.error().hint);
        }
        line.loose_specifier = requirement.error();
        requirement = std::move(*loose);
      }
      requirement->marker = std::move(marker);
      line.requirement = std::move(*requirement);
    }
    result.lines.push_back(std::move(line));
    return {};
  }

  util::Result<void> include(const std::string& target, const std::string& file,
                             const std::string& where, bool constraint) {
    const auto path = join_path(file, target);
    if (std::find(stack_.begin(), stack_.end(), path) != stack_.end()) {
      return util::input_error(fmt::format("include loop: '{}' includes itself", path), where);
    }
    auto text = reader_.read(path);
    if (!text) {
      return util::input_error(
          fmt::format("cannot read included file '{}': {}", path, text.error().message), where);
    }
    return parse(*text, path, constraint);
  }

  FileReader& reader_;
  std::vector<std::string> stack_;
};

}  // namespace

util::Result<RequirementsFile> parse_requirements_file(std::string_view text,
                                                       const std::string& file,
                                                       FileReader& reader) {
  Parser parser(reader);
  auto done = parser.parse(text, file, false);
  if (!done) return tl::unexpected(done.error());
  return std::move(parser.result);
}

std::string quote_option_value(std::string_view value) {
  const std::string quoted = util::shell_quote(value);
  // pip drops a comment (a '#' after whitespace) before it splits the line,
  // quotes or not; a '#' written as \# outside the quotes is never one.
  std::string out;
  for (const char c : quoted) out += c == '#' ? std::string("'\\#'") : std::string(1, c);
  return out;
}

}  // namespace flashfit::pkg
