// flashfit resolve SPEC: which prebuilt wheel fits this environment, why
// every other candidate does not, and what change would make one fit.
// Exit 0 when a wheel was selected, 1 when none fits, 2 for bad usage.
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/resolve_report.hpp"
#include "cli/source_flags.hpp"
#include "cli/what_if_flags.hpp"
#include "resolve/suggestions.hpp"
#include "util/interrupt.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

struct ResolveCliOptions {
  std::string spec;
  EnvironmentFlags environment;
  resolve::SourceFlags sources;
  bool all = false;
  bool json = false;
};

util::Result<int> run_resolve(const ResolveCliOptions& options) {
  auto request = parse_request(options.spec);
  if (!request) return tl::unexpected(request.error());
  auto config = load_user_config();
  if (!config) return tl::unexpected(config.error());
  auto book = load_recipes(*config);
  if (!book) return tl::unexpected(book.error());
  const resolve::Recipe* recipe = book->find(request->name);
  // Without a recipe only indexes can know the package; with none of those
  // either, the name is most likely a typo.
  const bool has_indexes = options.sources.index_url || !options.sources.extra_index_urls.empty() ||
                           !options.sources.find_links.empty() || !config->indexes.empty();
  if (!recipe && !has_indexes) {
    auto similar = book->similar(request->name);
    std::vector<std::string> known;
    for (const auto& r : book->recipes()) known.push_back(r.name);
    return util::fail(util::ErrorKind::usage,
                      fmt::format("no recipe and no index knows '{}'{}", request->name,
                                  similar.empty() ? "" : fmt::format(" (did you mean '{}'?)", similar.front())),
                      {},
                      fmt::format("packages with recipes: {}; for another package give an index "
                                  "(--index-url, --find-links) or add a recipe (docs/recipes.md)",
                                  util::join(known, ", ")));
  }
  if (recipe) request->name = recipe->name;

  auto probe = probe_options_from(options.environment);
  if (!probe) return tl::unexpected(probe.error());
  probe->probe_toolkit = false;
  const auto cache_root = util::cache_root();
  auto plan = resolve::plan_sources(recipe, *config, options.sources, cache_root);
  if (!plan) return tl::unexpected(plan.error());

  env::Environment environment = env::probe_environment(*probe);
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  const resolve::ResolveTarget target = resolve::target_from_environment(environment);
  resolve::Gathered gathered = resolve::gather(request->name, recipe, *plan, cache_root);
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");

  resolve::ResolveOptions resolve_options;
  // Text shows a few rejections; JSON and --all every one, with its messages.
  if (!options.json && !options.all) resolve_options.explain_rejected = 8;
  resolve::Resolution resolution =
      resolve::resolve(*request, recipe, target, std::move(gathered.candidates), resolve_options);
  if (!resolution.selected) {
    // Only now is the toolkit worth its `nvcc --version`: the build suggestion needs it.
    environment.toolkit = env::probe_toolkit(probe->toolkit);
    resolution.suggestions = resolve::suggest(resolution, recipe, target, resolve::BuildOutlook{&environment.toolkit});
  }
  resolution.warnings.insert(resolution.warnings.begin(), gathered.warnings.begin(), gathered.warnings.end());

  ResolveReport report{resolution, recipe, environment, gathered.sources, options.all};
  write_stdout(options.json ? resolve_json(report).dump(2) + "\n" : resolve_text(report));
  return resolution.selected ? 0 : 1;
}

}  // namespace

Runner define_resolve(CLI::App& app) {
  auto options = std::make_shared<ResolveCliOptions>();
  app.add_option("spec", options->spec, "A requirement: flash-attn, flash-attn==2.8.3, 'flash-attn>=2.6,<2.8'")
      ->required();
  add_environment_flags(app, options->environment);
  add_source_flags(app, options->sources);
  app.add_flag("--all", options->all, "List every candidate, not only the nearest rejections");
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  return [options]() { return run_resolve(*options); };
}

}  // namespace flashfit::cli
