// setup.py's literals, by a small Python tokenizer: strings (prefixes, triple
// quotes, escapes), names, numbers, operators, brackets and logical line ends.
// It does not evaluate anything; a value counts only when its tokens are a
// plain literal. Bounded in every dimension, because an sdist is hostile input.
#include "build/setup_py.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "build/nvcc_targets.hpp"
#include "util/strings.hpp"

namespace flashfit::build {
namespace {

using util::ErrorKind;

constexpr std::size_t kMaxTextBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxListEntries = 10000;
constexpr std::size_t kMaxPathBytes = 4096;
constexpr std::size_t kMaxDepth = 200;

enum class Tok { name, string, number, op, open, close, newline };

struct Token {
  Tok kind = Tok::op;
  std::string text;  // names, operators, brackets; a string's decoded value
  std::size_t line = 0;
  bool plain = true;  // strings: not an f-string, not bytes, no escape we do not decode
};

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// r, b, u, f and their two-letter combinations, any case.
bool is_string_prefix(std::string_view word, bool& raw, bool& plain) {
  if (word.empty() || word.size() > 2) return false;
  raw = false;
  plain = true;
  for (char c : word) {
    switch (std::tolower(static_cast<unsigned char>(c))) {
      case 'r':
        raw = true;
        break;
      case 'u':
        break;
      case 'b':
      case 'f':
        plain = false;
        break;
      default:
        return false;
    }
  }
  return true;
}

class Tokenizer {
 public:
  explicit Tokenizer(std::string_view text) : text_(text) {}

  util::Result<std::vector<Token>> run() {
    std::vector<Token> out;
    std::vector<char> brackets;
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '\n') {
        if (brackets.empty() && (out.empty() || out.back().kind != Tok::newline))
          out.push_back({Tok::newline, "", line_});
        ++line_;
        ++at_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        ++at_;
      } else if (c == '#') {
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
      } else if (c == '\\' && at_ + 1 < text_.size() &&
                 (text_[at_ + 1] == '\n' || text_[at_ + 1] == '\r')) {
        at_ += text_[at_ + 1] == '\r' && at_ + 2 < text_.size() && text_[at_ + 2] == '\n' ? 3 : 2;
        ++line_;
      } else if (c == '"' || c == '\'') {
        auto s = string_token(false, true);
        if (!s) return tl::unexpected(std::move(s.error()));
        out.push_back(std::move(*s));
      } else if (is_name_start(c)) {
        const std::size_t start = at_;
        while (at_ < text_.size() && is_name_char(text_[at_])) ++at_;
        const std::string_view word = text_.substr(start, at_ - start);
        bool raw = false;
        bool plain = true;
        if (at_ < text_.size() && (text_[at_] == '"' || text_[at_] == '\'') &&
            is_string_prefix(word, raw, plain)) {
          auto s = string_token(raw, plain);
          if (!s) return tl::unexpected(std::move(s.error()));
          out.push_back(std::move(*s));
        } else {
          out.push_back({Tok::name, std::string(word), line_});
        }
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && at_ + 1 < text_.size() &&
                  std::isdigit(static_cast<unsigned char>(text_[at_ + 1])))) {
        const std::size_t start = at_;
        while (at_ < text_.size() && (is_name_char(text_[at_]) || text_[at_] == '.')) ++at_;
        out.push_back({Tok::number, std::string(text_.substr(start, at_ - start)), line_});
      } else if (c == '(' || c == '[' || c == '{') {
        if (brackets.size() >= kMaxDepth) return failure("brackets nested more than 200 deep");
        brackets.push_back(c);
        out.push_back({Tok::open, std::string(1, c), line_});
        ++at_;
      } else if (c == ')' || c == ']' || c == '}') {
        const char want = c == ')' ? '(' : c == ']' ? '[' : '{';
        if (brackets.empty() || brackets.back() != want)
          return failure(fmt::format("unbalanced '{}'", c));
        brackets.pop_back();
        out.push_back({Tok::close, std::string(1, c), line_});
        ++at_;
      } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        return failure("a control character outside a string");
      } else {
        out.push_back({Tok::op, operator_text(), line_});
      }
    }
    if (!brackets.empty()) return failure(fmt::format("'{}' is never closed", brackets.back()));
    out.push_back({Tok::newline, "", line_});
    return out;
  }

 private:
  util::Error failure_error(const std::string& what) const {
    return util::Error{ErrorKind::input, fmt::format("setup.py line {}: {}", line_, what),
                       "setup.py", ""};
  }
  tl::unexpected<util::Error> failure(const std::string& what) const {
    return tl::unexpected(failure_error(what));
  }

  std::string operator_text() {
    static constexpr std::string_view kTwo[] = {
        "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "&=",
        "|=", "^=", "@=", ":=", "->", "**", "//", "<<", ">>"};
    for (std::string_view two : kTwo) {
      if (text_.substr(at_, 2) == two) {
        at_ += 2;
        return std::string(two);
      }
    }
    return std::string(1, text_[at_++]);
  }

  // At the opening quote. Escapes: \\ \' \" \n \t and a backslash-newline are
  // decoded; any other one (\x41, \N{...}) makes the string not plain.
  util::Result<Token> string_token(bool raw, bool plain) {
    const char quote = text_[at_];
    const bool triple = text_.substr(at_, 3) == std::string(3, quote);
    const std::size_t start_line = line_;
    at_ += triple ? 3 : 1;
    Token t{Tok::string, "", start_line, plain};
    while (true) {
      if (at_ >= text_.size()) {
        line_ = start_line;
        return failure("unterminated string");
      }
      const char c = text_[at_];
      if (triple ? text_.substr(at_, 3) == std::string(3, quote) : c == quote) {
        at_ += triple ? 3 : 1;
        return t;
      }
      if (c == '\n') {
        if (!triple) {
          line_ = start_line;
          return failure("unterminated string");
        }
        ++line_;
      }
      if (c == '\\' && at_ + 1 < text_.size()) {
        const char e = text_[at_ + 1];
        if (e == '\n') ++line_;
        if (raw) {
          t.text += c;
          t.text += e;
        } else if (e == '\\' || e == '\'' || e == '"') {
          t.text += e;
        } else if (e == 'n') {
          t.text += '\n';
        } else if (e == 't') {
          t.text += '\t';
        } else if (e != '\n') {
          t.plain = false;
          t.text += c;
          t.text += e;
        }
        at_ += 2;
        continue;
      }
      t.text += c;
      ++at_;
    }
  }

  std::string_view text_;
  std::size_t at_ = 0;
  std::size_t line_ = 1;
};

// Index one past the bracket that closes tokens[open].
std::size_t matching_close(const std::vector<Token>& tokens, std::size_t open) {
  std::size_t depth = 0;
  for (std::size_t i = open; i < tokens.size(); ++i) {
    if (tokens[i].kind == Tok::open) ++depth;
    if (tokens[i].kind == Tok::close && --depth == 0) return i + 1;
  }
  return tokens.size();  // the tokenizer checked balance, so never reached
}

struct Range {
  std::size_t begin = 0;
  std::size_t end = 0;  // exclusive
  bool empty() const { return begin >= end; }
};

// The top-level comma-separated parts of tokens[begin, end).
std::vector<Range> split_arguments(const std::vector<Token>& tokens, Range inside) {
  std::vector<Range> out;
  std::size_t depth = 0;
  std::size_t start = inside.begin;
  for (std::size_t i = inside.begin; i < inside.end; ++i) {
    if (tokens[i].kind == Tok::open) ++depth;
    if (tokens[i].kind == Tok::close) --depth;
    if (depth == 0 && tokens[i].kind == Tok::op && tokens[i].text == ",") {
      out.push_back({start, i});
      start = i + 1;
    }
  }
  if (start < inside.end) out.push_back({start, inside.end});
  return out;
}

// A run of adjacent plain strings filling the whole range ("a" "b" == "ab").
std::optional<std::string> literal_string(const std::vector<Token>& tokens, Range r) {
  if (r.empty()) return std::nullopt;
  std::string value;
  for (std::size_t i = r.begin; i < r.end; ++i) {
    if (tokens[i].kind != Tok::string || !tokens[i].plain) return std::nullopt;
    value += tokens[i].text;
  }
  return value;
}

struct ListResult {
  std::optional<std::vector<std::string>> items;
  std::string why;  // when not literal
};

util::Result<ListResult> literal_list(const std::vector<Token>& tokens, Range r) {
  ListResult out;
  if (r.empty() || tokens[r.begin].kind != Tok::open || tokens[r.begin].text != "[" ||
      matching_close(tokens, r.begin) != r.end) {
    out.why = "is not a literal list";
    return out;
  }
  std::vector<std::string> items;
  for (const Range& item : split_arguments(tokens, {r.begin + 1, r.end - 1})) {
    auto value = literal_string(tokens, item);
    if (!value) {
      out.why =
          fmt::format("has an entry that is not a plain string (line {})", tokens[item.begin].line);
      return out;
    }
    if (items.size() >= kMaxListEntries) {
      return util::fail(ErrorKind::input,
                        fmt::format("setup.py line {}: a list of more than {} entries",
                                    tokens[r.begin].line, kMaxListEntries),
                        "setup.py");
    }
    items.push_back(std::move(*value));
  }
  out.items = std::move(items);
  return out;
}

// `name = <value>` at the start of a logical line, for a name passed as
// `sources=name`: literal only when assigned once and never changed in place.
util::Result<ListResult> resolve_name(const std::vector<Token>& tokens, const std::string& name) {
  std::optional<Range> assigned;
  std::size_t assignments = 0;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i].kind != Tok::name || tokens[i].text != name) continue;
    const bool starts_line = i == 0 || tokens[i - 1].kind == Tok::newline;
    const Token& next = tokens[i + 1];
    if (starts_line && next.kind == Tok::op && next.text == "=") {
      ++assignments;
      std::size_t end = i + 2;
      while (end < tokens.size() && tokens[end].kind != Tok::newline) ++end;
      assigned = Range{i + 2, end};
    } else if ((next.kind == Tok::op &&
                (next.text == "." || (next.text.size() == 2 && next.text[1] == '='))) ||
               (next.kind == Tok::open && next.text == "[")) {
      // name.append(...), name += ..., name[0] = ...: changed after its assignment.
      if (!(next.kind == Tok::op &&
            (next.text == "==" || next.text == "!=" || next.text == "<=" || next.text == ">="))) {
        ListResult out;
        out.why = fmt::format("{} is changed at line {}", name, tokens[i].line);
        return out;
      }
    }
  }
  if (assignments != 1) {
    ListResult out;
    out.why = assignments == 0 ? fmt::format("{} is not assigned a literal in setup.py", name)
                               : fmt::format("{} is assigned {} times", name, assignments);
    return out;
  }
  auto list = literal_list(tokens, *assigned);
  if (list && !list->items) list->why = fmt::format("{} {}", name, list->why);
  return list;
}

util::Result<void> check_source_path(const std::string& path, std::size_t line) {
  auto bad = [&](const char* why) {
    return util::fail(
        ErrorKind::input,
        fmt::format("setup.py line {}: source \"{}\" {}", line, util::printable(path, 100), why),
        "setup.py");
  };
  if (path.empty()) return bad("is empty");
  if (path.size() > kMaxPathBytes) return bad("is longer than 4096 bytes");
  for (unsigned char c : path) {
    if (c < 0x20 || c == 0x7f) return bad("has a control character");
  }
  if (path.front() == '/' || path.front() == '\\') return bad("is an absolute path");
  for (std::string_view part : util::split(path, '/')) {
    if (part == "..") return bad("leaves the source tree (..)");
  }
  return {};
}

bool is_extension_constructor(const std::string& name) {
  return name == "CUDAExtension" || name == "CppExtension" || name == "Extension";
}

util::Result<SetupExtension> read_extension(const std::vector<Token>& tokens, std::size_t at) {
  SetupExtension ext;
  ext.constructor = tokens[at].text;
  ext.line = tokens[at].line;
  const std::size_t open = at + 1;
  const std::size_t end = matching_close(tokens, open);
  std::optional<Range> name_arg;
  std::optional<Range> sources_arg;
  std::size_t positional = 0;
  bool starred = false;
  for (const Range& arg : split_arguments(tokens, {open + 1, end - 1})) {
    if (arg.empty()) continue;
    const Token& first = tokens[arg.begin];
    if (first.kind == Tok::op && (first.text == "*" || first.text == "**")) {
      starred = true;
      continue;
    }
    if (first.kind == Tok::name && arg.end - arg.begin >= 2 &&
        tokens[arg.begin + 1].kind == Tok::op && tokens[arg.begin + 1].text == "=") {
      const Range value{arg.begin + 2, arg.end};
      if (first.text == "name") name_arg = value;
      if (first.text == "sources") sources_arg = value;
      continue;
    }
    if (positional == 0) name_arg = arg;
    if (positional == 1) sources_arg = arg;
    ++positional;
  }
  if (name_arg) ext.name = literal_string(tokens, *name_arg);
  if (!sources_arg) {
    ext.not_literal = starred ? "sources come from *args / **kwargs" : "no sources argument";
    return ext;
  }
  util::Result<ListResult> list = ListResult{};
  const Range& value = *sources_arg;
  if (value.end - value.begin == 1 && tokens[value.begin].kind == Tok::name) {
    list = resolve_name(tokens, tokens[value.begin].text);
  } else {
    list = literal_list(tokens, value);
  }
  if (!list) return tl::unexpected(std::move(list.error()));
  if (!list->items) {
    ext.not_literal = fmt::format("sources (line {}) {}", tokens[value.begin].line, list->why);
    return ext;
  }
  for (const std::string& path : *list->items) {
    if (auto ok = check_source_path(path, tokens[value.begin].line); !ok)
      return tl::unexpected(ok.error());
  }
  ext.sources = std::move(list->items);
  return ext;
}

// "11.8" -> {11, 8}; nullopt for anything else.
std::optional<std::pair<unsigned, unsigned>> version_pair(std::string_view text) {
  const auto dot = text.find('.');
  auto number = [](std::string_view digits) -> std::optional<unsigned> {
    if (digits.empty() || digits.size() > 4) return std::nullopt;
    unsigned v = 0;
    for (char c : digits) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    return v;
  };
  auto major = number(text.substr(0, dot));
  auto minor =
      dot == std::string_view::npos ? std::optional<unsigned>(0) : number(text.substr(dot + 1));
  if (!major || !minor) return std::nullopt;
  return std::pair{*major, *minor};
}

// Each line's indentation (columns of leading blanks), 1-based lines.
std::vector<std::size_t> line_indents(std::string_view text) {
  std::vector<std::size_t> out{0};
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t n = 0;
    while (at + n < text.size() && (text[at + n] == ' ' || text[at + n] == '\t')) ++n;
    out.push_back(n);
    const auto nl = text.find('\n', at);
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  return out;
}

// `if NAME >= Version("X.Y"):` (or >, <, <=) at tokens[at] ("if"/"elif"):
// the version and whether it is a lower bound. Names holding "version" only,
// and not torch_/hip_ ones: the guards on nvcc's version (bare_metal_version).
struct VersionGuard {
  std::string version;
  bool at_least = true;
};
std::optional<VersionGuard> version_guard(const std::vector<Token>& t, std::size_t at) {
  if (at + 7 >= t.size()) return std::nullopt;
  const Token& name = t[at + 1];
  const Token& op = t[at + 2];
  if (name.kind != Tok::name || util::ascii_lower(name.text).find("version") == std::string::npos ||
      util::ascii_lower(name.text).find("torch") != std::string::npos ||
      util::ascii_lower(name.text).find("hip") != std::string::npos)
    return std::nullopt;
  if (op.kind != Tok::op ||
      (op.text != ">=" && op.text != "<" && op.text != ">" && op.text != "<="))
    return std::nullopt;
  if (t[at + 3].kind != Tok::name || t[at + 3].text != "Version" || t[at + 4].kind != Tok::open ||
      t[at + 5].kind != Tok::string || t[at + 6].kind != Tok::close)
    return std::nullopt;
  const auto bound = version_pair(t[at + 5].text);
  if (!bound) return std::nullopt;
  if (op.text == ">=" || op.text == "<") return VersionGuard{t[at + 5].text, op.text == ">="};
  // The name holds nvcc's MAJOR.MINOR only (setup.py parses "release 12.9,"),
  // so `> 12.8` is `>= 12.9` and `<= 12.9` is `< 12.10` (causal-conv1d 1.5.3
  // keeps sm_53..sm_70 with `<= Version("12.9")`: nvcc 12.9 compiles them).
  return VersionGuard{fmt::format("{}.{}", bound->first, bound->second + 1), op.text == ">"};
}

bool starts_logical_line(const std::vector<Token>& t, std::size_t i) {
  return i == 0 || t[i - 1].kind == Tok::newline;
}

// The version guards of the blocks enclosing tokens[at].
void read_guards(const std::vector<Token>& t, const std::vector<std::size_t>& indents,
                 std::size_t at, SetupGencode& out) {
  auto indent_of = [&](std::size_t i) {
    return t[i].line < indents.size() ? indents[t[i].line] : 0;
  };
  std::size_t inner = indent_of(at);
  // Find the start of the statement holding tokens[at].
  std::size_t i = at;
  while (i > 0 && !starts_logical_line(t, i)) --i;
  inner = indent_of(i);
  while (i > 0 && inner > 0) {
    --i;
    if (!starts_logical_line(t, i) || t[i].kind != Tok::name || indent_of(i) >= inner) continue;
    inner = indent_of(i);
    auto apply = [&](const VersionGuard& g, bool negate) {
      const bool at_least = negate ? !g.at_least : g.at_least;
      (at_least ? out.min_nvcc : out.below_nvcc) = g.version;
    };
    if (t[i].text == "if" || t[i].text == "elif") {
      if (auto g = version_guard(t, i)) apply(*g, false);
    } else if (t[i].text == "else") {
      // The `if` this `else` closes: the nearest earlier header at its indent.
      for (std::size_t j = i; j-- > 0;) {
        if (starts_logical_line(t, j) && indent_of(j) == inner && t[j].kind == Tok::name &&
            (t[j].text == "if" || t[j].text == "elif")) {
          if (auto g = version_guard(t, j)) apply(*g, true);
          break;
        }
        if (starts_logical_line(t, j) && indent_of(j) < inner) break;
      }
    }
  }
}

// "arch=compute_80,code=sm_80" -> {"sm_80"}; "code=[sm_80,compute_80]" ->
// both. Empty when the value is not a -gencode value (or a code is malformed).
std::vector<std::string> gencode_codes(const std::string& value) {
  if (value.rfind("arch=compute_", 0) != 0) return {};
  const auto at = value.find("code=");
  if (at == std::string::npos) return {};
  std::string list = value.substr(at + 5);
  const bool bracketed = !list.empty() && list.front() == '[';
  if (bracketed) {
    const auto close = list.find(']');
    if (close == std::string::npos) return {};
    list = list.substr(1, close - 1);
  }
  std::vector<std::string> out;
  for (std::string_view piece : util::split(list, ',')) {
    if (!parse_nvcc_target(piece)) return {};  // only what nvcc_targets can read
    out.emplace_back(piece);
    if (!bracketed) break;  // "code=sm_80,..." : the rest is not this value's
  }
  return out;
}

// "MAX_JOBS": upper-case letters, digits and underscores, a letter first; at most 512 kept.
constexpr std::size_t kMaxVariableNames = 512;
bool looks_like_variable(std::string_view text) {
  auto name_char = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  return text.size() >= 2 && text.size() <= 64 && text[0] >= 'A' && text[0] <= 'Z' &&
         std::all_of(text.begin(), text.end(), name_char);
}

}  // namespace

std::vector<std::string> gencode_for_nvcc(const std::vector<SetupGencode>& gencode, unsigned major,
                                          unsigned minor) {
  std::vector<std::string> out;
  const std::pair<unsigned, unsigned> nvcc{major, minor};
  for (const SetupGencode& g : gencode) {
    if (!g.min_nvcc.empty() && nvcc < *version_pair(g.min_nvcc)) continue;
    if (!g.below_nvcc.empty() && !(nvcc < *version_pair(g.below_nvcc))) continue;
    if (std::find(out.begin(), out.end(), g.code) == out.end()) out.push_back(g.code);
  }
  return out;
}

util::Result<SetupPyFacts> read_setup_py(std::string_view text) {
  if (text.size() > kMaxTextBytes)
    return util::fail(ErrorKind::input, "setup.py is larger than 1 MiB", "setup.py");
  if (text.find('\0') != std::string_view::npos)
    return util::fail(ErrorKind::input, "setup.py holds a NUL byte: not Python source", "setup.py");
  auto tokens = Tokenizer(text).run();
  if (!tokens) return tl::unexpected(std::move(tokens.error()));

  SetupPyFacts facts;
  const std::vector<Token>& t = *tokens;
  const std::vector<std::size_t> indents = line_indents(text);
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i].kind == Tok::string && t[i].plain) {
      for (std::string& code : gencode_codes(t[i].text)) {
        if (facts.gencode.size() >= 256) break;
        SetupGencode g{t[i].text, std::move(code), t[i].line, "", ""};
        read_guards(t, indents, i, g);
        facts.gencode.push_back(std::move(g));
      }
      if (looks_like_variable(t[i].text) && facts.variable_names.size() < kMaxVariableNames &&
          std::find(facts.variable_names.begin(), facts.variable_names.end(), t[i].text) ==
              facts.variable_names.end())
        facts.variable_names.push_back(t[i].text);
      // "--threads", "4": setup.py fixing nvcc's threads.
      if (t[i].text == "--threads" && i + 2 < t.size() && t[i + 1].kind == Tok::op &&
          t[i + 1].text == "," && t[i + 2].kind == Tok::string && !facts.nvcc_threads) {
        if (auto n = version_pair(t[i + 2].text);
            n && n->second == 0 && t[i + 2].text.find('.') == std::string::npos)
          facts.nvcc_threads = n->first;
      }
    }
    if (t[i].kind != Tok::name) continue;
    const bool call = t[i + 1].kind == Tok::open && t[i + 1].text == "(";
    const bool defined =
        i > 0 && t[i - 1].kind == Tok::name && (t[i - 1].text == "def" || t[i - 1].text == "class");
    if (call && !defined && is_extension_constructor(t[i].text)) {
      auto ext = read_extension(t, i);
      if (!ext) return tl::unexpected(std::move(ext.error()));
      facts.extensions.push_back(std::move(*ext));
    }
    if (t[i].text == "setup_requires" && t[i + 1].kind == Tok::op && t[i + 1].text == "=" &&
        !facts.setup_requires) {
      std::size_t end = i + 2;
      if (end < t.size() && t[end].kind == Tok::open) end = matching_close(t, end);
      auto list = literal_list(t, {i + 2, end});
      if (!list) return tl::unexpected(std::move(list.error()));
      if (list->items) facts.setup_requires = std::move(list->items);
    }
  }
  return facts;
}

}  // namespace flashfit::build
