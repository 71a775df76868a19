#pragma once
// The user's configuration (docs/config.md): extra recipes, package indexes,
// find-links locations, which sources are enabled and their priority. Found
// at $FLASHFIT_CONFIG, else ./flashfit.toml, else
// $XDG_CONFIG_HOME/flashfit/config.toml (~/.config when unset). Command-line
// flags are applied on top by the CLI.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace flashfit::resolve {

enum class IndexKind {
  simple,      // a PEP 503 / 691 index root: <url>/<name>/
  find_links,  // an HTML page of links, or a local directory of wheels
};

struct IndexConfig {
  std::string name;  // unique; "--source NAME" / "--no-source NAME" refer to it
  IndexKind kind = IndexKind::simple;
  std::string location;  // URL, or a directory for find_links
  bool enabled = true;
};

struct Config {
  std::optional<std::filesystem::path> path;  // the file read; nullopt: none found
  std::string found_by;  // why that file: "$FLASHFIT_CONFIG", "./flashfit.toml", "the user config
                         // directory"
  std::vector<std::filesystem::path>
      searched;  // the files looked for, in order (for `flashfit config`)
  std::optional<std::filesystem::path>
      user_recipe_dir;                             // <user config dir>/recipes, always a recipe dir
  std::vector<std::filesystem::path> recipe_dirs;  // each *.toml adds or replaces a recipe
  std::vector<IndexConfig> indexes;
  std::vector<std::string> enable;   // source names turned on ("community")
  std::vector<std::string> disable;  // source names turned off
  // Source priority, best first, by name or by kind: "cache", "index"
  // (every configured index), "upstream", "community". Default:
  // cache, index, upstream, community.
  std::vector<std::string> priority;
};

// Parses config text; relative paths resolve against `base_dir`.
util::Result<Config> parse_config(std::string_view toml_text, std::string_view origin,
                                  const std::filesystem::path& base_dir);

struct ConfigLocation {
  std::optional<std::string> flashfit_config;  // $FLASHFIT_CONFIG
  std::optional<std::string> xdg_config_home;  // $XDG_CONFIG_HOME
  std::optional<std::string> home;             // $HOME
  std::filesystem::path working_dir;           // for ./flashfit.toml
};

// Finds and reads the config; no file is an empty Config, not an error. An
// explicit $FLASHFIT_CONFIG that does not exist is an error. The config
// directory's recipes/ subdirectory is always a recipe dir.
util::Result<Config> load_config(const ConfigLocation& where);

}  // namespace flashfit::resolve
