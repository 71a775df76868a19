// The built-in catalogs (data/*.tsv) and the choice between them and a
// refreshed copy in the cache dir.
#include "resolve/catalog.hpp"

#include <fmt/format.h>

#include <unordered_set>

#include "net/http.hpp"
#include "resolve/catalog_cache.hpp"
#include "resolve/compiled_catalog.hpp"
#include "resolve/embedded.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

constexpr std::string_view kReleaseHeader = "tag\tfilename\tevidence";
constexpr std::string_view kUrlHeader = "url";
constexpr std::string_view kCommunityEvidence = "community-listing";

// Evidence is a word like "workflow-matrix": printable ASCII, no spaces.
bool is_plain_word(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c <= ' ' || c > '~') return false;
  }
  return true;
}

// A `url` row: the tag is the directory the file hangs in
// (".../releases/download/<tag>/<file>").
util::Result<CatalogEntry> url_row(std::string_view url) {
  if (auto problem = url_problem(url)) return util::input_error(*problem);
  std::string_view path = url.substr(url.find("://") + 3);
  path = path.substr(0, path.find_first_of("?#"));
  const auto slash = path.find('/');
  path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
  const auto segments = util::split(path, '/');
  if (segments.size() < 2 || segments.back().empty() || segments[segments.size() - 2].empty()) {
    return util::input_error(
        fmt::format("'{}' has no release directory and file name", util::printable(url)));
  }
  CatalogEntry entry{std::string(url), net::percent_decode(segments.back()),
                     net::percent_decode(segments[segments.size() - 2]),
                     std::string(kCommunityEvidence), std::nullopt};
  if (auto problem = filename_problem(entry.filename)) return util::input_error(*problem);
  if (auto problem = tag_problem(entry.tag)) return util::input_error(*problem);
  return entry;
}

// A `tag filename evidence` row: the URL comes from the source's template.
util::Result<CatalogEntry> release_row(const std::vector<std::string_view>& fields,
                                       const RecipeSource& source) {
  CatalogEntry entry;
  entry.tag = std::string(fields[0]);
  entry.filename = net::percent_decode(fields[1]);
  entry.evidence = std::string(fields[2]);
  if (auto problem = tag_problem(entry.tag)) return util::input_error(*problem);
  if (auto problem = filename_problem(entry.filename)) return util::input_error(*problem);
  if (!is_plain_word(entry.evidence)) {
    return util::input_error(fmt::format("bad evidence '{}'", util::printable(entry.evidence)));
  }
  entry.url =
      substitute(source.url_template, {{"{repository}", source.repository},
                                       {"{tag}", encode_path_segment(entry.tag)},
                                       {"{filename}", encode_path_segment(entry.filename)}});
  if (auto problem = url_problem(entry.url)) return util::input_error(*problem);
  return entry;
}

Catalog built_in_empty(const Recipe& recipe, const RecipeSource& source) {
  Catalog catalog;
  catalog.recipe = recipe.name;
  catalog.source = source.name;
  catalog.origin = "built-in";
  return catalog;
}

}  // namespace

util::Result<Catalog> parse_catalog_tsv(std::string_view tsv, const std::string& recipe,
                                        const RecipeSource& source, std::string origin) {
  Catalog catalog;
  catalog.recipe = recipe;
  catalog.source = source.name;
  catalog.origin = std::move(origin);
  const std::string where = source.catalog.empty()
                                ? catalog.origin
                                : fmt::format("{} ({})", source.catalog, catalog.origin);

  auto lines = util::split(tsv, '\n');
  for (std::string_view& line : lines) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // CRLF files
  }
  const bool by_url = lines[0] == kUrlHeader;
  if (!by_url && lines[0] != kReleaseHeader) {
    return util::input_error(
        fmt::format(
            "line 1: expected the header 'tag<TAB>filename<TAB>evidence' or 'url', got '{}'",
            util::printable(lines[0])),
        where);
  }
  if (!by_url && source.url_template.find("{filename}") == std::string::npos) {
    return util::input_error(
        fmt::format("source '{}' has no url_template with {{filename}} to form its URLs",
                    source.name),
        where);
  }
  std::unordered_set<std::string> seen;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;  // blank lines and the final newline
    const auto fields = util::split(lines[i], '\t');
    const std::size_t expected = by_url ? 1 : 3;
    util::Result<CatalogEntry> entry =
        fields.size() != expected
            ? util::input_error(fmt::format("expected {} tab-separated field{}, got {}", expected,
                                            expected == 1 ? "" : "s", fields.size()))
            : (by_url ? url_row(fields[0]) : release_row(fields, source));
    if (!entry) {
      return util::input_error(fmt::format("line {}: {}", i + 1, entry.error().message), where);
    }
    if (!seen.insert(entry->url).second) continue;  // one file listed twice: keep the first
    catalog.entries.push_back(std::move(*entry));
  }
  return catalog;
}

std::size_t OpenedCatalog::size() const {
  return compiled ? compiled->rows.size() : catalog.entries.size();
}

CatalogRow OpenedCatalog::row(std::size_t i) const {
  if (compiled) return compiled->row(i);
  const CatalogEntry& e = catalog.entries[i];
  return {e.url,
          e.filename,
          e.tag,
          e.evidence,
          e.sha256 ? std::optional<std::string_view>(*e.sha256) : std::nullopt,
          std::nullopt,
          std::nullopt};
}

util::Result<OpenedCatalog> open_catalog(const Recipe& recipe, const RecipeSource& source,
                                         const std::optional<std::filesystem::path>& cache_root,
                                         std::vector<std::string>& warnings) {
  auto parsed = [](util::Result<Catalog> catalog) -> util::Result<OpenedCatalog> {
    if (!catalog) return tl::unexpected(std::move(catalog.error()));
    return OpenedCatalog{std::move(*catalog), nullptr};
  };
  if (cache_root) {
    auto path = catalog_cache_path(*cache_root, recipe.name, source.name);
    if (!path) return tl::unexpected(std::move(path.error()));
    std::error_code ec;
    if (std::filesystem::exists(*path, ec)) {
      const auto text = util::read_small_file(*path, kMaxCatalogFileSize);
      if (!text) {
        warnings.push_back(
            fmt::format("cannot read the refreshed catalog {} (or it is larger than "
                        "{} bytes); using the built-in one",
                        path->string(), kMaxCatalogFileSize));
      } else if (auto cached =
                     parse_catalog_cache(*text, recipe.name, source.name, path->string())) {
        return parsed(std::move(cached));
      } else {
        warnings.push_back(
            fmt::format("ignoring the refreshed catalog: {}: {}; using the built-in one "
                        "(`flashfit catalog update` writes a new one)",
                        cached.error().context, cached.error().message));
      }
    }
  }
  if (source.catalog.empty()) return parsed(built_in_empty(recipe, source));
  if (const CompiledCatalog* compiled = find_compiled_catalog(source)) {
    return OpenedCatalog{built_in_empty(recipe, source), compiled};
  }
  const EmbeddedFile* file = find_embedded(embedded_catalogs(), source.catalog);
  if (file == nullptr) {
    return util::input_error(
        fmt::format("source '{}' of recipe '{}' names the catalog '{}', which is not built in",
                    source.name, recipe.name, util::printable(source.catalog)),
        recipe.origin, "leave `catalog` empty, or name one of the files under data/");
  }
  return parsed(parse_catalog_tsv(file->text, recipe.name, source, "built-in"));
}

util::Result<Catalog> load_catalog(const Recipe& recipe, const RecipeSource& source,
                                   const std::optional<std::filesystem::path>& cache_root,
                                   std::vector<std::string>& warnings) {
  auto opened = open_catalog(recipe, source, cache_root, warnings);
  if (!opened) return tl::unexpected(std::move(opened.error()));
  if (opened->compiled) {
    opened->catalog.entries.reserve(opened->size());
    for (std::size_t i = 0; i < opened->size(); ++i) {
      const CatalogRow row = opened->row(i);
      opened->catalog.entries.push_back(
          CatalogEntry{std::string(row.url), std::string(row.filename), std::string(row.tag),
                       std::string(row.evidence),
                       row.sha256 ? std::optional<std::string>(*row.sha256) : std::nullopt});
    }
  }
  return std::move(opened->catalog);
}

}  // namespace flashfit::resolve
