#include "pkg/wheel_name.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "pkg/name.hpp"
#include "pkg/version_grammar.hpp"
#include "util/strings.hpp"

namespace flashfit::pkg {

namespace {

std::string at(std::size_t position) {
  return " at position " + std::to_string(position);
}

std::string quoted_char(char c) {
  return detail::quote(std::string_view(&c, 1));
}

// packaging's name check is `"__" not in name and re.match(r"^[\w\d._]*$")`;
// on ASCII, \w is letters, digits and '_'. PEP 427 (via PEP 508) also wants a
// non-empty name that starts and ends with a letter or digit; packaging does
// not check that, we do.
std::optional<std::string> name_problem(std::string_view name) {
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (!detail::is_alnum(c) && c != '_' && c != '.') {
      return "character " + quoted_char(c) + at(i) +
             " is not allowed in the project name part (letters, digits, '_' and '.')";
    }
  }
  if (const auto dunder = name.find("__"); dunder != std::string_view::npos) {
    return "'__'" + at(dunder) +
           " in the project name part (PEP 427 writes each run of '-_.' as one '_')";
  }
  if (name.empty()) return "the project name part before the first '-' is empty";
  if (!detail::is_alnum(name.front()) || !detail::is_alnum(name.back())) {
    return "the project name part '" + std::string(name) +
           "' must start and end with a letter or digit (PEP 508)";
  }
  return std::nullopt;
}

// parse_tag_set accepts empty items ("py3..py2", "py3--any"), which no wheel
// has and packaging would turn into empty tags; we refuse them.
std::optional<std::string> tag_set_problem(std::string_view tags) {
  static constexpr const char* kFields[] = {"python", "ABI", "platform"};
  std::size_t field = 0;
  for (auto part : util::split(tags, '-')) {
    for (auto item : util::split(part, '.')) {
      if (item.empty()) {
        return std::string("empty ") + kFields[field < 3 ? field : 2] + " tag in the tag set '" +
               std::string(tags) + "'";
      }
    }
    ++field;
  }
  return std::nullopt;
}

detail::NamePart parse_name_part(std::string_view name) {
  if (auto problem = name_problem(name)) return {std::move(problem), {}};
  return {std::nullopt, canonicalize_name(name)};
}

// The tag set's parse with the empty-item check first (its error is the file
// name's own, not the tag parser's).
detail::WheelTags parse_wheel_tags(std::string_view tag_text) {
  if (auto problem = tag_set_problem(tag_text)) return {std::move(problem)};
  auto tags = parse_tag_set(tag_text);
  if (!tags) return {std::nullopt, tl::unexpected(std::move(tags.error()))};
  return {std::nullopt, SharedTags(std::move(*tags))};
}

// Whether any byte of a file name is outside printable ASCII (at most 0x20,
// or 0x7f and above), and how many are '-'.
struct ByteScan {
  bool outside = false;
  std::size_t dashes = 0;
};

// Eight bytes at a time (a byte loop was 8 instructions a byte, a quarter of
// parsing a catalog's names); no byte's test borrows from its neighbour.
ByteScan scan_bytes(std::string_view text) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighs = kOnes * 0x80;
  constexpr std::uint64_t kLows = kOnes * 0x7f;
  // The high bit of each byte of `w` that is zero, and of no other.
  const auto zero_bytes = [](std::uint64_t w) { return ~(((w & kLows) + kLows) | w | kLows); };
  ByteScan out;
  std::uint64_t outside = 0;
  std::size_t at = 0;
  for (; at + 8 <= text.size(); at += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, text.data() + at, 8);
    outside |= w & kHighs;                              // 0x80 and above
    outside |= ~((w & kLows) + kOnes * 0x5f) & kHighs;  // below 0x21 (and 0x80 up, again)
    outside |= zero_bytes(w ^ (kOnes * 0x7f));          // 0x7f
    for (std::uint64_t dash = zero_bytes(w ^ (kOnes * '-')); dash != 0; dash &= dash - 1)
      ++out.dashes;
  }
  for (; at < text.size(); ++at) {
    const auto c = static_cast<unsigned char>(text[at]);
    if (c <= 0x20 || c >= 0x7f) outside = 1;
    if (c == '-') ++out.dashes;
  }
  out.outside = outside != 0;
  return out;
}

// One parse, with the name part, the version and the tag set from `name_of`,
// `version_of` and `tags_of` (parsed, or memoised by WheelNameParser).
template <class NameOf, class VersionOf, class TagsOf>
util::Result<WheelName> parse_with(std::string_view filename, NameOf name_of, VersionOf version_of,
                                   TagsOf tags_of) {
  const auto context = [&] { return "wheel file name '" + util::printable(filename) + "'"; };
  const char* const hint =  // built into a string only on error
      "wheel file names look like name-version[-build]-python-abi-platform.whl";
  const auto bad = [&](const std::string& message) {
    return util::input_error(message, context(), hint);
  };
  // One pass over the bytes (thousands of names per resolve); an error is
  // then worded by the checks that name it.
  const ByteScan scan = scan_bytes(filename);
  if (scan.outside) {
    detail::ScanError error;
    if (!detail::check_ascii(filename, "a wheel file name", error)) return bad(error.message);
    for (std::size_t i = 0; i < filename.size(); ++i) {
      const auto c = static_cast<unsigned char>(filename[i]);
      if (c <= 0x20 || c == 0x7f) {
        return bad(
            (c == ' ' ? std::string("a space") : "control character " + quoted_char(filename[i])) +
            at(i) + "; wheel file names contain no whitespace or control characters");
      }
    }
  }
  if (!util::ends_with(filename, ".whl")) return bad("the extension must be '.whl'");
  const std::string_view stem = filename.substr(0, filename.size() - 4);

  // The parts as views into the name, in place (thousands of names per resolve).
  // ".whl" holds no '-': the stem has every one the pass above counted.
  const std::size_t dashes = scan.dashes;
  if (dashes != 4 && dashes != 5) {
    return bad(
        "expected 5 or 6 '-'-separated parts (name-version[-build]-python-abi-platform), found " +
        std::to_string(dashes + 1));
  }
  std::array<std::string_view, 6> parts;
  for (std::size_t i = 0, start = 0; i <= dashes; ++i) {
    const std::size_t end = i == dashes ? stem.size() : stem.find('-', start);
    parts[i] = stem.substr(start, end - start);
    start = end + 1;
  }

  WheelName wheel;
  const detail::NamePart& name = name_of(parts[0]);
  if (name.problem) return bad(*name.problem);
  wheel.name = std::string(parts[0]);
  wheel.canonical_name = name.canonical;

  auto version = version_of(parts[1]);
  if (!version) {
    return tl::unexpected(std::move(version.error()).with_context(context()));
  }
  wheel.version = std::move(*version);

  if (dashes == 5) {
    // packaging's `(\d+)(.*)`: digits first, anything after.
    const std::string_view build = parts[2];
    std::size_t digits = 0;
    while (digits < build.size() && detail::is_digit(build[digits])) ++digits;
    if (digits == 0) {
      return bad("the build tag '" + std::string(build) + "' must start with a digit");
    }
    wheel.build.emplace(detail::normalize_number(build.substr(0, digits)),
                        std::string(build.substr(digits)));
  }

  // The last three parts, with their dashes, are the tag set.
  const std::size_t tags_begin = static_cast<std::size_t>(parts[dashes - 2].data() - stem.data());
  const std::string_view tag_text = stem.substr(tags_begin);
  detail::WheelTags tags = tags_of(tag_text);
  if (tags.problem) return bad(std::move(*tags.problem));
  if (!tags.tags) return tl::unexpected(std::move(tags.tags.error()).with_context(context()));
  wheel.tags = std::move(*tags.tags);
  return wheel;
}

}  // namespace

util::Result<WheelName> parse_wheel_filename(std::string_view filename) {
  return parse_with(filename, &parse_name_part, &Version::parse, &parse_wheel_tags);
}

template <class T, class ParsePart>
const WheelNameParser::Numbered<T>& WheelNameParser::memo(Memo<T>& table,
                                                          std::vector<const Numbered<T>*>& by_id,
                                                          std::string_view text,
                                                          ParsePart parse_part) {
  auto it = table.find(text);
  if (it == table.end()) {
    const auto next = static_cast<std::uint32_t>(table.size());
    it = table.emplace(std::string(text), Numbered<T>{parse_part(text), next}).first;
    by_id.push_back(&it->second);  // a node's address outlives rehashing
  }
  return it->second;
}

const detail::NamePart& WheelNameParser::name_of(std::string_view text) {
  if (name_text_ != text) {
    name_ = parse_name_part(text);
    name_text_ = std::string(text);
  }
  return name_;
}

util::Result<WheelName> WheelNameParser::parse(std::string_view filename, PartIds* ids) {
  PartIds seen;
  auto parsed = parse_with(
      filename, [&](std::string_view text) -> const detail::NamePart& { return name_of(text); },
      [&](std::string_view text) {
        const auto& entry = memo(versions_, version_by_id_, text, &Version::parse);
        seen.version = entry.id;
        seen.version_text = text;
        return entry.value;  // a copy: the caller's WheelName owns its parts
      },
      [&](std::string_view text) {
        const auto& entry = memo(tag_sets_, tag_set_by_id_, text, &parse_wheel_tags);
        seen.tag_set = entry.id;
        return entry.value;
      });
  if (parsed && ids) *ids = seen;
  return parsed;
}

bool WheelNameParser::fill_by_layout(std::optional<WheelName>& out, std::string_view filename,
                                     const WheelNameLayout& layout, PartIds* ids) {
  const std::size_t version_at = std::size_t{layout.name_size} + 1;
  const std::size_t tags_at = version_at + layout.version_size + 1;
  if (layout.name_size == 0 || tags_at + 4 >= filename.size() ||
      filename[layout.name_size] != '-' || filename[tags_at - 1] != '-' ||
      !util::ends_with(filename, ".whl"))
    return false;
  const std::string_view name_text = filename.substr(0, layout.name_size);
  const std::string_view version_text = filename.substr(version_at, layout.version_size);
  const std::string_view tag_text = filename.substr(tags_at, filename.size() - 4 - tags_at);

  auto found = std::find_if(tables_.begin(), tables_.end(),
                            [&](const TableIds& t) { return t.table == layout.table; });
  if (found == tables_.end()) found = tables_.insert(tables_.end(), TableIds{layout.table, {}, {}});
  // The id here of the table's number `local` for `text`.
  const auto id_of = [](std::vector<std::uint32_t>& local_ids, std::uint16_t local,
                        auto find_entry) -> std::uint32_t {
    if (local >= local_ids.size()) local_ids.resize(std::size_t{local} + 1, kUnseen);
    if (local_ids[local] == kUnseen) local_ids[local] = find_entry().id;
    return local_ids[local];
  };
  const std::uint32_t version_id = id_of(
      found->versions, layout.version, [&]() -> const auto& {
        return memo(versions_, version_by_id_, version_text, &Version::parse);
      });
  const std::uint32_t tag_set_id = id_of(
      found->tag_sets, layout.tag_set, [&]() -> const auto& {
        return memo(tag_sets_, tag_set_by_id_, tag_text, &parse_wheel_tags);
      });
  const detail::NamePart& name = name_of(name_text);
  const util::Result<Version>& version = version_by_id_[version_id]->value;
  const detail::WheelTags& tags = tag_set_by_id_[tag_set_id]->value;
  // A part that does not parse: the full parse words the error.
  if (name.problem || !version || tags.problem || !tags.tags) return false;
  // Built where it is kept: a WheelName is two strings and two shared parts,
  // and thousands are read.
  WheelName& wheel = out.emplace();
  wheel.name.assign(name_text);
  wheel.canonical_name = name.canonical;
  wheel.version = *version;
  wheel.tags = *tags.tags;
  if (ids) *ids = PartIds{version_id, tag_set_id, version_text};
  return true;
}

util::Result<WheelName> WheelNameParser::parse(std::string_view filename,
                                               const WheelNameLayout& layout, PartIds* ids) {
  std::optional<WheelName> out;
  if (fill_by_layout(out, filename, layout, ids)) return std::move(*out);
  return parse(filename, ids);
}

bool WheelNameParser::parse_into(std::optional<WheelName>& out, std::string_view filename,
                                 const WheelNameLayout& layout, PartIds* ids) {
  if (fill_by_layout(out, filename, layout, ids)) return true;
  auto parsed = parse(filename, ids);
  if (!parsed) return false;
  out = std::move(*parsed);
  return true;
}

std::strong_ordering compare_build_tags(
    const std::optional<std::pair<std::string, std::string>>& a,
    const std::optional<std::pair<std::string, std::string>>& b) {
  if (a.has_value() != b.has_value()) return a.has_value() <=> b.has_value();
  if (!a) return std::strong_ordering::equal;
  if (const int c = detail::compare_numbers(a->first, b->first)) {
    return c < 0 ? std::strong_ordering::less : std::strong_ordering::greater;
  }
  return a->second <=> b->second;
}

}  // namespace flashfit::pkg
