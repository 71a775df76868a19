#include "store/json_fields.hpp"

#include <fmt/format.h>

namespace flashfit::store::detail {

using nlohmann::json;

const json* JsonFields::field(const char* key) const {
  auto it = object_.find(key);
  return it == object_.end() || it->is_null() ? nullptr : &*it;
}

void JsonFields::wrong(const char* key, const std::string& want) {
  if (problem_.empty()) problem_ = fmt::format("\"{}{}\" is not {}", where_, key, want);
}

void JsonFields::missing(const char* key) {
  if (problem_.empty()) problem_ = fmt::format("\"{}{}\" is missing", where_, key);
}

std::optional<std::string> JsonFields::string(const char* key) {
  const json* v = field(key);
  if (!v) return std::nullopt;
  if (!v->is_string() || v->get_ref<const std::string&>().size() > max_string_) {
    wrong(key, max_string_ == std::numeric_limits<std::size_t>::max()
                   ? std::string("a string")
                   : fmt::format("a string (up to {} bytes)", max_string_));
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::string JsonFields::required_string(const char* key) {
  auto v = string(key);
  if (!v) missing(key);
  return v.value_or("");
}

std::optional<bool> JsonFields::boolean(const char* key) {
  const json* v = field(key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) {
    wrong(key, "true or false");
    return std::nullopt;
  }
  return v->get<bool>();
}

std::vector<std::string> JsonFields::strings(const char* key) {
  std::vector<std::string> out;
  const json* v = field(key);
  if (!v) return out;
  if (!v->is_array()) {
    wrong(key, "an array of strings");
    return out;
  }
  for (const json& item : *v) {
    if (!item.is_string() || item.get_ref<const std::string&>().size() > max_string_) {
      wrong(key, "an array of strings");
      return {};
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::optional<std::int64_t> JsonFields::integer(const char* key, std::int64_t low,
                                                std::int64_t high) {
  const json* v = field(key);
  if (!v) return std::nullopt;
  return integer_value(*v, key, low, high);
}

std::optional<std::int64_t> JsonFields::integer_value(const json& v, const char* key,
                                                      std::int64_t low, std::int64_t high) {
  std::optional<std::int64_t> value;
  if (v.is_number_unsigned()) {
    auto u = v.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(high)) value = static_cast<std::int64_t>(u);
  } else if (v.is_number_integer()) {
    value = v.get<std::int64_t>();
  }
  if (!value || *value < low || *value > high) {
    wrong(key, fmt::format("an integer from {} to {}", low, high));
    return std::nullopt;
  }
  return value;
}

const json* JsonFields::object_field(const char* key) {
  const json* v = field(key);
  if (v && !v->is_object()) {
    wrong(key, "an object");
    return nullptr;
  }
  return v;
}

}  // namespace flashfit::store::detail
