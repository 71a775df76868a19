#include "resolve/toml_reader.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <exception>

#include "util/strings.hpp"

namespace flashfit::resolve::detail {
namespace {

std::string_view type_words(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    default:
      return "nothing";
  }
}

std::string line_suffix(const toml::node* node) {
  if (node == nullptr || node->source().begin.line == 0) return {};
  return fmt::format(" (line {})", node->source().begin.line);
}

std::size_t line_of(std::string_view text, std::size_t offset) {
  return static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n')) + 1;
}

}  // namespace

util::Result<toml::table> parse_toml(std::string_view text, std::string_view origin) {
  if (text.size() > kMaxTomlBytes) {
    return util::input_error(
        fmt::format("file too large ({} bytes; the limit is {})", text.size(), kMaxTomlBytes),
        std::string(origin));
  }
  // toml++ stops at a NUL as at any control character, but saying so plainly
  // helps with a binary file given by mistake.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return util::input_error(
        fmt::format("NUL byte at line {}: not a TOML text file", line_of(text, nul)),
        std::string(origin));
  }
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return util::input_error(fmt::format("invalid TOML at line {}, column {}: {}", where.line,
                                         where.column, util::printable(e.description())),
                             std::string(origin));
  } catch (const std::exception& e) {
    // bad_alloc and the like: still an answer about this file, not a crash.
    return util::input_error(fmt::format("cannot parse TOML: {}", e.what()), std::string(origin));
  }
}

std::string index_path(std::string_view parent, std::size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

std::string key_path(std::string_view parent, std::string_view key) {
  std::string shown = util::printable(key, 80);
  if (parent.empty()) return shown;
  return fmt::format("{}.{}", parent, shown);
}

void TomlReader::fail(const toml::node* where, std::string_view path, std::string_view message,
                      std::string hint) {
  if (error_) return;
  std::string text = path.empty() ? std::string(message) : fmt::format("{}: {}", path, message);
  error_ = util::Error{util::ErrorKind::input, text + line_suffix(where), origin_, std::move(hint)};
}

void TomlReader::check_keys(const toml::table& table, std::string_view path,
                            std::initializer_list<std::string_view> allowed) {
  for (auto&& [key, node] : table) {
    const std::string_view name = key.str();
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
    std::string_view best;
    if (name.size() <= 64) {
      const auto near = util::near_names(name, allowed, util::within_a_third(2));
      if (!near.empty()) best = allowed.begin()[near.front().index];
    }
    std::string hint =
        best.empty()
            ? fmt::format(
                  "known keys here: {}",
                  util::join(std::vector<std::string>(allowed.begin(), allowed.end()), ", "))
            : fmt::format("did you mean '{}'?", best);
    fail(&node, key_path(path, name), "unknown key", std::move(hint));
    return;
  }
}

bool TomlReader::check_text(const toml::node& node, std::string_view path, std::string_view text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\t' && c != '\n') || byte == 0x7f) {
      fail(&node, path, fmt::format("control character \\x{:02x} in a string", byte));
      return false;
    }
  }
  return true;
}

std::optional<std::string> TomlReader::string(const toml::table& table, std::string_view path,
                                              std::string_view key, std::string_view expected) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return std::nullopt;
  const std::string here = key_path(path, key);
  const auto* value = node->as_string();
  if (value == nullptr) {
    fail(node, here, fmt::format("expected {}, got {}", expected, type_words(*node)));
    return std::nullopt;
  }
  if (!check_text(*node, here, value->get())) return std::nullopt;
  return value->get();
}

std::string TomlReader::required(const toml::table& table, std::string_view path,
                                 std::string_view key) {
  auto value = string(table, path, key);
  if (!value) {
    if (ok()) fail(&table, key_path(path, key), "missing (required)");
    return {};
  }
  if (value->empty()) fail(table.get(key), key_path(path, key), "must not be empty");
  return *value;
}

std::optional<bool> TomlReader::boolean(const toml::table& table, std::string_view path,
                                        std::string_view key) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return std::nullopt;
  if (const auto* value = node->as_boolean()) return value->get();
  fail(node, key_path(path, key), fmt::format("expected true or false, got {}", type_words(*node)));
  return std::nullopt;
}

std::optional<std::int64_t> TomlReader::integer(const toml::table& table, std::string_view path,
                                                std::string_view key) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return std::nullopt;
  if (const auto* value = node->as_integer()) return value->get();
  fail(node, key_path(path, key), fmt::format("expected an integer, got {}", type_words(*node)));
  return std::nullopt;
}

std::optional<double> TomlReader::number(const toml::table& table, std::string_view path,
                                         std::string_view key) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return std::nullopt;
  if (const auto* value = node->as_integer()) return static_cast<double>(value->get());
  if (const auto* value = node->as_floating_point()) {
    if (std::isfinite(value->get())) return value->get();
    fail(node, key_path(path, key), "expected a finite number");
    return std::nullopt;
  }
  fail(node, key_path(path, key), fmt::format("expected a number, got {}", type_words(*node)));
  return std::nullopt;
}

const toml::table* TomlReader::table(const toml::table& table, std::string_view path,
                                     std::string_view key) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return nullptr;
  if (const auto* value = node->as_table()) return value;
  fail(node, key_path(path, key), fmt::format("expected a table, got {}", type_words(*node)));
  return nullptr;
}

const toml::array* TomlReader::table_array(const toml::table& table, std::string_view path,
                                           std::string_view key) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return nullptr;
  const std::string here = key_path(path, key);
  const auto* array = node->as_array();
  if (array == nullptr) {
    fail(
        node, here,
        fmt::format("expected [[{}]] blocks (an array of tables), got {}", key, type_words(*node)));
    return nullptr;
  }
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& item = *array->get(i);
    if (!item.is_table()) {
      fail(&item, index_path(here, i), fmt::format("expected a table, got {}", type_words(item)));
      return nullptr;
    }
  }
  return array;
}

std::optional<std::vector<StringItem>> TomlReader::strings(const toml::table& table,
                                                           std::string_view path,
                                                           std::string_view key,
                                                           std::string_view expected) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return std::nullopt;
  const std::string here = key_path(path, key);
  const auto* array = node->as_array();
  if (array == nullptr) {
    fail(node, here, fmt::format("expected an array of strings, got {}", type_words(*node)));
    return std::nullopt;
  }
  std::vector<StringItem> items;
  items.reserve(array->size());
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& item = *array->get(i);
    std::string item_path = index_path(here, i);
    const auto* value = item.as_string();
    if (value == nullptr) {
      fail(&item, item_path, fmt::format("expected {}, got {}", expected, type_words(item)));
      return std::nullopt;
    }
    if (!check_text(item, item_path, value->get())) return std::nullopt;
    items.push_back(StringItem{value->get(), std::move(item_path), &item});
  }
  return items;
}

}  // namespace flashfit::resolve::detail
