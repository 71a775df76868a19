#pragma once
// PEP 427 wheel file names, parsed as packaging 23.0's parse_wheel_filename
// does, but stricter where packaging is laxer than the standard (see the
// intended differences listed in tests/unit/pkg/wheel_name_test.cpp).

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/tag.hpp"
#include "pkg/version.hpp"
#include "util/error.hpp"

namespace flashfit::pkg {

struct WheelName {
  std::string name;            // as written in the file name ("flash_attn")
  std::string canonical_name;  // PEP 503 normalised ("flash-attn")
  Version version;
  // The optional build tag as packaging reads it, (int, rest): the leading
  // digits without leading zeros ("0" when all zeros) and what follows.
  std::optional<std::pair<std::string, std::string>> build;
  std::vector<Tag> tags;  // lower-cased, sorted, without duplicates
};

// A bare file name: "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl".
// Decoding "%2B" in URL basenames is the caller's job.
util::Result<WheelName> parse_wheel_filename(std::string_view filename);

// Orders build tags as pip does: no tag first, then by number, then by rest.
std::strong_ordering compare_build_tags(
    const std::optional<std::pair<std::string, std::string>>& a,
    const std::optional<std::pair<std::string, std::string>>& b);

}  // namespace flashfit::pkg
