// flashfit config: the settings in effect and where each came from: the
// config file, recipe directories, recipes, sources per package (enabled and
// ranked as resolve and install would use them), indexes and the cache.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/source_flags.hpp"
#include "resolve/gather.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct ConfigCliOptions {
  bool json = false;
};

std::string source_origin(const resolve::SourcePlan& plan, const resolve::Config& config) {
  auto in = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  if (in(config.disable, plan.name)) return "disabled by the config file";
  if (in(config.enable, plan.name)) return "enabled by the config file";
  if (plan.role == resolve::SourceRole::cache) return "built in";
  if (plan.role == resolve::SourceRole::index || plan.role == resolve::SourceRole::find_links) {
    return "the config file's [[index]]";
  }
  return plan.enabled ? "recipe default: on"
                      : "recipe default: off; --source " + plan.name + " turns it on";
}

util::Result<int> run_config(const ConfigCliOptions& options) {
  auto setup = load_user_setup();
  if (!setup) return tl::unexpected(setup.error());
  const auto cache_root = util::cache_root();

  json doc;
  std::string text;
  // The config file.
  if (setup->config.path) {
    doc["config_file"] = {{"path", setup->config.path->string()},
                          {"found_by", setup->config.found_by}};
    text += fmt::format("config file   {}  (found by {})\n", setup->config.path->string(),
                        setup->config.found_by);
  } else {
    std::vector<std::string> searched;
    for (const auto& path : setup->config.searched) searched.push_back(path.string());
    doc["config_file"] = {{"path", nullptr}, {"searched", searched}};
    text += fmt::format(
        "config file   none: the defaults apply (looked for {}; $FLASHFIT_CONFIG unset)\n",
        util::join(searched, ", "));
  }
  // Recipe directories and recipes.
  json dirs = json::array();
  for (const auto& dir : setup->config.recipe_dirs) {
    std::error_code ec;
    const bool exists = fs::is_directory(dir, ec);
    const std::string from = setup->config.user_recipe_dir && dir == *setup->config.user_recipe_dir
                                 ? "the user config directory"
                                 : "the config file";
    dirs.push_back({{"path", dir.string()}, {"from", from}, {"exists", exists}});
    text += fmt::format("recipe dir    {}  (from {}{})\n", dir.string(), from,
                        exists ? "" : "; does not exist");
  }
  doc["recipe_dirs"] = dirs;
  json recipes = json::array();
  json sources = json::object();
  for (const auto& recipe : setup->book.recipes()) {
    recipes.push_back({{"name", recipe.name}, {"origin", recipe.origin}});
    text += fmt::format("recipe        {}  ({})\n", recipe.name, recipe.origin);
    auto plan = resolve::plan_sources(&recipe, setup->config, {}, cache_root);
    if (!plan) {
      // What resolve and install would stop at for this package: show it, go on with the rest.
      sources[recipe.name] = {{"error", plan.error().message}, {"hint", plan.error().hint}};
      text += fmt::format("  sources     error: {}\n              hint: {}\n", plan.error().message,
                          plan.error().hint);
      continue;
    }
    json rows = json::array();
    for (const auto& source : *plan) {
      const std::string origin = source_origin(source, setup->config);
      rows.push_back({{"name", source.name},
                      {"kind", std::string(resolve::to_string(source.role))},
                      {"location", source.location},
                      {"enabled", source.enabled},
                      {"priority", source.priority},
                      {"from", origin}});
      text += fmt::format("  source      {:<12} {:<4} {}  ({})\n", source.name,
                          source.enabled ? "on" : "off", source.location, origin);
    }
    sources[recipe.name] = rows;
  }
  doc["recipes"] = recipes;
  doc["sources"] = sources;
  // The config completes a partial priority list with the default order; the
  // default itself is not the file's doing.
  const std::vector<std::string>& priority = setup->config.priority;
  const auto defaults = resolve::parse_config("", "", ".");
  const bool default_priority = !setup->config.path || (defaults && priority == defaults->priority);
  doc["priority"] = {{"order", priority},
                     {"from", default_priority ? "default" : "the config file"}};
  text += fmt::format(
      "priority      {}\n",
      util::join(priority, ", ") + (default_priority ? "  (default)" : "  (from the config file)"));
  // The cache.
  if (cache_root) {
    doc["cache"] = {{"path", cache_root->string()}, {"from", util::cache_root_origin()}};
    text += fmt::format("cache         {}  (from {})\n", cache_root->string(),
                        util::cache_root_origin());
  } else {
    doc["cache"] = {{"path", nullptr}, {"from", ""}};
    text += "cache         none: set FLASHFIT_CACHE_DIR, XDG_CACHE_HOME or HOME\n";
  }
  write_stdout(options.json ? doc.dump(2) + "\n" : text);
  return 0;
}

}  // namespace

Runner define_config(CLI::App& app) {
  auto options = std::make_shared<ConfigCliOptions>();
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  return [options]() { return run_config(*options); };
}

}  // namespace flashfit::cli
