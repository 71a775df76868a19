#include "workflow/resolve_flow.hpp"

#include <fmt/core.h>

#include "env/pep668.hpp"
#include "pkg/name.hpp"
#include "pkg/wheel_name.hpp"
#include "resolve/url_check.hpp"
#include "store/wheel_cache.hpp"
#include "util/interrupt.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"
#include "util/verbosity.hpp"

namespace flashfit::workflow {

util::Result<resolve::Request> request_for_file(const std::filesystem::path& wheel,
                                                std::optional<resolve::Candidate>& candidate) {
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
  candidate = std::move(c);
  return resolve::Request{name->canonical_name, {}, wheel.filename().string()};
}

resolve::CommandContext command_context(const env::Environment& environment,
                                        const std::optional<std::string>& python_flag) {
  resolve::CommandContext ctx;
  if (environment.python.interpreter.known()) {
    ctx.python = environment.python.interpreter->executable;
    ctx.externally_managed = environment.python.externally_managed;
  }
  if (python_flag) ctx.flags.emplace_back("--python", resolve::shell_quote(*python_flag));
  for (const std::string& given : environment.what_if.describe()) {
    auto space = given.find(' ');
    if (space == std::string::npos) continue;
    ctx.flags.emplace_back(given.substr(0, space), resolve::shell_quote(given.substr(space + 1)));
  }
  return ctx;
}

util::Result<std::unique_ptr<Resolved>> resolve_flow(ResolveFlowInput input) {
  auto out = std::make_unique<Resolved>();
  const ResolveFlowInput& options = input;
  const bool wheel_file = input.wheel_candidate.has_value();
  std::vector<resolve::Candidate> file_candidates;
  if (input.wheel_candidate) file_candidates.push_back(std::move(*input.wheel_candidate));
  resolve::Request* request = &input.request;
  out->config = std::move(input.config);
  out->book = std::move(input.book);
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
  if (!out->recipe && !has_indexes && !wheel_file && !cache_knows()) {
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
  if (out->recipe && !wheel_file) request->name = out->recipe->name;

  auto& probe = input.probe;
  if (!probe) return tl::unexpected(probe.error());
  probe->probe_toolkit = false;
  out->probe = *probe;
  const auto cache_root = util::cache_root();
  std::vector<resolve::Candidate> candidates = std::move(file_candidates);
  std::vector<std::string> warnings;
  std::optional<std::vector<resolve::SourcePlan>> plan;
  if (!wheel_file) {
    auto planned = resolve::plan_sources(out->recipe, out->config, flags, cache_root);
    if (!planned) return tl::unexpected(planned.error());
    plan = std::move(*planned);
  }
  out->environment = options.probed ? *options.probed : env::probe_environment(*probe);
  resolve::fill_derived_torch_abi(out->environment);
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  if (options.require_interpreter) {
    if (auto usable = options.require_interpreter(out->environment); !usable) {
      return tl::unexpected(usable.error());
    }
  }
  if (plan) {
    util::TraceSpan span("gather: the sources' wheels");
    resolve::Gathered gathered = resolve::gather(request->name, out->recipe, *plan, cache_root);
    if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
    candidates = std::move(gathered.candidates);
    out->sources = std::move(gathered.sources);
    warnings = std::move(gathered.warnings);
  }
  const resolve::ResolveTarget target = resolve::target_from_environment(out->environment);

  resolve::ResolveOptions resolve_options;
  resolve_options.explain_rejected = options.explain_rejected;
  resolve_options.rank_rejected = options.rank_rejected;
  resolve_options.suggest = false;  // below, once the toolkit is known
  if (plan) {
    util::TraceSpan span("judge: what each config setting changes");
    out->config_effects = resolve::config_effects(*request, out->recipe, target, out->config, flags,
                                                  cache_root, candidates);
  }
  {
    util::TraceSpan span("judge: every candidate");
    out->resolution =
        resolve::resolve(*request, out->recipe, target, std::move(candidates), resolve_options);
  }
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
        command_context(out->environment, options.python_flag));
  }
  out->resolution.warnings.insert(out->resolution.warnings.begin(), warnings.begin(),
                                  warnings.end());
  return out;
}

}  // namespace flashfit::workflow
