// pip's requirements-file format; see requirements_file.hpp for the
// differences from pip 23.0.1.
#include "pkg/requirements_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "pkg/marker.hpp"
#include "util/strings.hpp"

namespace flashfit::pkg {
namespace {

constexpr std::size_t max_include_depth = 32;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// pip's COMMENT_RE `(^|\s+)#.*$`: a '#' at the start or after whitespace.
std::string_view strip_comment(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || is_space(line[i - 1]))) return line.substr(0, i);
  }
  return line;
}

bool is_comment_line(std::string_view line) {
  const auto t = trim(line);
  return !t.empty() && t.front() == '#';
}

struct LogicalLine {
  std::size_t number;
  std::string text;
};

// pip's join_lines: a line ending in '\' (and not a comment) continues on
// the next; an unfinished one at end of file is an error here.
util::Result<std::vector<LogicalLine>> join_lines(std::string_view text, const std::string& file) {
  std::vector<LogicalLine> out;
  std::optional<LogicalLine> pending;
  std::size_t number = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    if (pos == text.size() && (text.empty() || text.back() == '\n')) break;
    const auto end = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = end == std::string_view::npos ? text.size() + 1 : end + 1;
    ++number;
    if (line.find('\0') != std::string_view::npos) {
      return util::input_error("NUL byte in line", fmt::format("{}:{}", file, number));
    }
    const bool continues = ends_with(line, "\\") && !is_comment_line(line);
    if (continues) {
      if (!pending) pending = LogicalLine{number, {}};
      std::string_view body = line;
      while (!body.empty() && body.back() == '\\') body.remove_suffix(1);
      pending->text += body;
      continue;
    }
    if (pending) {
      // A comment line ends a continuation, as in pip (prefixed so it stays a comment).
      pending->text += is_comment_line(line) ? " " + std::string(line) : std::string(line);
      out.push_back(std::move(*pending));
      pending.reset();
    } else {
      out.push_back({number, std::string(line)});
    }
  }
  if (pending) {
    return util::input_error("unterminated line continuation at end of file",
                             fmt::format("{}:{}", file, pending->number),
                             "remove the trailing '\\' or add the continued line");
  }
  return out;
}

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    const auto start = i;
    while (i < s.size() && !is_space(s[i])) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
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

// pip treats as a path or URL what has a scheme, a path separator, a leading
// '.', or an archive suffix; everything else must be PEP 508.
bool looks_like_location(std::string_view spec) {
  const auto semi = spec.find(';');
  const auto head = trim(spec.substr(0, semi));
  if (head.find(" @") != std::string_view::npos || head.find("@ ") != std::string_view::npos) {
    return false;
  }
  if (head.find("://") != std::string_view::npos || starts_with(head, "file:")) return true;
  if (head.find('/') != std::string_view::npos || starts_with(head, ".")) return true;
  for (auto suffix : {".whl", ".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar"}) {
    if (ends_with(head, suffix)) return true;
  }
  return false;
}

std::string join_path(const std::string& including, std::string_view target) {
  if (target.find("://") != std::string_view::npos || starts_with(target, "/")) {
    return std::string(target);
  }
  const auto slash = including.rfind('/');
  if (slash == std::string::npos) return std::string(target);
  return including.substr(0, slash + 1) + std::string(target);
}

struct Option {
  std::string_view name;
  bool takes_value;
};

// The option names of pip 23.0.1's req_file (SUPPORTED_OPTIONS + per-requirement).
constexpr Option known_options[] = {
    {"-r", true},
    {"--requirement", true},
    {"-c", true},
    {"--constraint", true},
    {"-i", true},
    {"--index-url", true},
    {"--extra-index-url", true},
    {"-f", true},
    {"--find-links", true},
    {"--no-index", false},
    {"-e", true},
    {"--editable", true},
    {"--no-binary", true},
    {"--only-binary", true},
    {"--prefer-binary", false},
    {"--require-hashes", false},
    {"--pre", false},
    {"--trusted-host", true},
    {"--use-feature", true},
    {"--hash", true},
    {"--global-option", true},
    {"--install-option", true},
    {"--config-settings", true},
};

const Option* find_option(std::string_view name) {
  for (const auto& option : known_options) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

struct ParsedOption {
  std::string_view name;
  std::string value;
};

// Splits option tokens into (name, value), accepting `--x=v`, `--x v`, `-xv`, `-x v`.
util::Result<std::vector<ParsedOption>> parse_options(const std::vector<std::string_view>& tokens,
                                                      std::size_t first, const std::string& where) {
  std::vector<ParsedOption> out;
  for (std::size_t i = first; i < tokens.size(); ++i) {
    std::string_view token = tokens[i];
    std::string_view name = token;
    std::optional<std::string_view> inline_value;
    if (starts_with(token, "--")) {
      const auto eq = token.find('=');
      if (eq != std::string_view::npos) {
        name = token.substr(0, eq);
        inline_value = token.substr(eq + 1);
      }
    } else if (token.size() > 2 && token[0] == '-') {
      name = token.substr(0, 2);
      inline_value = token.substr(2);
    }
    const Option* option = find_option(name);
    if (option == nullptr || !starts_with(token, "-")) {
      return util::input_error(fmt::format("unknown option '{}'", util::printable(token)), where,
                               "see `pip install --help` for the options a requirements file "
                               "may hold");
    }
    if (!option->takes_value) {
      if (inline_value) {
        return util::input_error(fmt::format("option '{}' takes no value", util::printable(name)),
                                 where);
      }
      out.push_back({option->name, {}});
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= tokens.size()) {
        return util::input_error(fmt::format("option '{}' needs a value", util::printable(name)),
                                 where);
      }
      inline_value = tokens[++i];
    }
    out.push_back({option->name, std::string(*inline_value)});
  }
  return out;
}

class Parser {
 public:
  explicit Parser(FileReader& reader) : reader_(reader) {}

  util::Result<void> parse(std::string_view text, const std::string& file, bool constraint) {
    if (stack_.size() >= max_include_depth) {
      return util::input_error("includes nested too deeply", file);
    }
    stack_.push_back(file);
    auto lines = join_lines(text, file);
    if (!lines) return tl::unexpected(lines.error());
    for (const auto& logical : *lines) {
      const auto where = fmt::format("{}:{}", file, logical.number);
      const auto body = trim(strip_comment(logical.text));
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
    const auto tokens = split_ws(body);
    // pip's break_args_options: the requirement is the tokens before the first option.
    std::size_t first_option = 0;
    while (first_option < tokens.size() && !starts_with(tokens[first_option], "-")) {
      ++first_option;
    }
    std::string spec;
    for (std::size_t i = 0; i < first_option; ++i) {
      if (i) spec += ' ';
      spec += tokens[i];
    }
    auto options = parse_options(tokens, first_option, where);
    if (!options) return tl::unexpected(options.error());

    if (!spec.empty()) return requirement_line(spec, *options, file, number, where, constraint);
    bool passed_through = false;
    for (const auto& option : *options) {
      const auto& name = option.name;
      if (name == "-r" || name == "--requirement" || name == "-c" || name == "--constraint") {
        const bool nested_constraint = constraint || name == "-c" || name == "--constraint";
        auto included = include(option.value, file, where, nested_constraint);
        if (!included) return included;
      } else if (name == "-i" || name == "--index-url") {
        result.index_url = option.value;
      } else if (name == "--extra-index-url") {
        result.extra_index_urls.push_back(option.value);
      } else if (name == "-f" || name == "--find-links") {
        result.find_links.push_back(option.value);
      } else if (name == "--no-index") {
        result.no_index = true;
      } else if (name == "--hash" || name == "--global-option" || name == "--install-option" ||
                 name == "--config-settings") {
        return util::input_error(
            fmt::format("option '{}' belongs after a requirement on the same line", name), where);
      } else {
        // Kept once per line; the line's other options are still acted on.
        if (!passed_through) result.passthrough.push_back({file, number, std::string(body)});
        passed_through = true;
      }
    }
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
      } else if (option.name != "--global-option" && option.name != "--install-option" &&
                 option.name != "--config-settings") {
        return util::input_error(
            fmt::format("option '{}' cannot follow a requirement", option.name), where);
      }
    }
    if (looks_like_location(spec)) {
      std::string_view head = spec;
      const auto semi = head.find(';');
      if (semi != std::string_view::npos) {
        auto marker = Marker::parse(trim(head.substr(semi + 1)));
        if (!marker) {
          return util::input_error(fmt::format("bad marker: {}", marker.error().message), where);
        }
        head = head.substr(0, semi);
      }
      line.location = std::string(trim(head));
    } else {
      auto requirement = parse_requirement(spec);
      if (!requirement) {
        return util::input_error(requirement.error().message, where, requirement.error().hint);
      }
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

}  // namespace flashfit::pkg
