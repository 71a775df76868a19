// The user's config file (docs/config.md): where it is, and what it says.
#include "resolve/config.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <system_error>

#include "resolve/text_file.hpp"
#include "resolve/toml_reader.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

namespace fs = std::filesystem;
using detail::StringItem;
using detail::TomlReader;

// Source names every config may use, and the kind word for all indexes.
constexpr std::string_view kBuiltInSources[] = {"cache", "upstream", "community"};
constexpr std::string_view kIndexKind = "index";
// The default priority, best first (config.hpp).
constexpr std::string_view kDefaultPriority[] = {"cache", "index", "upstream", "community"};

bool is_builtin_source(std::string_view name) {
  return std::find(std::begin(kBuiltInSources), std::end(kBuiltInSources), name) !=
         std::end(kBuiltInSources);
}

bool has_scheme(std::string_view text, std::string_view scheme) {
  return util::starts_with(util::ascii_lower(text.substr(0, scheme.size())), scheme);
}

bool is_url(std::string_view text) {
  return has_scheme(text, "http://") || has_scheme(text, "https://") || has_scheme(text, "file://");
}

bool is_index_name(std::string_view text) {
  if (text.empty() || text.size() > 64) return false;
  auto ok = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  };
  return std::all_of(text.begin(), text.end(), ok) && ok(text.front()) && text.front() != '-' &&
         text.front() != '.';
}

class ConfigParser {
 public:
  ConfigParser(TomlReader& reader, const fs::path& base_dir) : r_(reader), base_dir_(base_dir) {}

  void parse(const toml::table& root, Config& config) {
    r_.check_keys(root, "", {"recipe_dirs", "index", "sources"});
    if (auto dirs = r_.strings(root, "", "recipe_dirs", "a directory path")) {
      for (const StringItem& item : *dirs) {
        if (auto path = local_path(item)) config.recipe_dirs.push_back(*path);
      }
    }
    if (const toml::array* indexes = r_.table_array(root, "", "index")) {
      for (std::size_t i = 0; i < indexes->size() && r_.ok(); ++i) {
        config.indexes.push_back(
            parse_index(*indexes->get(i)->as_table(), detail::index_path("index", i), config));
      }
    }
    if (const toml::table* sources = r_.table(root, "", "sources")) {
      parse_sources(*sources, config);
    }
    complete_priority(config.priority);
  }

 private:
  // Relative paths mean "next to the config file", whoever runs flashfit.
  std::optional<fs::path> local_path(const StringItem& item) {
    if (item.value.empty()) {
      r_.fail(item.node, item.path, "empty path");
      return std::nullopt;
    }
    if (item.value.front() == '~') {
      r_.fail(item.node, item.path, "'~' is not expanded here", "write the full path");
      return std::nullopt;
    }
    fs::path path(item.value);
    return (path.is_absolute() ? path : base_dir_ / path).lexically_normal();
  }

  IndexConfig parse_index(const toml::table& table, const std::string& path, const Config& config) {
    IndexConfig index;
    r_.check_keys(table, path, {"name", "url", "kind", "enabled"});
    auto name = r_.string(table, path, "name");
    if (!name) {
      if (r_.ok()) r_.fail(&table, path + ".name", "missing (required)");
      return index;
    }
    index.name = *name;
    const toml::node* name_node = table.get("name");
    if (!is_index_name(index.name)) {
      r_.fail(name_node, path + ".name",
              fmt::format("\"{}\" is not a valid source name", util::printable(index.name)),
              "letters, digits, '-', '_' and '.'");
    } else if (is_builtin_source(index.name) || index.name == kIndexKind) {
      r_.fail(name_node, path + ".name",
              fmt::format("\"{}\" is the name of a built-in source", index.name),
              "pick another name for this index");
    } else if (std::any_of(config.indexes.begin(), config.indexes.end(),
                           [&](const IndexConfig& other) { return other.name == index.name; })) {
      r_.fail(name_node, path + ".name", fmt::format("duplicate index name \"{}\"", index.name));
    }
    if (auto kind = r_.string(table, path, "kind")) {
      if (*kind == "simple") {
        index.kind = IndexKind::simple;
      } else if (*kind == "find-links") {
        index.kind = IndexKind::find_links;
      } else {
        r_.fail(table.get("kind"), path + ".kind",
                fmt::format("unknown index kind \"{}\"", util::printable(*kind)),
                "\"simple\" (a PEP 503 index) or \"find-links\" (a page or directory of wheels)");
      }
    }
    auto url = r_.string(table, path, "url");
    if (!url) {
      if (r_.ok()) r_.fail(&table, path + ".url", "missing (required)");
      return index;
    }
    if (is_url(*url)) {
      index.location = *url;
    } else if (index.kind == IndexKind::find_links) {
      if (auto local = local_path(StringItem{*url, path + ".url", table.get("url")})) {
        index.location = local->string();
      }
    } else {
      r_.fail(table.get("url"), path + ".url",
              fmt::format("expected an http://, https:// or file:// URL, got \"{}\"",
                          util::printable(*url)),
              "a local directory of wheels is kind = \"find-links\"");
    }
    index.enabled = r_.boolean(table, path, "enabled").value_or(true);
    return index;
  }

  // Names a config may use for sources: the built-in ones and its indexes.
  bool known_source(const Config& config, std::string_view name) const {
    return is_builtin_source(name) ||
           std::any_of(config.indexes.begin(), config.indexes.end(),
                       [&](const IndexConfig& index) { return index.name == name; });
  }

  std::vector<std::string> name_list(const toml::table& table, std::string_view key,
                                     const Config& config, bool allow_kind) {
    std::vector<std::string> out;
    auto items = r_.strings(table, "sources", key, "a source name");
    if (!items) return out;
    for (const StringItem& item : *items) {
      const bool known =
          known_source(config, item.value) || (allow_kind && item.value == kIndexKind);
      if (!known) {
        std::string known_names = "cache, upstream, community";
        for (const IndexConfig& index : config.indexes) known_names += ", " + index.name;
        if (allow_kind) known_names += ", index (every configured index)";
        r_.fail(item.node, item.path,
                fmt::format("unknown source \"{}\"", util::printable(item.value)),
                "known: " + known_names);
        return out;
      }
      if (std::find(out.begin(), out.end(), item.value) != out.end()) {
        r_.fail(item.node, item.path, fmt::format("\"{}\" is listed twice", item.value));
        return out;
      }
      out.push_back(item.value);
    }
    return out;
  }

  void parse_sources(const toml::table& table, Config& config) {
    r_.check_keys(table, "sources", {"enable", "disable", "priority"});
    config.enable = name_list(table, "enable", config, false);
    config.disable = name_list(table, "disable", config, false);
    for (const std::string& name : config.enable) {
      if (std::find(config.disable.begin(), config.disable.end(), name) != config.disable.end()) {
        r_.fail(table.get("disable"), "sources.disable",
                fmt::format("\"{}\" is both enabled and disabled", name));
      }
    }
    config.priority = name_list(table, "priority", config, true);
  }

  // The given order first, then whatever the default order has that is
  // missing, so the resolver always gets a complete ranking.
  static void complete_priority(std::vector<std::string>& priority) {
    for (std::string_view name : kDefaultPriority) {
      if (std::find(priority.begin(), priority.end(), name) == priority.end()) {
        priority.emplace_back(name);
      }
    }
  }

  TomlReader& r_;
  fs::path base_dir_;
};

bool path_exists(const fs::path& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec)) && !ec;
}

std::optional<std::string> nonempty(const std::optional<std::string>& value) {
  if (value && !value->empty()) return value;
  return std::nullopt;
}

// $XDG_CONFIG_HOME/flashfit (the XDG spec ignores a relative value), else ~/.config/flashfit.
std::optional<fs::path> user_config_dir(const ConfigLocation& where) {
  if (auto xdg = nonempty(where.xdg_config_home); xdg && fs::path(*xdg).is_absolute()) {
    return fs::path(*xdg) / "flashfit";
  }
  if (auto home = nonempty(where.home)) return fs::path(*home) / ".config" / "flashfit";
  return std::nullopt;
}

}  // namespace

util::Result<Config> parse_config(std::string_view toml_text, std::string_view origin,
                                  const std::filesystem::path& base_dir) {
  auto document = detail::parse_toml(toml_text, origin);
  if (!document) return tl::unexpected(std::move(document.error()));
  TomlReader reader{std::string(origin)};
  Config config;
  ConfigParser(reader, base_dir).parse(*document, config);
  if (!reader.ok()) return tl::unexpected(reader.error());
  return config;
}

util::Result<Config> load_config(const ConfigLocation& where) {
  std::optional<fs::path> file;
  std::string found_by;
  std::vector<fs::path> searched;
  if (auto explicit_path = nonempty(where.flashfit_config)) {
    fs::path path(*explicit_path);
    if (path.is_relative()) path = where.working_dir / path;
    if (!path_exists(path)) {
      return util::input_error("config file not found", path.string(),
                               "FLASHFIT_CONFIG names it; unset it or create the file");
    }
    file = path;
    found_by = "$FLASHFIT_CONFIG";
  } else {
    searched.push_back(where.working_dir / "flashfit.toml");
    if (auto dir = user_config_dir(where)) searched.push_back(*dir / "config.toml");
    if (path_exists(searched.front())) {
      file = searched.front();
      found_by = "./flashfit.toml";
    } else if (searched.size() > 1 && path_exists(searched.back())) {
      file = searched.back();
      found_by = "the user config directory";
    }
  }

  Config config;
  if (file) {
    auto text = detail::read_text_file(*file, detail::kMaxTomlBytes);
    if (!text) return tl::unexpected(std::move(text.error()));
    auto parsed = parse_config(*text, file->string(), file->parent_path());
    if (!parsed) return parsed;
    config = std::move(*parsed);
    config.path = file;
  } else {
    config = parse_config("", "", where.working_dir).value();  // defaults only
  }
  // The user config directory's recipes/ comes first, so the file's own
  // recipe_dirs can override what it holds.
  if (auto dir = user_config_dir(where)) {
    config.recipe_dirs.insert(config.recipe_dirs.begin(), *dir / "recipes");
    config.user_recipe_dir = *dir / "recipes";
  }
  config.found_by = found_by;
  config.searched = std::move(searched);
  return config;
}

}  // namespace flashfit::resolve
