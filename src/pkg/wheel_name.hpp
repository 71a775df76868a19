#pragma once
// PEP 427 wheel file names, parsed as packaging 23.0's parse_wheel_filename
// does, but stricter where packaging is laxer than the standard (see the
// intended differences listed in tests/unit/pkg/wheel_name_test.cpp).

#include <compare>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/tag.hpp"
#include "pkg/version.hpp"
#include "util/error.hpp"
#include "util/text_hash.hpp"

namespace flashfit::pkg {

struct WheelName {
  std::string name;            // as written in the file name ("flash_attn")
  std::string canonical_name;  // PEP 503 normalised ("flash-attn")
  Version version;
  // The optional build tag as packaging reads it, (int, rest): the leading
  // digits without leading zeros ("0" when all zeros) and what follows.
  std::optional<std::pair<std::string, std::string>> build;
  SharedTags tags;  // lower-cased, sorted, without duplicates
};

// A bare file name: "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl".
// Decoding "%2B" in URL basenames is the caller's job.
util::Result<WheelName> parse_wheel_filename(std::string_view filename);

namespace detail {
// A wheel file name's tag set: refused by the file name's own check (empty
// items), or as the tag parser answers.
struct WheelTags {
  std::optional<std::string> problem;
  util::Result<SharedTags> tags = SharedTags{};
};
// A wheel file name's project name part: refused (why), or its PEP 503 name.
struct NamePart {
  std::optional<std::string> problem;
  std::string canonical;
};
}  // namespace detail

// Where a valid file name's parts lie, worked out ahead of time (a compiled
// catalog's rows, laid out when the binary was built: resolve/compiled_catalog.hpp):
// the sizes of its name and version parts, and the numbers `table` gave its
// version's and tag set's spellings (one number per distinct spelling in that
// table). Only for a name that parses and has no build tag.
struct WheelNameLayout {
  const void* table = nullptr;  // whose numbers `version` and `tag_set` are
  std::uint16_t name_size = 0;
  std::uint16_t version_size = 0;
  std::uint16_t version = 0;
  std::uint16_t tag_set = 0;
};

// parse_wheel_filename for many file names that share versions and tag sets
// (a catalog's thousands of wheels have a few hundred versions and a few dozen
// tag sets): each distinct version, tag set and project name part is parsed
// once and copied after. The same results as parse_wheel_filename, errors
// included.
class WheelNameParser {
 public:
  // Small integers for a parsed name's version and tag set, as spelled: one
  // spelling, one id (0, 1, 2, ... in the order first seen), so a caller can
  // key its own per-version or per-tag-set work by them.
  struct PartIds {
    std::uint32_t version = 0;
    std::uint32_t tag_set = 0;
    // The version as the name spells it (a view into the file name parsed).
    std::string_view version_text;
  };
  // `ids`, when given, is set for a name that parses.
  util::Result<WheelName> parse(std::string_view filename, PartIds* ids = nullptr);
  // The same answer and ids for a name `layout` describes, without reading its
  // bytes again or hashing its parts: the table's numbers find what was parsed
  // for the same spellings. A layout that does not fit the name (its dashes are
  // not where it says) is not trusted: the name is parsed as above.
  util::Result<WheelName> parse(std::string_view filename, const WheelNameLayout& layout,
                                PartIds* ids = nullptr);
  // The same name into `out`, built there: false when it does not parse (the
  // error is not kept; `out` is then unspecified).
  bool parse_into(std::optional<WheelName>& out, std::string_view filename,
                  const WheelNameLayout& layout, PartIds* ids = nullptr);

 private:
  template <class T>
  struct Numbered {
    T value;
    std::uint32_t id;
  };
  template <class T>
  using Memo = std::unordered_map<std::string, Numbered<T>, util::TextHash, std::equal_to<>>;
  // A part's entry, parsed on its spelling's first sight; its address is kept by id.
  template <class T, class ParsePart>
  const Numbered<T>& memo(Memo<T>& table, std::vector<const Numbered<T>*>& by_id,
                          std::string_view text, ParsePart parse_part);
  const detail::NamePart& name_of(std::string_view text);
  // parse(filename, layout)'s answer into `out` when the layout fits the name
  // and its parts parse; false otherwise (then only the full parse answers).
  bool fill_by_layout(std::optional<WheelName>& out, std::string_view filename,
                      const WheelNameLayout& layout, PartIds* ids);
  Memo<util::Result<Version>> versions_;
  Memo<detail::WheelTags> tag_sets_;
  std::vector<const Numbered<util::Result<Version>>*> version_by_id_;
  std::vector<const Numbered<detail::WheelTags>*> tag_set_by_id_;
  // Per layout table: its numbers' ids here (kUnseen until first met).
  static constexpr std::uint32_t kUnseen = UINT32_MAX;
  struct TableIds {
    const void* table;
    std::vector<std::uint32_t> versions;
    std::vector<std::uint32_t> tag_sets;
  };
  std::vector<TableIds> tables_;
  // The last project name part and what it gave (a catalog's names share one).
  std::optional<std::string> name_text_;
  detail::NamePart name_;
};

// Orders build tags as pip does: no tag first, then by number, then by rest.
std::strong_ordering compare_build_tags(
    const std::optional<std::pair<std::string, std::string>>& a,
    const std::optional<std::pair<std::string, std::string>>& b);

}  // namespace flashfit::pkg
