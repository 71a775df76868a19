#pragma once
// What the lock harnesses (lock_file, pylock) compare after a round trip: the
// locked lines' names, URLs and hashes (versions and origins are comments).
#include <vector>

#include "workflow/lock_file.hpp"

namespace flashfit::fuzz {

inline bool same_lines(const std::vector<workflow::LockedLine>& a,
                       const std::vector<workflow::LockedLine>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].url != b[i].url || a[i].sha256 != b[i].sha256) return false;
  }
  return true;
}

}  // namespace flashfit::fuzz
