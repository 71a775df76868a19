// The dist-info files of a wheel (WHEEL, METADATA, RECORD), extension
// modules and the cross-checks between file name, metadata and contents.

#include <fmt/core.h>

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "binary/wheel.hpp"
#include "pkg/tag.hpp"
#include "util/strings.hpp"

namespace flashfit::binary {

namespace {

using util::printable;

// Merges `tags`' sorted runs (each starting at one of `starts`, the first at
// 0) pairwise until one sorted run is left: O(n log runs) comparisons, where
// sorting the whole was O(n log n) on up to 65,536 three-string tags.
void merge_sorted_runs(std::vector<pkg::Tag>& tags, std::vector<std::size_t> starts) {
  starts.push_back(tags.size());
  const auto at = [&](std::size_t offset) {
    return tags.begin() + static_cast<std::ptrdiff_t>(offset);
  };
  while (starts.size() > 2) {
    std::vector<std::size_t> merged;
    std::size_t i = 0;
    for (; i + 2 < starts.size(); i += 2) {
      std::inplace_merge(at(starts[i]), at(starts[i + 1]), at(starts[i + 2]));
      merged.push_back(starts[i]);
    }
    if (i + 1 < starts.size()) merged.push_back(starts[i]);  // an odd run out, kept as is
    merged.push_back(tags.size());
    starts = std::move(merged);
  }
}

// RFC 822 style headers as the core metadata spec uses them: "Key: value",
// continuation lines start with whitespace, a blank line ends the headers
// (METADATA's description body follows it and is not parsed).
util::Result<std::vector<std::pair<std::string, std::string>>> parse_headers(
    std::string_view text) {
  std::vector<std::pair<std::string, std::string>> headers;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    if (line.front() == ' ' || line.front() == '\t') {
      if (headers.empty()) {
        return util::input_error(
            fmt::format("line {}: continuation line before any header", line_number));
      }
      headers.back().second += "\n" + std::string(util::trim(line));
      continue;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      return util::input_error(
          fmt::format("line {}: not a 'Key: value' header: '{}'", line_number, printable(line)));
    }
    headers.emplace_back(std::string(util::trim(line.substr(0, colon))),
                         std::string(util::trim(line.substr(colon + 1))));
  }
  return headers;
}

bool header_is(const std::string& key, std::string_view wanted) {
  return util::ascii_lower(key) == util::ascii_lower(wanted);
}

}  // namespace

util::Result<WheelFields> parse_wheel_file(std::string_view text) {
  auto headers = parse_headers(text);
  if (!headers) return tl::unexpected(std::move(headers.error()));
  WheelFields fields;
  bool purelib_seen = false;
  std::vector<std::size_t> tag_runs;  // where each Tag line's tags start in fields.tags
  for (const auto& [key, value] : *headers) {
    if (header_is(key, "Wheel-Version")) {
      fields.wheel_version = value;
    } else if (header_is(key, "Generator")) {
      fields.generator = value;
    } else if (header_is(key, "Root-Is-Purelib")) {
      const std::string lower = util::ascii_lower(value);
      if (lower != "true" && lower != "false") {
        return util::input_error(
            fmt::format("Root-Is-Purelib is '{}', not true or false", printable(value)));
      }
      fields.root_is_purelib = lower == "true";
      purelib_seen = true;
    } else if (header_is(key, "Tag")) {
      auto tags = pkg::parse_tag_set(value);
      if (!tags) return tl::unexpected(std::move(tags.error()).with_context("Tag"));
      // Each line is bounded; so is their sum (a WHEEL of many wide lines).
      if (tags->size() > pkg::kMaxExpandedTags - fields.tags.size()) {
        return util::input_error(
            fmt::format("the Tag lines expand to more than {} tags", pkg::kMaxExpandedTags));
      }
      tag_runs.push_back(fields.tags.size());
      fields.tags.insert(fields.tags.end(), std::make_move_iterator(tags->begin()),
                         std::make_move_iterator(tags->end()));
    }
  }
  if (fields.wheel_version.empty()) return util::input_error("no Wheel-Version field");
  if (!util::starts_with(fields.wheel_version, "1.")) {
    return util::input_error(
        fmt::format("Wheel-Version {} is not 1.x", printable(fields.wheel_version)), {},
        "this wheel format is newer than flashfit understands");
  }
  if (!purelib_seen) return util::input_error("no Root-Is-Purelib field");
  // Each Tag line's tags come sorted and unique; several lines' runs are merged.
  merge_sorted_runs(fields.tags, std::move(tag_runs));
  fields.tags.erase(std::unique(fields.tags.begin(), fields.tags.end()), fields.tags.end());
  return fields;
}

util::Result<WheelMetadata> parse_metadata_headers(std::string_view text) {
  auto headers = parse_headers(text);
  if (!headers) return tl::unexpected(std::move(headers.error()));
  WheelMetadata metadata;
  for (const auto& [key, value] : *headers) {
    if (header_is(key, "Name")) {
      metadata.name = value;
    } else if (header_is(key, "Version")) {
      metadata.version = value;
    } else if (header_is(key, "Requires-Dist")) {
      metadata.requires_dist.push_back(value);
    }
  }
  if (metadata.name.empty()) return util::input_error("no Name field");
  if (metadata.version.empty()) return util::input_error("no Version field");
  return metadata;
}

// RECORD is CSV as Python's csv module writes it: fields may be quoted with
// '"', a quote inside a quoted field is doubled, rows end in \n or \r\n.
util::Result<std::vector<RecordRow>> parse_record(std::string_view text) {
  std::vector<RecordRow> rows;
  std::size_t pos = 0;
  std::size_t line_number = 0;
  while (pos < text.size()) {
    ++line_number;
    std::vector<std::string> fields(1);
    bool quoted = false;
    bool field_started_quoted = false;
    for (; pos < text.size(); ++pos) {
      const char c = text[pos];
      if (quoted) {
        if (c == '"') {
          if (pos + 1 < text.size() && text[pos + 1] == '"') {
            fields.back() += '"';
            ++pos;
          } else {
            quoted = false;
          }
        } else {
          fields.back() += c;
        }
      } else if (c == '"' && fields.back().empty() && !field_started_quoted) {
        quoted = field_started_quoted = true;
      } else if (c == ',') {
        fields.emplace_back();
        field_started_quoted = false;
      } else if (c == '\n') {
        ++pos;
        break;
      } else if (c != '\r') {
        fields.back() += c;
      }
    }
    if (quoted) return util::input_error(fmt::format("row {}: unterminated quote", line_number));
    if (fields.size() == 1 && fields[0].empty()) continue;  // blank line
    if (fields.size() != 3) {
      return util::input_error(
          fmt::format("row {}: {} fields, expected path,hash,size", line_number, fields.size()));
    }
    // A row must name a file; an empty path would match no member and could
    // only mislead verification (found by the fuzz harness dist_info).
    if (fields[0].empty()) return util::input_error(fmt::format("row {}: empty path", line_number));
    RecordRow row{std::move(fields[0]), std::move(fields[1]), std::nullopt};
    if (!fields[2].empty()) {
      std::uint64_t size = 0;
      for (char d : fields[2]) {
        if (d < '0' || d > '9' || size > (UINT64_MAX - 9) / 10) {
          return util::input_error(
              fmt::format("row {}: size '{}' is not a number", line_number, printable(fields[2])));
        }
        size = size * 10 + static_cast<std::uint64_t>(d - '0');
      }
      row.size = size;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<const WheelMember*> Wheel::extension_modules() const {
  std::vector<const WheelMember*> out;
  for (const WheelMember& m : members_) {
    if (!m.is_directory() && util::ends_with(m.name, ".so")) out.push_back(&m);
  }
  return out;
}

bool Wheel::has_extension_module(std::string_view module) const {
  const bool dotted = module.find('.') != std::string_view::npos;
  for (const WheelMember* m : extension_modules()) {
    std::string_view path = m->name;
    // Platlib and purelib files in "<name>.data/{platlib,purelib}/..." install at the root.
    if (const std::size_t data = path.find(".data/");
        data != std::string_view::npos && path.find('/') == data + 5) {
      const std::size_t scheme_end = path.find('/', data + 6);
      if (scheme_end != std::string_view::npos) path = path.substr(scheme_end + 1);
    }
    const std::size_t slash = path.rfind('/');
    const std::string_view dir = slash == std::string_view::npos ? "" : path.substr(0, slash);
    const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
    const std::string_view stem = base.substr(0, base.find('.'));  // before ".cpython-…so"
    if (!dotted) {
      if (stem == module) return true;
      continue;
    }
    std::string full(dir);
    std::replace(full.begin(), full.end(), '/', '.');
    if (!full.empty()) full += '.';
    full += stem;
    if (full == module) return true;
  }
  return false;
}

std::vector<WheelFinding> Wheel::findings() const {
  std::vector<WheelFinding> out;
  if (filename_.tags != wheel_fields_.tags) {
    std::vector<std::string> a;
    std::vector<std::string> b;
    for (const pkg::Tag& t : filename_.tags) a.push_back(t.str());
    for (const pkg::Tag& t : wheel_fields_.tags) b.push_back(t.str());
    out.push_back({WheelFinding::Kind::tags_differ, false,
                   fmt::format("file name tags {} differ from WHEEL's Tag lines {}",
                               util::join(a, "."), b.empty() ? "(none)" : util::join(b, ", "))});
  }
  auto meta_version = pkg::Version::parse(metadata_.version);
  if (!meta_version || *meta_version != filename_.version) {
    const std::string meta = printable(metadata_.version);
    if (meta_version && filename_.version.has_local() &&
        *meta_version == filename_.version.without_local()) {
      out.push_back({WheelFinding::Kind::local_label_only, true,
                     fmt::format("file name version {} carries local label '+{}' that METADATA's "
                                 "Version {} lacks (expected for upstream flash-attn wheels, "
                                 "renamed after building)",
                                 filename_.version.str(), filename_.version.local(), meta)});
    } else {
      out.push_back({WheelFinding::Kind::version_differs, false,
                     fmt::format("file name version {} differs from METADATA's Version {}",
                                 filename_.version.str(), meta)});
    }
  }
  const bool any_tag =
      std::any_of(filename_.tags.begin(), filename_.tags.end(),
                  [](const pkg::Tag& t) { return t.abi == "none" && t.platform == "any"; });
  const auto extensions = extension_modules();
  if ((any_tag || wheel_fields_.root_is_purelib) && !extensions.empty()) {
    std::vector<std::string> names;
    names.reserve(extensions.size() + 1);
    for (const WheelMember* m : extensions) names.push_back(printable(m->name));
    if (names.size() > 5) names.resize(5), names.emplace_back("...");
    out.push_back({WheelFinding::Kind::pure_with_extensions, false,
                   fmt::format("wheel claims to be pure ({}) but contains {} compiled extension "
                               "module(s): {}; pip may pick it for any platform and the import "
                               "then fails",
                               any_tag ? "tag *-none-any" : "Root-Is-Purelib: true",
                               extensions.size(), util::join(names, ", "))});
  }
  return out;
}

}  // namespace flashfit::binary
