// Typed field readers over one JSON object, for the files the store reads
// back (a cache entry's entry.json, a variant record): a missing or null field
// is unknown, a wrong type, an out-of-range number or an over-long string is
// the file's problem, and the first problem found is the one reported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace flashfit::store::detail {

class JsonFields {
 public:
  // `where` prefixes every key in messages ("torch." for a nested object);
  // `max_string` bounds every string read (bytes).
  JsonFields(const nlohmann::json& object, std::string& problem, std::string where = {},
             std::size_t max_string = std::numeric_limits<std::size_t>::max())
      : object_(object), problem_(problem), where_(std::move(where)), max_string_(max_string) {}

  const nlohmann::json* field(const char* key) const;
  // Records "KEY is not WANT" (or "KEY is missing") unless a problem is known.
  void wrong(const char* key, const std::string& want);
  void missing(const char* key);

  std::optional<std::string> string(const char* key);
  std::string required_string(const char* key);  // "" and a problem when absent
  std::optional<bool> boolean(const char* key);
  std::vector<std::string> strings(const char* key);
  // An integer in [low, high]; a float, a huge number or a string is refused.
  std::optional<std::int64_t> integer(const char* key, std::int64_t low, std::int64_t high);
  std::optional<std::int64_t> integer_value(const nlohmann::json& v, const char* key,
                                            std::int64_t low, std::int64_t high);
  const nlohmann::json* object_field(const char* key);

 private:
  const nlohmann::json& object_;
  std::string& problem_;
  std::string where_;
  std::size_t max_string_;
};

}  // namespace flashfit::store::detail
