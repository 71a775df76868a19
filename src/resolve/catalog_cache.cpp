#include "resolve/catalog_cache.hpp"

#include <fmt/format.h>

#include <unordered_set>

#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

constexpr std::string_view kColumns = "url\ttag\tfilename\tevidence\tsha256";

bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

bool has_control(std::string_view text) {
  for (char c : text) {
    if (is_control(c)) return true;
  }
  return false;
}

bool is_lower_hex(std::string_view text) {
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// A safe single path component: what recipe and source names become on disk.
bool is_safe_component(std::string_view name) {
  if (name.empty() || name == "." || name == ".." || name.size() > 200) return false;
  for (char c : name) {
    if (c == '/' || is_control(c)) return false;
  }
  return true;
}

// "2026-01-31T12:00:00Z": digits where digits go.
bool is_utc_timestamp(std::string_view text) {
  constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:ddZ";
  if (text.size() != kShape.size()) return false;
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    if (kShape[i] == 'd' ? !(text[i] >= '0' && text[i] <= '9') : text[i] != kShape[i]) return false;
  }
  return true;
}

util::Error line_error(std::size_t line, std::string message) {
  return util::Error{
      util::ErrorKind::input, fmt::format("line {}: {}", line, std::move(message)), {}, {}};
}

// The header line's key=value fields after the version.
util::Result<void> check_header(std::string_view line, const std::string& recipe,
                                const std::string& source, std::optional<std::string>& updated) {
  const auto fields = util::split(line, '\t');
  const std::string expected_version = fmt::format("#flashfit-catalog {}", kCatalogCacheVersion);
  if (fields.empty() || fields[0] != expected_version) {
    return tl::unexpected(
        line_error(1, fmt::format("expected '{}', got '{}'", expected_version,
                                  util::printable(fields.empty() ? line : fields[0]))));
  }
  std::optional<std::string_view> file_recipe, file_source;
  for (std::size_t i = 1; i < fields.size(); ++i) {
    const auto eq = fields[i].find('=');
    if (eq == std::string_view::npos) continue;  // room for later fields
    const std::string_view key = fields[i].substr(0, eq);
    const std::string_view value = fields[i].substr(eq + 1);
    if (key == "recipe") file_recipe = value;
    if (key == "source") file_source = value;
    if (key == "updated") updated = std::string(value);
  }
  if (file_recipe != std::string_view(recipe) || file_source != std::string_view(source)) {
    return tl::unexpected(
        line_error(1, fmt::format("written for recipe '{}' source '{}', not '{}' '{}'",
                                  util::printable(file_recipe.value_or("?")),
                                  util::printable(file_source.value_or("?")), recipe, source)));
  }
  if (!updated || !is_utc_timestamp(*updated)) {
    return tl::unexpected(line_error(1, "no valid 'updated=' time"));
  }
  return {};
}

}  // namespace

util::Result<std::filesystem::path> catalog_cache_path(const std::filesystem::path& cache_root,
                                                       std::string_view recipe,
                                                       std::string_view source) {
  if (!is_safe_component(recipe) || !is_safe_component(source)) {
    return util::input_error(fmt::format("cannot name a catalog file after recipe '{}' source '{}'",
                                         util::printable(recipe), util::printable(source)),
                             {}, "recipe and source names must not be empty or contain '/'");
  }
  return cache_root / "catalogs" / std::string(recipe) / (std::string(source) + ".tsv");
}

std::string format_catalog_cache(const Catalog& catalog) {
  std::string out =
      fmt::format("#flashfit-catalog {}\trecipe={}\tsource={}\tupdated={}\n", kCatalogCacheVersion,
                  catalog.recipe, catalog.source, catalog.updated_at.value_or(""));
  out += kColumns;
  out += '\n';
  for (const CatalogEntry& entry : catalog.entries) {
    out += fmt::format("{}\t{}\t{}\t{}\t{}\n", entry.url, entry.tag, entry.filename, entry.evidence,
                       entry.sha256.value_or(""));
  }
  return out;
}

util::Result<Catalog> parse_catalog_cache(std::string_view text, const std::string& recipe,
                                          const std::string& source, std::string origin) {
  Catalog catalog;
  catalog.recipe = recipe;
  catalog.source = source;
  catalog.origin = std::move(origin);
  if (text.empty()) return util::input_error("empty file", catalog.origin);
  const bool truncated = text.back() != '\n';
  if (!truncated) text.remove_suffix(1);
  const auto lines = util::split(text, '\n');
  auto fail_at = [&](std::size_t line, std::string message) -> util::Result<Catalog> {
    return tl::unexpected(line_error(line, std::move(message)).with_context(catalog.origin));
  };
  if (auto header = check_header(lines[0], recipe, source, catalog.updated_at); !header) {
    return tl::unexpected(std::move(header.error()).with_context(catalog.origin));
  }
  // A writer that died mid-line (the atomic rename makes this unlikely, not impossible).
  if (truncated) return fail_at(lines.size(), "truncated: the last line does not end");
  if (lines.size() < 2 || lines[1] != kColumns) return fail_at(2, "expected the column names");
  std::unordered_set<std::string_view> urls;
  for (std::size_t i = 2; i < lines.size(); ++i) {
    const std::size_t number = i + 1;
    const auto fields = util::split(lines[i], '\t');
    if (fields.size() != 5) {
      return fail_at(number, fmt::format("expected 5 tab-separated fields, got {}", fields.size()));
    }
    CatalogEntry entry{std::string(fields[0]), std::string(fields[2]), std::string(fields[1]),
                       std::string(fields[3]), std::nullopt};
    std::optional<std::string> problem = url_problem(entry.url);
    if (!problem) problem = tag_problem(entry.tag);
    if (!problem) problem = filename_problem(entry.filename);
    if (!problem && (entry.evidence.empty() || has_control(entry.evidence)))
      problem = "bad evidence";
    if (!fields[4].empty()) {
      if (fields[4].size() != 64 || !is_lower_hex(fields[4])) problem = "bad sha256";
      entry.sha256 = std::string(fields[4]);
    }
    if (problem) return fail_at(number, *problem);
    if (!urls.insert(fields[0]).second) return fail_at(number, "duplicate URL");
    catalog.entries.push_back(std::move(entry));
  }
  if (catalog.entries.empty()) return fail_at(lines.size(), "no entries");
  return catalog;
}

std::optional<std::string> filename_problem(std::string_view filename) {
  if (filename.empty()) return "empty file name";
  if (!util::is_ascii(filename) || has_control(filename)) {
    return fmt::format("file name '{}' has control or non-ASCII characters",
                       util::printable(filename));
  }
  if (filename.find('/') != std::string_view::npos ||
      filename.find('\\') != std::string_view::npos) {
    return fmt::format("file name '{}' has a path separator", util::printable(filename));
  }
  if (!util::ends_with(filename, ".whl") || filename.size() == 4) {
    return fmt::format("file name '{}' is not a wheel (.whl)", util::printable(filename));
  }
  return std::nullopt;
}

std::optional<std::string> tag_problem(std::string_view tag) {
  if (tag.empty()) return "empty tag";
  if (has_control(tag) || tag.find('/') != std::string_view::npos) {
    return fmt::format("tag '{}' has '/' or control characters", util::printable(tag));
  }
  return std::nullopt;
}

std::optional<std::string> url_problem(std::string_view url) {
  if (!util::starts_with(url, "https://") && !util::starts_with(url, "http://")) {
    return fmt::format("'{}' is not an http(s) URL", util::printable(url));
  }
  for (char c : url) {
    if (is_control(c) || c == ' ' || !util::is_ascii(std::string_view(&c, 1))) {
      return fmt::format("URL '{}' has spaces, control or non-ASCII characters",
                         util::printable(url));
    }
  }
  return std::nullopt;
}

std::string encode_path_segment(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out.push_back(c);
    } else {
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    }
  }
  return out;
}

std::string substitute(std::string_view pattern,
                       const std::vector<std::pair<std::string_view, std::string_view>>& values) {
  std::string out;
  std::size_t pos = 0;
  while (pos < pattern.size()) {
    bool replaced = false;
    if (pattern[pos] == '{') {
      for (const auto& [name, value] : values) {
        if (pattern.substr(pos).substr(0, name.size()) == name) {
          out += value;
          pos += name.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out.push_back(pattern[pos++]);
  }
  return out;
}

}  // namespace flashfit::resolve
