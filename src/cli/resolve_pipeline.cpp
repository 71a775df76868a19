#include "cli/resolve_pipeline.hpp"

#include <fmt/core.h>

#include "env/pep668.hpp"
#include "pkg/name.hpp"
#include "pkg/wheel_name.hpp"
#include "resolve/suggestions.hpp"
#include "resolve/url_check.hpp"
#include "store/wheel_cache.hpp"
#include "util/interrupt.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

// `flashfit install ./x.whl`: the file is the one candidate, judged like any other.
util::Result<resolve::Request> request_for_file(const std::filesystem::path& wheel,
                                                std::vector<resolve::Candidate>& candidates) {
  auto name = pkg::parse_wheel_filename(wheel.filename().string());
  if (!name) {
    return util::fail(util::ErrorKind::usage, "not a wheel file name: " + name.error().message,
                      wheel.string());
  }
  resolve::Candidate c;
  c.filename = wheel.filename().string();
  std::error_code ec;
  c.url = std::filesystem::absolute(wheel, ec).string();
  c.source = "file";
  c.role = resolve::SourceRole::find_links;
  candidates.push_back(std::move(c));
  return resolve::Request{name->canonical_name, {}, wheel.filename().string()};
}

}  // namespace

resolve::CommandContext command_context(const env::Environment& environment,
                                        const EnvironmentFlags& flags) {
  resolve::CommandContext ctx;
  if (environment.python.interpreter.known()) {
    ctx.python = environment.python.interpreter->executable;
    ctx.externally_managed = env::externally_managed(*environment.python.interpreter);
  }
  if (flags.python) ctx.flags.emplace_back("--python", resolve::shell_quote(*flags.python));
  for (const std::string& given : environment.what_if.describe()) {
    auto space = given.find(' ');
    if (space == std::string::npos) continue;
    ctx.flags.emplace_back(given.substr(0, space), resolve::shell_quote(given.substr(space + 1)));
  }
  return ctx;
}

util::Result<std::unique_ptr<Resolved>> run_pipeline(const PipelineOptions& options) {
  auto out = std::make_unique<Resolved>();
  std::vector<resolve::Candidate> file_candidates;
  util::Result<resolve::Request> request =
      options.wheel_file ? request_for_file(*options.wheel_file, file_candidates)
                         : parse_request(options.spec);
  if (!request) return tl::unexpected(request.error());
  auto config = load_user_config();
  if (!config) return tl::unexpected(config.error());
  out->config = std::move(*config);
  auto book = load_recipes(out->config);
  if (!book) return tl::unexpected(book.error());
  out->book = std::move(*book);
  out->recipe = out->book.find(request->name);
  const resolve::SourceFlags& flags = *options.sources;
  const bool has_indexes = flags.index_url || !flags.extra_index_urls.empty() ||
                           !flags.find_links.empty() || !out->config.indexes.empty();
  // A package flashfit built (or the user added) is known to the cache, the one source needing no
  // config.
  auto cache_knows = [&] {
    auto root = util::cache_root();
    auto cache = root ? store::WheelCache::open(*root)
                      : util::Result<store::WheelCache>(tl::unexpect, util::Error{});
    if (!cache) return false;
    for (const store::CacheEntry& e : cache->list()) {
      if (e.package == request->name) return true;
    }
    return false;
  };
  if (!out->recipe && !has_indexes && !options.wheel_file && !cache_knows()) {
    auto similar = out->book.similar(request->name);
    std::vector<std::string> known;
    for (const auto& r : out->book.recipes()) known.push_back(r.name);
    return util::fail(
        util::ErrorKind::usage,
        fmt::format("no recipe and no index knows '{}'{}", request->name,
                    similar.empty() ? "" : fmt::format(" (did you mean '{}'?)", similar.front())),
        {},
        fmt::format("packages with recipes: {}; for another package give an index "
                    "(--index-url, --find-links) or add a recipe (docs/recipes.md)",
                    util::join(known, ", ")));
  }
  if (out->recipe && !options.wheel_file) request->name = out->recipe->name;

  auto probe = probe_options_from(*options.environment);
  if (!probe) return tl::unexpected(probe.error());
  probe->probe_toolkit = false;
  out->probe = *probe;
  const auto cache_root = util::cache_root();
  std::vector<resolve::Candidate> candidates = std::move(file_candidates);
  std::vector<std::string> warnings;
  std::optional<std::vector<resolve::SourcePlan>> plan;
  if (!options.wheel_file) {
    auto planned = resolve::plan_sources(out->recipe, out->config, flags, cache_root);
    if (!planned) return tl::unexpected(planned.error());
    plan = std::move(*planned);
  }
  out->environment = options.probed ? *options.probed : env::probe_environment(*probe);
  resolve::fill_derived_torch_abi(out->environment);
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  if (auto usable = require_interpreter(
          out->environment, *options.environment, options.without_interpreter,
          "nothing installed is known: no torch was looked for (give --torch, --cuda and "
          "--cxx11-abi to judge against one)");
      !usable) {
    return tl::unexpected(usable.error());
  }
  if (plan) {
    resolve::Gathered gathered = resolve::gather(request->name, out->recipe, *plan, cache_root);
    if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
    candidates = std::move(gathered.candidates);
    out->sources = std::move(gathered.sources);
    warnings = std::move(gathered.warnings);
  }
  const resolve::ResolveTarget target = resolve::target_from_environment(out->environment);

  resolve::ResolveOptions resolve_options;
  resolve_options.explain_rejected = options.explain_rejected;
  resolve_options.suggest = false;  // below, once the toolkit is known
  if (plan) {
    out->config_effects = resolve::config_effects(*request, out->recipe, target, out->config, flags,
                                                  cache_root, candidates);
  }
  out->resolution =
      resolve::resolve(*request, out->recipe, target, std::move(candidates), resolve_options);
  // A catalog row may be a prediction: ask for the pick's URL before presenting it.
  resolve::UrlCheckStore url_checks(cache_root);
  resolve::confirm_pick(out->resolution, out->recipe, target, resolve_options, url_checks,
                        resolve::ConfirmOptions{!flags.offline});
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  if (!out->resolution.selected) {
    // Only now is the toolkit worth its `nvcc --version`: the build suggestion needs it.
    // doctor's probe includes the toolkit already.
    if (!options.probed) out->environment.toolkit = env::probe_toolkit(probe->toolkit);
    out->toolkit_probed = true;
    out->resolution.suggestions = resolve::suggest(
        out->resolution, out->recipe, target, resolve::BuildOutlook{&out->environment.toolkit},
        command_context(out->environment, *options.environment));
  }
  out->resolution.warnings.insert(out->resolution.warnings.begin(), warnings.begin(),
                                  warnings.end());
  // Diagnostics to stderr, as every diagnostic (the JSON report keeps them too).
  for (const std::string& w : out->resolution.warnings) {
    if (!options.print_warnings) break;
    std::fprintf(stderr, "flashfit: warning: %s\n", w.c_str());
  }
  return out;
}

}  // namespace flashfit::cli
