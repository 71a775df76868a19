// parse_recipe: the TOML schema of docs/recipes.md mapped onto Recipe. Every
// value is checked here (names, specifiers, archs, placeholders) so that the
// resolver and the build planner can trust a Recipe without re-checking.
#include "resolve/recipe_toml.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "pkg/name.hpp"
#include "resolve/recipe.hpp"
#include "resolve/recipe_values.hpp"
#include "resolve/toml_reader.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

using detail::StringItem;
using detail::TomlReader;

constexpr std::size_t kMaxBlocks = 10000;  // [[release]] etc.: far beyond any real recipe

class RecipeParser {
 public:
  explicit RecipeParser(TomlReader& reader) : r_(reader) {}

  void parse(const toml::table& root, Recipe& recipe) {
    r_.check_keys(root, "", {"package", "source", "release", "known_broken", "build"});
    const toml::table* package = r_.table(root, "", "package");
    if (package == nullptr) {
      if (r_.ok()) {
        r_.fail(nullptr, "", "missing [package] table",
                "a recipe starts with [package] and name = \"...\"");
      }
      return;
    }
    parse_package(*package, recipe);
    if (const toml::array* sources = blocks(root, "source")) {
      for (std::size_t i = 0; i < sources->size() && r_.ok(); ++i) {
        recipe.sources.push_back(
            parse_source(*sources->get(i)->as_table(), detail::index_path("source", i)));
      }
    }
    if (const toml::array* releases = blocks(root, "release")) {
      for (std::size_t i = 0; i < releases->size() && r_.ok(); ++i) {
        recipe.releases.push_back(
            parse_release(*releases->get(i)->as_table(), detail::index_path("release", i)));
      }
    }
    if (const toml::array* broken = blocks(root, "known_broken")) {
      for (std::size_t i = 0; i < broken->size() && r_.ok(); ++i) {
        recipe.known_broken.push_back(
            parse_broken(*broken->get(i)->as_table(), detail::index_path("known_broken", i)));
      }
    }
    recipe.build.needs_cuda = recipe.needs_cuda;  // [build] may say otherwise
    if (const toml::table* build = r_.table(root, "", "build")) {
      detail::parse_build(r_, *build, recipe.build);
    }
  }

 private:
  const toml::array* blocks(const toml::table& root, std::string_view key) {
    const toml::array* array = r_.table_array(root, "", key);
    if (array != nullptr && array->size() > kMaxBlocks) {
      r_.fail(array, key, fmt::format("too many [[{}]] blocks ({})", key, array->size()));
      return nullptr;
    }
    return array;
  }

  std::optional<pkg::SpecifierSet> specifiers(const toml::table& table, std::string_view path,
                                              std::string_view key) {
    auto text = r_.string(table, path, key, "a version specifier string like \">=2.6,<2.8\"");
    if (!text) return std::nullopt;
    auto parsed = pkg::SpecifierSet::parse(*text);
    if (!parsed) {
      r_.fail(table.get(key), detail::key_path(path, key),
              fmt::format("invalid version specifier \"{}\": {}", util::printable(*text),
                          parsed.error().message));
      return std::nullopt;
    }
    return std::move(*parsed);
  }

  // Names of sources this recipe declares; conditions may name only those.
  std::vector<std::string> source_list(const toml::table& table, std::string_view path) {
    std::vector<std::string> out;
    auto items = r_.strings(table, path, "sources", "a source name");
    if (!items) return out;
    for (const StringItem& item : *items) {
      if (source_names_.count(item.value) == 0) {
        r_.fail(
            item.node, item.path, fmt::format("unknown source \"{}\"", util::printable(item.value)),
            source_names_.empty() ? "declare it in a [[source]] block first"
                                  : "sources of this recipe: " +
                                        util::join(std::vector<std::string>(source_names_.begin(),
                                                                            source_names_.end()),
                                                   ", "));
        return out;
      }
      out.push_back(item.value);
    }
    return out;
  }

  void parse_package(const toml::table& table, Recipe& recipe) {
    const std::string path = "package";
    r_.check_keys(
        table, path,
        {"name", "summary", "aliases", "import_names", "binary_module", "needs_cuda", "fallback"});
    const std::string name = r_.required(table, path, "name");
    if (!r_.ok()) return;
    if (!pkg::is_valid_project_name(name)) {
      r_.fail(table.get("name"), "package.name",
              fmt::format("\"{}\" is not a valid distribution name", util::printable(name)));
      return;
    }
    recipe.name = pkg::canonicalize_name(name);
    recipe.summary = r_.string(table, path, "summary").value_or("");
    if (auto aliases = r_.strings(table, path, "aliases", "a distribution name")) {
      for (const StringItem& item : *aliases) {
        if (!pkg::is_valid_project_name(item.value)) {
          r_.fail(
              item.node, item.path,
              fmt::format("\"{}\" is not a valid distribution name", util::printable(item.value)));
          return;
        }
        recipe.aliases.push_back(item.value);
      }
    }
    if (auto modules = r_.strings(table, path, "import_names", "a module name")) {
      for (const StringItem& item : *modules) {
        if (!is_module_name(item.value)) {
          r_.fail(item.node, item.path,
                  fmt::format("\"{}\" is not a Python module name", util::printable(item.value)));
          return;
        }
        recipe.import_names.push_back(item.value);
      }
    }
    if (auto module = r_.string(table, path, "binary_module", "a module name")) {
      if (!is_module_name(*module)) {
        r_.fail(table.get("binary_module"), "package.binary_module",
                fmt::format("\"{}\" is not a Python module name", util::printable(*module)));
        return;
      }
      recipe.binary_module = *module;
    }
    recipe.needs_cuda = r_.boolean(table, path, "needs_cuda").value_or(true);
    recipe.fallback = r_.string(table, path, "fallback").value_or("");
  }

  RecipeSource parse_source(const toml::table& table, const std::string& path) {
    RecipeSource source;
    r_.check_keys(table, path,
                  {"name", "kind", "description", "repository", "catalog", "url_template",
                   "api_url", "labels", "abi", "enabled", "third_party"});
    source.name = r_.required(table, path, "name");
    if (!r_.ok()) return source;
    if (!is_source_name(source.name)) {
      r_.fail(table.get("name"), path + ".name",
              fmt::format("\"{}\" is not a valid source name", util::printable(source.name)),
              "lower-case letters, digits and '-', starting with a letter");
    } else if (source.name == "cache" || source.name == "index") {
      r_.fail(
          table.get("name"), path + ".name",
          fmt::format("\"{}\" is reserved (a source kind in the config's priority)", source.name));
    } else if (!source_names_.insert(source.name).second) {
      r_.fail(table.get("name"), path + ".name",
              fmt::format("duplicate source name \"{}\"", source.name));
    }
    if (auto kind = r_.string(table, path, "kind"); kind && *kind != "github-releases") {
      r_.fail(table.get("kind"), path + ".kind",
              fmt::format("unknown source kind \"{}\"", util::printable(*kind)),
              "the only kind is \"github-releases\"");
    }
    source.description = r_.string(table, path, "description").value_or("");
    source.repository = r_.required(table, path, "repository");
    if (r_.ok() && !is_repository(source.repository)) {
      r_.fail(
          table.get("repository"), path + ".repository",
          fmt::format("expected \"owner/name\", got \"{}\"", util::printable(source.repository)));
    }
    source.catalog = r_.string(table, path, "catalog").value_or("");
    if (r_.ok() && !source.catalog.empty() &&
        (source.catalog.find('/') != std::string::npos || source.catalog.front() == '.')) {
      r_.fail(table.get("catalog"), path + ".catalog",
              "expected a file name under data/ (no directories), or \"\" for none");
    }
    source.url_template = r_.required(table, path, "url_template");
    check_placeholders(table, path, "url_template", source.url_template,
                       {"repository", "tag", "filename"}, "filename");
    source.api_url = r_.string(table, path, "api_url").value_or("");
    check_placeholders(table, path, "api_url", source.api_url, {"api", "repository"}, "");
    parse_labels_and_abi(table, path, source);
    source.enabled_by_default = r_.boolean(table, path, "enabled").value_or(true);
    source.third_party = r_.boolean(table, path, "third_party").value_or(false);
    return source;
  }

  void parse_labels_and_abi(const toml::table& table, const std::string& path,
                            RecipeSource& source) {
    if (auto labels = r_.string(table, path, "labels")) {
      auto scheme = parse_variant_scheme(*labels);
      if (!scheme) {
        r_.fail(table.get("labels"), path + ".labels",
                fmt::format("unknown label dialect \"{}\"", util::printable(*labels)),
                "one of: upstream, community, pyg, rocm, none");
        return;
      }
      source.labels = *scheme;
    }
    const bool has_abi_token =
        source.labels == pkg::VariantScheme::upstream || source.labels == pkg::VariantScheme::rocm;
    source.abi = has_abi_token ? AbiRule::label : AbiRule::unknown;
    if (auto abi = r_.string(table, path, "abi")) {
      auto rule = parse_abi_rule(*abi);
      if (!rule) {
        r_.fail(table.get("abi"), path + ".abi",
                fmt::format("unknown ABI rule \"{}\"", util::printable(*abi)),
                "one of: label, pytorch-official, unknown");
        return;
      }
      if (*rule == AbiRule::label && !has_abi_token) {
        r_.fail(table.get("abi"), path + ".abi",
                fmt::format("\"label\" needs labels with an ABI token, and \"{}\" labels have none",
                            pkg::to_string(source.labels)));
        return;
      }
      source.abi = *rule;
    }
  }

  void check_placeholders(const toml::table& table, const std::string& path, std::string_view key,
                          const std::string& text, std::initializer_list<std::string_view> allowed,
                          std::string_view required_name) {
    if (!r_.ok() || text.empty()) return;
    auto problem = placeholder_problem(text, allowed, required_name);
    if (problem) r_.fail(table.get(key), detail::key_path(path, key), *problem);
  }

  ReleaseFacts parse_release(const toml::table& table, const std::string& path) {
    ReleaseFacts facts;
    r_.check_keys(table, path,
                  {"versions", "sources", "cuda", "cuda_tokens", "gpu_archs", "ptx", "min_glibc",
                   "min_compute_capability", "max_compute_capability", "torch", "python", "note"});
    facts.versions = specifiers(table, path, "versions").value_or(pkg::SpecifierSet{});
    facts.sources = source_list(table, path);
    facts.cuda = specifiers(table, path, "cuda");
    if (const toml::table* tokens = r_.table(table, path, "cuda_tokens")) {
      parse_cuda_tokens(*tokens, path + ".cuda_tokens", facts.cuda_tokens);
    }
    if (auto archs = r_.strings(table, path, "gpu_archs", kArchExpected)) {
      facts.gpu_archs.emplace();
      for (const StringItem& item : *archs) {
        auto arch = parse_gpu_arch(item.value);
        if (!arch) {
          r_.fail(
              item.node, item.path,
              fmt::format("expected {}, got \"{}\"", kArchExpected, util::printable(item.value)));
          break;
        }
        facts.gpu_archs->push_back(*arch);
      }
    }
    if (auto ptx = r_.boolean(table, path, "ptx")) {
      // ptx describes the gpu_archs list; alone it would say "PTX of nothing".
      if (!facts.gpu_archs && r_.ok()) {
        r_.fail(table.get("ptx"), path + ".ptx", "ptx needs gpu_archs in the same block");
      }
      facts.ptx = *ptx;
    }
    facts.min_glibc = detail::major_minor_text(r_, table, path, "min_glibc", "2.32");
    facts.min_compute_capability =
        detail::major_minor_text(r_, table, path, "min_compute_capability", "8.0");
    facts.max_compute_capability =
        detail::major_minor_text(r_, table, path, "max_compute_capability", "9.0");
    facts.torch = specifiers(table, path, "torch");
    facts.python = specifiers(table, path, "python");
    facts.note = r_.string(table, path, "note").value_or("");
    const bool sets_something = !facts.cuda_tokens.empty() || facts.gpu_archs || facts.min_glibc ||
                                facts.min_compute_capability || facts.max_compute_capability ||
                                facts.torch || facts.python;
    if (r_.ok() && !sets_something) {
      r_.fail(&table, path, "sets no facts",
              "give at least one of cuda_tokens, gpu_archs, min_glibc, min_compute_capability, "
              "max_compute_capability, torch, python");
    }
    return facts;
  }

  void parse_cuda_tokens(const toml::table& table, const std::string& path,
                         std::map<int, std::string>& out) {
    for (auto&& [key, node] : table) {
      const std::string here = detail::key_path(path, key.str());
      auto major = parse_small_int(key.str());
      if (!major || *major < 1 || *major > 99) {
        r_.fail(&node, here, "expected a CUDA major version as the key (11 = \"cu118\")");
        return;
      }
      const auto* token = node.as_string();
      if (token == nullptr || !is_cuda_token(token->get())) {
        r_.fail(&node, here, "expected a CUDA token string like \"cu12\" or \"cu118\"");
        return;
      }
      out[*major] = token->get();
    }
  }

  KnownBroken parse_broken(const toml::table& table, const std::string& path) {
    KnownBroken broken;
    r_.check_keys(table, path,
                  {"versions", "sources", "filename_glob", "torch", "reason", "reference"});
    if (table.get("versions") == nullptr) {
      r_.fail(&table, path + ".versions", "missing (required)",
              "say which versions are broken; \">=0\" for all");
    }
    broken.versions = specifiers(table, path, "versions").value_or(pkg::SpecifierSet{});
    broken.sources = source_list(table, path);
    broken.filename_glob = r_.string(table, path, "filename_glob").value_or("");
    broken.torch = specifiers(table, path, "torch");
    broken.reason = r_.required(table, path, "reason");
    broken.reference = r_.string(table, path, "reference").value_or("");
    return broken;
  }

  static constexpr std::string_view kArchExpected = "a string like \"8.0\" or \"9.0@11.8\"";

  TomlReader& r_;
  std::set<std::string> source_names_;
};

}  // namespace

util::Result<Recipe> parse_recipe(std::string_view toml_text, std::string_view origin) {
  auto document = detail::parse_toml(toml_text, origin);
  if (!document) return tl::unexpected(std::move(document.error()));
  TomlReader reader{std::string(origin)};
  Recipe recipe;
  recipe.origin = std::string(origin);
  RecipeParser(reader).parse(*document, recipe);
  if (!reader.ok()) return tl::unexpected(reader.error());
  return recipe;
}

}  // namespace flashfit::resolve
