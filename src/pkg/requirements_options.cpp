// The options part of a requirements-file line; see requirements_options.hpp.
#include "pkg/requirements_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "util/strings.hpp"

namespace flashfit::pkg::detail {
namespace {

struct Option {
  std::string_view name;     // the long name, what callers compare against
  std::string_view spelled;  // how it is matched: the long name, an alias or the short form
  bool takes_value;
  // Whether an abbreviation may stand for it. pip 23.0.1 does not know
  // --config-settings (newer pip does), so it only counts when written whole:
  // `--con` stays --constraint as in 23.0.1.
  bool abbreviates = true;
};

// pip 23.0.1's req_file parser (SUPPORTED_OPTIONS + SUPPORTED_OPTIONS_REQ),
// plus newer pip's --config-settings.
constexpr Option kOptions[] = {
    {"--requirement", "-r", true},
    {"--requirement", "--requirement", true},
    {"--constraint", "-c", true},
    {"--constraint", "--constraint", true},
    {"--index-url", "-i", true},
    {"--index-url", "--index-url", true},
    {"--index-url", "--pypi-url", true},
    {"--extra-index-url", "--extra-index-url", true},
    {"--find-links", "-f", true},
    {"--find-links", "--find-links", true},
    {"--no-index", "--no-index", false},
    {"--editable", "-e", true},
    {"--editable", "--editable", true},
    {"--no-binary", "--no-binary", true},
    {"--only-binary", "--only-binary", true},
    {"--prefer-binary", "--prefer-binary", false},
    {"--require-hashes", "--require-hashes", false},
    {"--pre", "--pre", false},
    {"--trusted-host", "--trusted-host", true},
    {"--use-feature", "--use-feature", true},
    {"--hash", "--hash", true},
    {"--global-option", "--global-option", true},
    {"--install-option", "--install-option", true},
    {"--config-settings", "--config-settings", true, false},
};

// optparse's _match_abbrev: the exact long name, else the one long name the
// text starts; several is an error naming them.
util::Result<const Option*> find_long(std::string_view typed, const std::string& where) {
  std::vector<const Option*> matches;
  for (const Option& option : kOptions) {
    if (option.spelled == typed) return &option;
    if (option.abbreviates && util::starts_with(option.spelled, "--") &&
        util::starts_with(option.spelled, typed))
      matches.push_back(&option);
  }
  if (matches.size() == 1) return matches.front();
  if (matches.empty()) {
    return util::input_error(fmt::format("unknown option '{}'", util::printable(typed)), where,
                             "see `pip install --help` for the options a requirements file "
                             "may hold");
  }
  std::vector<std::string_view> names;
  names.reserve(matches.size());
  for (const Option* option : matches) names.push_back(option->spelled);
  std::sort(names.begin(), names.end());
  return util::input_error(fmt::format("ambiguous option '{}': it could be {}",
                                       util::printable(typed), fmt::join(names, ", ")),
                           where, "write the option's whole name");
}

const Option* find_short(std::string_view typed) {
  for (const Option& option : kOptions) {
    if (option.spelled == typed) return &option;
  }
  return nullptr;
}

bool is_shell_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

}  // namespace

util::Result<std::vector<std::string>> shell_split(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;  // '' makes an empty word, so "in a word" is not "word not empty"
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (is_shell_space(c)) {
      if (in_word) out.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (++i == text.size()) return util::input_error("no character after the final '\\'");
      word += text[i];
    } else if (c == '\'') {
      const auto close = text.find('\'', i + 1);
      if (close == std::string_view::npos) return util::input_error("no closing quotation");
      word += text.substr(i + 1, close - i - 1);
      i = close;
    } else if (c == '"') {
      for (++i;; ++i) {
        if (i == text.size()) return util::input_error("no closing quotation");
        if (text[i] == '"') break;
        if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\'))
          ++i;
        word += text[i];
      }
    } else {
      word += c;
    }
  }
  if (in_word) out.push_back(std::move(word));
  return out;
}

util::Result<std::vector<ParsedOption>> parse_options(const std::vector<std::string>& tokens,
                                                      const std::string& where) {
  std::vector<ParsedOption> out;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string_view token = tokens[i];
    const Option* option = nullptr;
    std::optional<std::string_view> inline_value;
    if (token == "--") {
      // optparse would end the options there and pip ignore what follows.
      return util::input_error("unexpected '--' among the options", where);
    }
    if (util::starts_with(token, "--")) {
      const auto eq = token.find('=');
      if (eq != std::string_view::npos) inline_value = token.substr(eq + 1);
      auto found = find_long(token.substr(0, eq), where);
      if (!found) return tl::unexpected(found.error());
      option = *found;
    } else if (token.size() >= 2 && token[0] == '-') {
      option = find_short(token.substr(0, 2));
      if (token.size() > 2) inline_value = token.substr(2);
    }
    if (option == nullptr) {
      return util::input_error(fmt::format("unknown option '{}'", util::printable(token)), where,
                               "see `pip install --help` for the options a requirements file "
                               "may hold");
    }
    if (!option->takes_value) {
      if (inline_value) {
        return util::input_error(
            fmt::format("option '{}' takes no value", util::printable(option->name)), where);
      }
      out.push_back({option->name, {}, false});
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= tokens.size()) {
        return util::input_error(
            fmt::format("option '{}' needs a value", util::printable(option->name)), where);
      }
      inline_value = tokens[++i];
    }
    out.push_back({option->name, std::string(*inline_value), true});
  }
  return out;
}

}  // namespace flashfit::pkg::detail
