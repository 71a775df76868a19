#pragma once
// Reading recipes and the config from TOML (toml++; used by resolve/ and by
// workflow/pylock_parse.cpp for PEP 751 locks).
// Both files are written by people, so every mistake must come back as an
// error that names the file, the key path ("release[3].gpu_archs[1]") and
// the line, and a key nobody reads (a typo) is an error too, never ignored.
#include <toml++/toml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace flashfit::resolve::detail {

// Recipes and configs are a few KiB; anything far bigger is not one.
inline constexpr std::size_t kMaxTomlBytes = std::size_t{1024} * 1024;

// Parses TOML text. Syntax errors, NUL bytes and oversized input are input
// errors whose context is `origin`.
util::Result<toml::table> parse_toml(std::string_view text, std::string_view origin);

// "release" + 3 -> "release[3]"; "build" + "env" -> "build.env".
std::string index_path(std::string_view parent, std::size_t index);
std::string key_path(std::string_view parent, std::string_view key);

// One string from an array, with where it sits (for per-element errors).
struct StringItem {
  std::string value;
  std::string path;
  const toml::node* node = nullptr;
};

// Walks a parsed document and keeps the first error; getters return nullopt
// for a missing key and for a wrong type (which records the error), so a
// parser reads on and reports once at the end.
class TomlReader {
 public:
  explicit TomlReader(std::string origin) : origin_(std::move(origin)) {}

  bool ok() const { return !error_.has_value(); }
  const std::string& origin() const { return origin_; }
  // The first error; only valid when !ok().
  util::Error error() const { return *error_; }

  // Records an error at `path` (the node gives the line) unless one is already recorded.
  void fail(const toml::node* where, std::string_view path, std::string_view message,
            std::string hint = {});

  // Every key of `table` must be in `allowed`; the first other one is an error
  // with a did-you-mean from `allowed`.
  void check_keys(const toml::table& table, std::string_view path,
                  std::initializer_list<std::string_view> allowed);

  // `expected` words the type error ("a string like \"8.0\""); defaults suit most keys.
  std::optional<std::string> string(const toml::table& table, std::string_view path,
                                    std::string_view key, std::string_view expected = "a string");
  // A non-empty string that must be present; "" after recording the error.
  std::string required(const toml::table& table, std::string_view path, std::string_view key);
  std::optional<bool> boolean(const toml::table& table, std::string_view path,
                              std::string_view key);
  std::optional<std::int64_t> integer(const toml::table& table, std::string_view path,
                                      std::string_view key);
  // An integer or a float.
  std::optional<double> number(const toml::table& table, std::string_view path,
                               std::string_view key);
  const toml::table* table(const toml::table& table, std::string_view path, std::string_view key);
  // An array of tables ([[name]] blocks); nullptr when absent or wrong.
  const toml::array* table_array(const toml::table& table, std::string_view path,
                                 std::string_view key);
  std::optional<std::vector<StringItem>> strings(const toml::table& table, std::string_view path,
                                                 std::string_view key,
                                                 std::string_view expected = "a string");

 private:
  // Control characters in a value would garble terminals and file names.
  bool check_text(const toml::node& node, std::string_view path, std::string_view text);

  std::string origin_;
  std::optional<util::Error> error_;
};

}  // namespace flashfit::resolve::detail
