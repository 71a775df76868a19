#pragma once
// Small ASCII string helpers. Packaging names, versions and tags are ASCII by
// standard, so these never try to be locale- or Unicode-aware.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flashfit::util {

std::vector<std::string_view> split(std::string_view text, char separator);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::string ascii_lower(std::string_view text);
std::string_view trim(std::string_view text);  // ASCII whitespace, both ends
bool is_ascii(std::string_view text);
// Inline: the resolver asks them of every wheel's name and tags, and a
// literal's size known where it is called makes the compare a few instructions.
inline bool starts_with(std::string_view text, std::string_view prefix) {
  return text.starts_with(prefix);
}
inline bool ends_with(std::string_view text, std::string_view suffix) {
  return text.ends_with(suffix);
}

// Well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing
// above U+10FFFF, no sequence cut short. TOML and JSON text must be.
bool valid_utf8(std::string_view text);

// Text safe to quote in an error message: non-printable and non-ASCII bytes
// are shown as \xNN and very long input is cut, so hostile input cannot flood
// or garble the terminal.
std::string printable(std::string_view text, std::size_t max_length = 200);

// ' quoting for a POSIX shell, only when needed: "flash-attn" stays, "a b" ->
// 'a b', "it's" -> 'it'\''s', "" -> ''. For commands printed to be pasted.
std::string shell_quote(std::string_view text);

// 16 lower-case hex digits of the text's 64-bit FNV-1a hash: a file name that
// spreads cache entries (the entry itself says what it is for), where a
// cryptographic hash would load libcrypto for nothing. Not for integrity.
std::string name_hash_hex(std::string_view text);

// Edit distance counting a swap of neighbours as one edit, for "did you mean".
std::size_t edit_distance(std::string_view a, std::string_view b);

struct NearName {
  std::size_t index;     // into the candidates
  std::size_t distance;  // what it ranks by
};

// The one "did you mean" search. Each candidate's edit distance to `typed`
// goes through `score`, the caller's rule (how far is near, whether a prefix
// or a fragment counts): it returns the distance to rank by, or nullopt for
// "not near". Nearest first; ties keep the candidates' order. A `typed` over
// 100 characters gets nothing (the distance table is |a|*|b|).
template <class Range, class Score>
std::vector<NearName> near_names(std::string_view typed, const Range& candidates, Score&& score) {
  std::vector<NearName> out;
  if (typed.size() > 100) return out;
  std::size_t index = 0;
  for (const auto& candidate : candidates) {
    const std::string_view name(candidate);
    if (std::optional<std::size_t> d = score(name, edit_distance(typed, name)))
      out.push_back({index, *d});
    ++index;
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const NearName& a, const NearName& b) { return a.distance < b.distance; });
  return out;
}

// The usual rule: near is at most max(floor, |candidate| / 3) edits.
inline auto within_a_third(std::size_t floor) {
  return [floor](std::string_view candidate, std::size_t distance) -> std::optional<std::size_t> {
    if (distance <= std::max(floor, candidate.size() / 3)) return distance;
    return std::nullopt;
  };
}
// Near is at most `edits` edits, whatever the length.
inline auto within(std::size_t edits) {
  return [edits](std::string_view, std::size_t distance) -> std::optional<std::size_t> {
    if (distance <= edits) return distance;
    return std::nullopt;
  };
}

}  // namespace flashfit::util
