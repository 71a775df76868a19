// Looking up the compiled built-in catalogs, and rendering them for the
// generator (src/tools/catalog_compile.cpp).
#include "resolve/compiled_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <unordered_map>
#include <utility>

#include "pkg/wheel_name.hpp"

namespace flashfit::resolve {

CatalogRow CompiledCatalog::row(std::size_t i) const {
  const CompiledCatalogRow& r = rows[i];
  auto at = [&](std::uint32_t offset, std::uint32_t size) { return text.substr(offset, size); };
  return {at(r.url, r.url_size),
          at(r.filename, r.filename_size),
          at(r.tag, r.tag_size),
          at(r.evidence, r.evidence_size),
          r.sha256_size == 0 ? std::nullopt
                             : std::optional<std::string_view>(at(r.sha256, r.sha256_size)),
          r.name_size == 0 ? std::nullopt
                           : std::optional<pkg::WheelNameLayout>(pkg::WheelNameLayout{
                                 this, r.name_size, r.version_size, r.version, r.tag_set}),
          CatalogUrlRank{this, r.url_rank}};
}

const CompiledCatalog* find_compiled_catalog(const RecipeSource& source) {
  if (source.catalog.empty()) return nullptr;
  for (const CompiledCatalog& compiled : compiled_catalogs()) {
    if (compiled.file == source.catalog && compiled.url_template == source.url_template &&
        compiled.repository == source.repository)
      return &compiled;
  }
  return nullptr;
}

std::string cpp_string_literal(std::string_view text) {
  std::string out = "\"";
  out.reserve(text.size() + 2);
  for (char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    // Octal escapes stop after three digits, so a following digit cannot
    // extend them (hex escapes would swallow it); '?' escaped against trigraphs.
    if (byte < ' ' || byte > '~' || ch == '"' || ch == '\\' || ch == '?') {
      out += fmt::format("\\{:03o}", byte);
    } else {
      out += ch;
    }
  }
  out += '"';
  return out;
}

namespace {

// A catalog's strings back to back, each distinct one once (tags and evidence
// repeat on every row), and the rows as offsets into them.
class TextBuilder {
 public:
  std::pair<std::uint32_t, std::uint32_t> add(std::string_view piece) {
    auto [it, added] = offsets_.try_emplace(std::string(piece), 0);
    if (added) {
      it->second = static_cast<std::uint32_t>(text_.size());
      text_ += piece;
    }
    return {it->second, static_cast<std::uint32_t>(piece.size())};
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::unordered_map<std::string, std::uint32_t> offsets_;
};

// Each distinct spelling of a catalog's versions (and, apart, of its tag
// sets) numbered in the order first seen, as a pkg::WheelNameLayout wants.
class SpellingNumbers {
 public:
  std::optional<std::uint16_t> number(std::string_view spelling) {
    auto [it, added] = numbers_.try_emplace(std::string(spelling), numbers_.size());
    if (it->second > UINT16_MAX) return std::nullopt;
    return static_cast<std::uint16_t>(it->second);
  }

 private:
  std::unordered_map<std::string, std::size_t> numbers_;
};

// A file name's layout fields (name_size, version_size, version, tag_set), all
// 0 (none) unless it parses as the runtime parses it, without a build tag, and
// every field fits.
std::array<std::uint16_t, 4> layout_of(std::string_view filename, SpellingNumbers& versions,
                                       SpellingNumbers& tag_sets) {
  auto wheel = pkg::parse_wheel_filename(filename);
  if (!wheel || wheel->build) return {};
  const std::size_t name_size = filename.find('-');
  const std::size_t version_size = filename.find('-', name_size + 1) - name_size - 1;
  if (name_size > UINT16_MAX || version_size > UINT16_MAX) return {};
  const std::size_t tags_at = name_size + 1 + version_size + 1;
  const auto version = versions.number(filename.substr(name_size + 1, version_size));
  const auto tag_set = tag_sets.number(filename.substr(tags_at, filename.size() - 4 - tags_at));
  if (!version || !tag_set) return {};
  return {static_cast<std::uint16_t>(name_size), static_cast<std::uint16_t>(version_size), *version,
          *tag_set};
}

// Each row's URL's rank among the catalog's, in std::string's order (equal
// URLs, which a parsed catalog never has, would share one).
std::vector<std::uint32_t> url_ranks_of(const Catalog& catalog) {
  const std::vector<CatalogEntry>& entries = catalog.entries;
  std::vector<std::uint32_t> by_url(entries.size());
  for (std::size_t k = 0; k < by_url.size(); ++k) by_url[k] = static_cast<std::uint32_t>(k);
  std::stable_sort(by_url.begin(), by_url.end(), [&](std::uint32_t a, std::uint32_t b) {
    return entries[a].url < entries[b].url;
  });
  std::vector<std::uint32_t> ranks(entries.size());
  std::uint32_t rank = 0;
  for (std::size_t k = 0; k < by_url.size(); ++k) {
    if (k > 0 && entries[by_url[k - 1]].url != entries[by_url[k]].url) ++rank;
    ranks[by_url[k]] = rank;
  }
  return ranks;
}

// Long text as adjacent literals of at most 4096 bytes each (well under any
// compiler's limit on one literal).
std::string literal_pieces(std::string_view text) {
  if (text.empty()) return "\"\"";
  std::string out;
  for (std::size_t at = 0; at < text.size(); at += 4096) {
    out += "\n    ";
    out += cpp_string_literal(text.substr(at, 4096));
  }
  return out;
}

}  // namespace

std::string render_compiled_catalogs(const std::vector<CatalogToCompile>& catalogs) {
  std::string out =
      "// Generated by flashfit_catalog_compile (src/tools/catalog_compile.cpp) from data/*.tsv;\n"
      "// do not edit.\n"
      "#include \"resolve/compiled_catalog.hpp\"\n\n"
      "namespace flashfit::resolve {\n"
      "namespace {\n";
  std::string table;
  for (std::size_t i = 0; i < catalogs.size(); ++i) {
    const CatalogToCompile& c = catalogs[i];
    const std::size_t rows = c.catalog->entries.size();
    TextBuilder text;
    SpellingNumbers versions, tag_sets;
    std::string body;
    const std::vector<std::uint32_t> url_ranks = url_ranks_of(*c.catalog);
    for (std::size_t k = 0; k < rows; ++k) {
      const CatalogEntry& e = c.catalog->entries[k];
      const auto url = text.add(e.url);
      const auto filename = text.add(e.filename);
      const auto tag = text.add(e.tag);
      const auto evidence = text.add(e.evidence);
      const auto sha256 = text.add(e.sha256.value_or(""));
      const auto layout = layout_of(e.filename, versions, tag_sets);
      body += fmt::format("    {{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}}},\n",
                          url.first, url.second, filename.first, filename.second, tag.first,
                          tag.second, evidence.first, evidence.second, sha256.first, sha256.second,
                          url_ranks[k], layout[0], layout[1], layout[2], layout[3]);
    }
    // An empty array is ill-formed: a catalog without rows gets a placeholder, not counted.
    if (rows == 0) body += "    {},\n";
    out += fmt::format("\nconstexpr char text_{}[] ={};\n", i, literal_pieces(text.text()));
    out += fmt::format("constexpr CompiledCatalogRow rows_{}[] = {{\n{}}};\n", i, body);
    table += fmt::format("    {{{}, {}, {}, {{text_{}, sizeof(text_{}) - 1}}, {{rows_{}, {}}}}},\n",
                         cpp_string_literal(c.source->catalog),
                         cpp_string_literal(c.source->url_template),
                         cpp_string_literal(c.source->repository), i, i, i, rows);
  }
  out += fmt::format(
      "\nconstexpr CompiledCatalog table[] = {{\n{}    {{}},\n}};\n"
      "}}  // namespace\n\n"
      "std::span<const CompiledCatalog> compiled_catalogs() {{ return {{table, {}}}; }}\n\n"
      "}}  // namespace flashfit::resolve\n",
      table, catalogs.size());
  return out;
}

}  // namespace flashfit::resolve
