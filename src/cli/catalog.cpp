// flashfit catalog list|update: the known wheels of each recipe's release
// sources. `update` refreshes them from a GitHub-releases-style API into the
// cache dir; a failed or garbled refresh leaves the previous catalog in place.
#include "resolve/catalog.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/source_flags.hpp"
#include "pkg/wheel_name.hpp"
#include "util/env_vars.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"
#include "util/verbosity.hpp"

namespace flashfit::cli {
namespace {

using nlohmann::json;

struct CatalogCliOptions {
  CLI::App* list = nullptr;
  CLI::App* update = nullptr;
  std::optional<std::string> package;
  std::vector<std::string> sources;
  std::optional<std::string> api_url;
  bool json = false;
};

struct Target {
  const resolve::Recipe* recipe;
  const resolve::RecipeSource* source;
};

// The (recipe, source) pairs the options select; unknown names are usage errors.
util::Result<std::vector<Target>> select(const resolve::RecipeBook& book,
                                         const CatalogCliOptions& options) {
  std::vector<const resolve::Recipe*> recipes;
  if (options.package) {
    const resolve::Recipe* r = book.find(*options.package);
    if (!r) {
      auto similar = book.similar(*options.package);
      return util::fail(
          util::ErrorKind::usage,
          fmt::format(
              "no recipe for '{}'{}", util::printable(*options.package),
              similar.empty() ? "" : fmt::format(" (did you mean '{}'?)", similar.front())));
    }
    recipes.push_back(r);
  } else {
    for (const auto& r : book.recipes()) recipes.push_back(&r);
  }
  std::vector<Target> out;
  std::vector<std::string> matched;
  for (const resolve::Recipe* r : recipes) {
    for (const auto& s : r->sources) {
      bool wanted = options.sources.empty() ||
                    std::find(options.sources.begin(), options.sources.end(), s.name) !=
                        options.sources.end();
      if (wanted) {
        out.push_back({r, &s});
        matched.push_back(s.name);
      }
    }
  }
  for (const std::string& name : options.sources) {
    if (std::find(matched.begin(), matched.end(), name) == matched.end()) {
      return util::fail(util::ErrorKind::usage,
                        fmt::format("no release source named '{}'", util::printable(name)), {},
                        "release sources are named in the recipes, e.g. upstream, community");
    }
  }
  return out;
}

util::Result<int> run_list(const CatalogCliOptions& options, const std::vector<Target>& targets) {
  const auto cache_root = util::cache_root();
  json rows = json::array();
  std::string text;
  for (const Target& t : targets) {
    std::vector<std::string> warnings;
    auto catalog = resolve::load_catalog(*t.recipe, *t.source, cache_root, warnings);
    if (!catalog) return tl::unexpected(catalog.error());
    // Only this recipe's wheels: flash-attn and flash-attn-3 share the community catalog.
    std::size_t wheels = 0;
    for (const auto& e : catalog->entries) {
      auto name = pkg::parse_wheel_filename(e.filename);
      wheels += name && name->canonical_name == t.recipe->name ? 1 : 0;
    }
    rows.push_back(
        {{"package", t.recipe->name},
         {"source", t.source->name},
         {"repository", t.source->repository},
         {"enabled_by_default", t.source->enabled_by_default},
         {"origin", catalog->origin},
         {"updated_at", catalog->updated_at ? json(*catalog->updated_at) : json(nullptr)},
         {"wheels", wheels},
         {"warnings", warnings}});
    text += fmt::format("{:<14} {:<10} {:>5} wheels  {}{}{}\n", t.recipe->name, t.source->name,
                        wheels, catalog->origin,
                        catalog->updated_at ? " (updated " + *catalog->updated_at + ")" : "",
                        t.source->enabled_by_default ? "" : "  [off by default]");
    if (wheels == 0) {
      text += fmt::format(
          "  no wheels known: `flashfit catalog update --package {} --source {}` fetches them\n",
          t.recipe->name, t.source->name);
    }
    for (const auto& w : warnings) text += "  warning: " + w + "\n";
  }
  write_stdout(options.json ? rows.dump(2) + "\n" : text);
  return 0;
}

util::Result<int> run_update(const CatalogCliOptions& options, const std::vector<Target>& targets) {
  const auto cache_root = util::require_cache_root("to write the catalog to");
  if (!cache_root) return tl::unexpected(cache_root.error());
  resolve::CatalogUpdateOptions update;
  if (auto env_api = util::getenv_opt("FLASHFIT_GITHUB_API")) update.api_base = *env_api;
  if (options.api_url) update.api_base = *options.api_url;
  update.token = util::getenv_opt("GITHUB_TOKEN");
  update.progress = [](std::string_view line) {
    if (!util::quiet()) std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
  };
  json rows = json::array();
  std::string text;
  int failures = 0;
  for (const Target& t : targets) {
    if (t.source->api_url.empty()) continue;
    auto result = resolve::update_catalog(*t.recipe, *t.source, *cache_root, update);
    if (!result) {
      if (result.error().kind == util::ErrorKind::interrupted)
        return tl::unexpected(result.error());
      ++failures;
      std::string why = util::render(result.error());
      rows.push_back({{"package", t.recipe->name},
                      {"source", t.source->name},
                      {"ok", false},
                      {"error", result.error().message}});
      text += fmt::format("{} {}: not updated, the previous catalog stays\n{}\n", t.recipe->name,
                          t.source->name, why);
      continue;
    }
    rows.push_back({{"package", t.recipe->name},
                    {"source", t.source->name},
                    {"ok", true},
                    {"releases", result->releases},
                    {"assets", result->assets},
                    {"wheels", result->wheels},
                    {"written", result->written.string()}});
    text += fmt::format("{} {}: {} wheels from {} releases -> {}\n", t.recipe->name, t.source->name,
                        result->wheels, result->releases, result->written.string());
  }
  write_stdout(options.json ? rows.dump(2) + "\n" : text);
  return failures == 0 ? 0 : 1;
}

util::Result<int> run_catalog(const CatalogCliOptions& options) {
  auto setup = load_user_setup();
  if (!setup) return tl::unexpected(setup.error());
  auto targets = select(setup->book, options);
  if (!targets) return tl::unexpected(targets.error());
  if (options.update->parsed()) return run_update(options, *targets);
  return run_list(options, *targets);
}

}  // namespace

Runner define_catalog(CLI::App& app) {
  auto options = std::make_shared<CatalogCliOptions>();
  app.require_subcommand(1);
  options->list = app.add_subcommand(
      "list", "Show each release source's catalog: where it comes from, how many wheels");
  options->update = app.add_subcommand(
      "update", "Refresh catalogs from the releases API (FLASHFIT_GITHUB_API, GITHUB_TOKEN)");
  for (CLI::App* sub : {options->list, options->update}) {
    sub->add_option("--package", options->package, "Only this package's recipe")
        ->type_name("PACKAGE");
    sub->add_option("--source", options->sources,
                    "Only this source (repeatable): upstream, community, ...")
        ->type_name("SOURCE");
    sub->add_flag("--json", options->json, "Print JSON");
  }
  options->update
      ->add_option("--api-url", options->api_url,
                   "API base URL (default https://api.github.com, or $FLASHFIT_GITHUB_API)")
      ->type_name("URL");
  return [options]() { return run_catalog(*options); };
}

}  // namespace flashfit::cli
