// The lock directory's index, flashfit-locks.json: rendered, parsed
// strictly, updated one environment at a time, and searched for this one.
#include "workflow/lock_index.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "util/strings.hpp"

namespace flashfit::workflow {
namespace {

using nlohmann::json;
constexpr int kFormat = 1;
constexpr std::size_t kMaxIndexBytes = 1 << 20;

bool file_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

bool plain_lock_name(const std::string& file) {
  const bool requirements =
      util::starts_with(file, "requirements-") && util::ends_with(file, ".txt");
  return (requirements || is_pylock_name(file)) && file.size() <= 255 &&
         std::all_of(file.begin(), file.end(), file_name_char);
}

}  // namespace

std::string render_lock_index(const std::vector<LockIndexEntry>& entries) {
  json locks = json::array();
  for (const auto& entry : entries) {
    json key = json::object();
    for (const auto& [name, value] : key_facts(entry.key)) {
      key[name] = value ? json(*value) : json(nullptr);
    }
    locks.push_back({{"file", entry.file}, {"key", key}});
  }
  return json{{"flashfit-locks", kFormat}, {"locks", locks}}.dump(2) + "\n";
}

util::Result<std::vector<LockIndexEntry>> parse_lock_index(std::string_view text,
                                                           std::string_view origin) {
  const std::string file(origin);
  auto bad = [&](std::string why) {
    return util::input_error(fmt::format("not a flashfit lock index: {}", why), file,
                             "it is written by `flashfit lock --dir DIR`");
  };
  if (text.size() > kMaxIndexBytes) return bad("larger than 1 MiB");
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& e) {
    return bad(fmt::format("not JSON ({})", util::printable(e.what(), 120)));
  }
  if (!document.is_object() || !document.contains("flashfit-locks")) {
    return bad("no \"flashfit-locks\" format number");
  }
  const json& format = document["flashfit-locks"];
  if (!format.is_number_integer() || format.get<long long>() != kFormat) {
    return bad(fmt::format("format {} (this flashfit reads {})", util::printable(format.dump(), 40),
                           kFormat));
  }
  if (!document.contains("locks") || !document["locks"].is_array()) {
    return bad("\"locks\" is not a list");
  }
  std::vector<LockIndexEntry> out;
  std::set<std::string> files;
  for (const json& item : document["locks"]) {
    if (!item.is_object() || !item.contains("file") || !item["file"].is_string() ||
        !item.contains("key") || !item["key"].is_object()) {
      return bad("a lock without a \"file\" name and a \"key\" object");
    }
    LockIndexEntry entry;
    entry.file = item["file"].get<std::string>();
    if (!plain_lock_name(entry.file)) {
      return bad(fmt::format(
          "'{}' is not a requirements-*.txt or pylock.*.toml file name in its directory",
          util::printable(entry.file, 80)));
    }
    std::set<std::string> named;
    for (const auto& [name, value] : item["key"].items()) {
      if (!value.is_null() && !value.is_string()) {
        return bad(fmt::format("{}: '{}' is neither a string nor null", entry.file,
                               util::printable(name, 40)));
      }
      auto set = set_key_fact(
          entry.key, name,
          value.is_null() ? std::nullopt : std::optional<std::string>(value.get<std::string>()));
      if (!set) return bad(fmt::format("{}: {}", entry.file, set.error().message));
      named.insert(name);
    }
    for (const auto& [name, value] : key_facts(entry.key)) {
      if (named.count(name) == 0) {
        return bad(fmt::format("{}: its key does not name '{}'", entry.file, name));
      }
    }
    if (!files.insert(entry.file).second) return bad(entry.file + " is listed twice");
    if (std::any_of(out.begin(), out.end(),
                    [&](const LockIndexEntry& e) { return e.key == entry.key; })) {
      return bad(fmt::format("{} has the key of another file", entry.file));
    }
    out.push_back(std::move(entry));
  }
  return out;
}

util::Result<std::vector<LockIndexEntry>> with_lock(std::vector<LockIndexEntry> entries,
                                                    const LockIndexEntry& entry) {
  for (const auto& e : entries) {
    if (e.file == entry.file && e.key != entry.key) {
      return util::fail(util::ErrorKind::failed,
                        fmt::format("{} is already the lock of another environment key "
                                    "(two keys with one file name)",
                                    entry.file));
    }
  }
  auto same = std::find_if(entries.begin(), entries.end(),
                           [&](const LockIndexEntry& e) { return e.key == entry.key; });
  if (same != entries.end()) {
    *same = entry;
  } else {
    entries.push_back(entry);
  }
  return entries;
}

LockChoice choose_lock(const std::vector<LockIndexEntry>& entries, const LockKey& here) {
  LockChoice choice;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    choice.differences.push_back(compare_keys(entries[i].key, here));
    if (choice.differences.back().empty() && !choice.match) choice.match = i;
  }
  return choice;
}

}  // namespace flashfit::workflow
