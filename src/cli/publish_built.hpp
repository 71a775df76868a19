#pragma once
// `flashfit build --publish TARGET`: the hook build.cpp calls once its wheel
// is in the cache (the flow is workflow::publish_built; this prints its report).
#include <string>

#include "store/wheel_cache.hpp"
#include "util/error.hpp"

namespace flashfit::cli {

// 0 published (or already there), 1 refused; errors as for publish.
util::Result<int> publish_built_wheel(const store::CacheEntry& built, const std::string& target,
                                      bool as_json);

}  // namespace flashfit::cli
