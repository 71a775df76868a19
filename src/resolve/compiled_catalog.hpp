#pragma once
// The built-in catalogs compiled at build time: src/tools/catalog_compile.cpp
// runs parse_catalog_tsv over data/*.tsv for every built-in recipe source and
// writes the rows as a C++ table of string literals, so a resolve reads them in
// place: no TSV splitting, percent-decoding, URL templating or validation at run
// time. A row is what the runtime parse gives for the same file and source
// (tests/unit/resolve/compiled_catalog_test.cpp checks every row).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "resolve/catalog.hpp"
#include "resolve/recipe.hpp"

namespace flashfit::resolve {

// A row's strings as offsets into its catalog's text, not pointers: a table of
// pointers would need tens of thousands of relocations at every start of the
// binary (PIE), whatever the command.
struct CompiledCatalogRow {
  std::uint32_t url, url_size;
  std::uint32_t filename, filename_size;
  std::uint32_t tag, tag_size;
  std::uint32_t evidence, evidence_size;
  std::uint32_t sha256, sha256_size;  // size 0: the listing gave none
  // The URL's rank among the catalog's URLs sorted as std::string sorts them
  // (unique: a catalog's URLs are), the resolver's last tie-break.
  std::uint32_t url_rank;
  // The file name's layout (pkg::WheelNameLayout, this catalog its table):
  // name_size 0 when it has none (a name that does not parse, a build tag,
  // more distinct spellings than the numbers hold), and the judge parses it.
  std::uint16_t name_size, version_size, version, tag_set;
};

// One built-in catalog as parsed for a source with this URL template and
// repository: the URLs of `tag filename evidence` rows are formed from them,
// so the table applies only to a source that has the same two.
struct CompiledCatalog {
  std::string_view file;  // "flash-attn-official-wheels.tsv"
  std::string_view url_template;
  std::string_view repository;
  std::string_view text;  // the rows' strings (each distinct one once)
  std::span<const CompiledCatalogRow> rows;

  CatalogRow row(std::size_t i) const;
};

// Every compiled catalog (the generated table; empty in the generator itself,
// which parses).
std::span<const CompiledCatalog> compiled_catalogs();

// The compiled form of `source`'s built-in catalog, or nullptr when there is
// none for it: no catalog named, or a user recipe's source that names a
// built-in file with another URL template or repository (then the file is
// parsed at run time, as before).
const CompiledCatalog* find_compiled_catalog(const RecipeSource& source);

// The C++ source of the generated table for these parsed catalogs (the
// generator's output; pure, so its quoting is tested).
struct CatalogToCompile {
  const RecipeSource* source = nullptr;  // its catalog, url_template and repository
  const Catalog* catalog = nullptr;      // parse_catalog_tsv of the built-in file
};
std::string render_compiled_catalogs(const std::vector<CatalogToCompile>& catalogs);

// A C++ string literal holding exactly `text` (every byte outside printable
// ASCII, and '"', '\\' and '?', as a three-digit octal escape).
std::string cpp_string_literal(std::string_view text);

}  // namespace flashfit::resolve
