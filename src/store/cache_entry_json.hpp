#pragma once
// The one JSON form of a cache entry: entry.json on disk (with its "schema")
// and `flashfit cache ... --json` (with "installed" and "path") both start
// from entry_json, so the two cannot drift apart (docs/cache.md, docs/json.md).
#include <nlohmann/json_fwd.hpp>

#include "store/wheel_cache.hpp"

namespace flashfit::store {

// Every stored field of the entry (not "schema", not "path").
nlohmann::json entry_json(const CacheEntry& entry);

}  // namespace flashfit::store
