// entry.json: the metadata of one cached wheel (docs/cache.md). Written by
// flashfit, but read defensively: a hand-edited, truncated or hostile file
// makes that one entry unreadable, never the cache.
#include "store/cache_entry_json.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "store/cache_layout.hpp"
#include "store/json_fields.hpp"
#include "util/strings.hpp"

namespace flashfit::store {

nlohmann::json entry_json(const CacheEntry& e) {
  using nlohmann::json;
  json inspections = json::array();
  for (const InspectRecord& i : e.inspections) {
    inspections.push_back({{"environment", i.environment},
                           {"compatible", i.compatible},
                           {"summary", i.summary},
                           {"at", i.at},
                           {"torch_extension", i.torch_extension}});
  }
  const BuildRecord& r = e.record;
  auto optional_string = [](const std::optional<std::string>& value) {
    return value ? json(*value) : json(nullptr);
  };
  return {
      {"sha256", e.sha256},
      {"filename", e.filename},
      {"package", e.package},
      {"version", e.version},
      {"urls", e.urls},
      {"source", to_string(e.origin)},
      {"size", e.size},
      {"added_at", e.added_at},
      {"last_used_at", e.last_used_at},
      {"torch", r.torch ? json(r.torch->str()) : json(nullptr)},
      {"cuda", r.cuda ? json(to_string(*r.cuda)) : json(nullptr)},
      {"python", optional_string(r.python)},
      {"platform", optional_string(r.platform)},
      {"cxx11_abi", r.cxx11_abi ? json(*r.cxx11_abi) : json(nullptr)},
      {"archs", r.archs},
      {"toolkit", optional_string(r.toolkit)},
      {"inspections", inspections},
      {"installed_in", e.installed_in},
  };
}

}  // namespace flashfit::store

namespace flashfit::store::detail {
namespace {

using nlohmann::json;

constexpr int kSchema = 1;

}  // namespace

std::string entry_to_json(const CacheEntry& e) {
  json doc = entry_json(e);
  doc["schema"] = kSchema;
  // Invalid UTF-8 (from a hostile URL) is replaced rather than thrown on.
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

util::Result<CacheEntry> entry_from_json(std::string_view text) {
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return util::input_error("entry.json is not valid JSON");
  if (!doc.is_object()) return util::input_error("entry.json is not a JSON object");
  if (auto schema = doc.find("schema");
      schema != doc.end() && !(schema->is_number_integer() && *schema == kSchema)) {
    return util::input_error("entry.json has an unknown schema (written by a newer flashfit?)");
  }
  std::string problem;
  JsonFields r{doc, problem};
  CacheEntry e;
  e.sha256 = r.required_string("sha256");
  e.filename = r.required_string("filename");
  e.package = r.string("package").value_or("");
  e.version = r.string("version").value_or("");
  e.urls = r.strings("urls");
  e.origin = parse_entry_origin(r.string("source").value_or(""));
  if (const json* size = r.field("size"); size && size->is_number_unsigned()) {
    e.size = size->get<std::uint64_t>();
  } else if (size && size->is_number_integer() && size->get<std::int64_t>() >= 0) {
    e.size = static_cast<std::uint64_t>(size->get<std::int64_t>());
  } else {
    r.wrong("size", "a byte count");
  }
  e.added_at = r.string("added_at").value_or("");
  e.last_used_at = r.string("last_used_at").value_or("");
  // A torch or CUDA text of another form (hand-edited) is an unknown field, not a broken entry.
  if (auto torch = r.string("torch")) {
    if (auto version = pkg::Version::parse(*torch)) e.record.torch = std::move(*version);
  }
  if (auto cuda = r.string("cuda")) e.record.cuda = parse_built_cuda(*cuda);
  e.record.python = r.string("python");
  e.record.platform = r.string("platform");
  e.record.cxx11_abi = r.boolean("cxx11_abi");
  e.record.archs = r.strings("archs");
  e.record.toolkit = r.string("toolkit");
  e.installed_in = r.strings("installed_in");
  if (const json* list = r.field("inspections")) {
    if (!list->is_array()) r.wrong("inspections", "an array");
    for (const json& item : list->is_array() ? *list : json::array()) {
      if (!item.is_object()) {
        r.wrong("inspections", "an array of objects");
        break;
      }
      std::string item_problem;
      JsonFields ir{item, item_problem};
      InspectRecord record;
      record.environment = ir.string("environment").value_or("");
      record.compatible = ir.boolean("compatible").value_or(false);
      record.summary = ir.string("summary").value_or("");
      record.at = ir.string("at").value_or("");
      record.torch_extension = ir.boolean("torch_extension").value_or(false);
      if (!item_problem.empty()) {
        r.wrong("inspections", "an array of inspection records");
        break;
      }
      e.inspections.push_back(std::move(record));
    }
  }
  if (!problem.empty()) return util::input_error("entry.json: " + util::printable(problem));
  if (!is_sha256_hex(e.sha256))
    return util::input_error("entry.json: \"sha256\" is not 64 lower-case hex digits");
  if (!is_safe_basename(e.filename)) {
    return util::input_error(
        fmt::format("entry.json: unsafe file name '{}'", util::printable(e.filename)));
  }
  return e;
}

}  // namespace flashfit::store::detail
