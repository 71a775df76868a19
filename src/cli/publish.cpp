// flashfit publish: share fitting wheels as an index plain pip installs from
// (docs/publish.md). Flags in, one workflow call, the report out (text or
// --json, schema in docs/json.md).
#include "workflow/publish.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/publish_built.hpp"
#include "util/paths.hpp"
#include "workflow/publish_fit.hpp"

namespace flashfit::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct PublishCliOptions {
  std::string to;
  std::optional<std::string> list;
  std::optional<std::string> endpoint_url;
  std::vector<std::string> from_cache;  // --from-cache [SPEC]: at most one value
  bool from_cache_given = false;
  std::vector<std::string> inputs;
  std::optional<std::string> for_torch;
  std::optional<int> torch_abi;
  bool replace = false;
  bool dry_run = false;
  bool json = false;
};

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json wheel_json(const workflow::WheelFacts& f) {
  json keys = json::array();
  for (const auto& k : f.for_torch) keys.push_back(k.torch_version);
  return {{"filename", f.filename},
          {"name", f.project},
          {"version", f.version},
          {"sha256", f.sha256},
          {"size", f.size},
          {"torch", f.torch_major
                        ? json(fmt::format("{}.{}", *f.torch_major, f.torch_minor.value_or(0)))
                        : json(nullptr)},
          {"uses_cuda", f.uses_cuda},
          {"cuda_major", opt(f.cuda_major)},
          {"cxx11_abi", opt(f.cxx11_abi)},
          {"sass_archs", f.sass_archs},
          {"ptx_archs", f.ptx_archs},
          {"for_torch", keys}};
}

json env_pages_json(const std::vector<workflow::EnvPage>& pages) {
  json out = json::array();
  for (const auto& p : pages) {
    out.push_back({{"torch", p.key.torch_version},
                   {"cxx11_abi", p.key.cxx11_abi},
                   {"page", p.page},
                   {"wheels", p.wheels},
                   {"left_out", p.left_out}});
  }
  return out;
}

std::string env_pages_text(const std::vector<workflow::EnvPage>& pages) {
  std::string out;
  for (const auto& p : pages) {
    out += fmt::format("  {}  ({} wheel{})\n", p.page, p.wheels.size(),
                       p.wheels.size() == 1 ? "" : "s");
    for (const auto& w : p.wheels) out += fmt::format("    {}\n", w);
    for (const auto& w : p.left_out) out += fmt::format("    left out: {}\n", w);
  }
  return out;
}

util::Result<int> run_list(const std::string& target, const std::optional<std::string>& endpoint,
                           bool as_json) {
  auto tree = workflow::list_published(target, endpoint);
  if (!tree) return tl::unexpected(tree.error());
  if (as_json) {
    json wheels = json::array();
    for (const auto& w : tree->wheels) wheels.push_back(wheel_json(w.facts));
    write_stdout(json{{"target", tree->target},
                      {"wheels", wheels},
                      {"env_pages", env_pages_json(tree->env_pages)},
                      {"problems", tree->problems}}
                     .dump(2) +
                 "\n");
    return 0;
  }
  std::string out = fmt::format("{}: {} wheel{}\n", tree->target, tree->wheels.size(),
                                tree->wheels.size() == 1 ? "" : "s");
  for (const auto& w : tree->wheels)
    out += fmt::format("  {}  sha256 {}\n", w.facts.filename, w.facts.sha256);
  if (!tree->env_pages.empty())
    out += "Environment pages (pip install --find-links <target>/<page>):\n";
  out += env_pages_text(tree->env_pages);
  for (const auto& p : tree->problems) out += fmt::format("problem: {}\n", p);
  write_stdout(out);
  return 0;
}

// The report as text or --json; 1 when some wheel was refused.
int write_report(const workflow::PublishReport& report, bool as_json) {
  const auto& plan = report.plan;
  const int status = plan.refused.empty() ? 0 : 1;
  if (as_json) {
    json uploaded = json::array();
    for (const auto& up : plan.uploads) uploaded.push_back(wheel_json(up.facts));
    json refused = json::array();
    for (const auto& r : plan.refused)
      refused.push_back({{"filename", r.filename}, {"reason", r.reason}});
    json pages = json::array();
    for (const auto& p : plan.pages) pages.push_back(p.path);
    write_stdout(json{{"target", report.target},
                      {"dry_run", report.dry_run},
                      {"published", uploaded},
                      {"unchanged", plan.unchanged},
                      {"refused", refused},
                      {"pages", pages},
                      {"env_pages", env_pages_json(plan.env_pages)},
                      {"problems", plan.problems}}
                     .dump(2) +
                 "\n");
    return status;
  }
  std::string out;
  const char* verb = report.dry_run ? "would publish" : "published";
  for (const auto& up : plan.uploads) out += fmt::format("{}: {}\n", verb, up.facts.filename);
  for (const auto& u : plan.unchanged)
    out += fmt::format("unchanged: {} (already published, same sha256)\n", u);
  for (const auto& r : plan.refused) out += fmt::format("refused: {}: {}\n", r.filename, r.reason);
  if (plan.pages.empty()) {
    out += fmt::format("{}: nothing written\n", report.target);
  } else {
    out +=
        fmt::format("{}: simple index at simple/ ({} pages)\n", report.target, plan.pages.size());
  }
  if (!plan.env_pages.empty())
    out += "Environment pages (pip install --find-links <target>/<page>):\n";
  out += env_pages_text(plan.env_pages);
  for (const auto& p : plan.problems) out += fmt::format("problem: {}\n", p);
  write_stdout(out);
  return status;
}

util::Result<int> run_publish(const PublishCliOptions& options) {
  if (options.list) {
    if (!options.to.empty() || !options.inputs.empty() || options.from_cache_given ||
        options.for_torch || options.replace) {
      return util::fail(util::ErrorKind::usage,
                        "--list only reads a target: it takes no --to, wheels, --from-cache, "
                        "--for-torch or --replace",
                        {}, "run `publish --to ...` and `publish --list ...` separately");
    }
    return run_list(*options.list, options.endpoint_url, options.json);
  }
  // (No "publish" context: the command's name is added to every error.)
  if (options.to.empty()) {
    return util::fail(util::ErrorKind::usage, "no target", {},
                      "give --to DIR|file:///DIR|s3://BUCKET/PREFIX, or --list TARGET");
  }
  if (options.inputs.empty() && !options.from_cache_given) {
    return util::fail(util::ErrorKind::usage, "nothing to publish", {},
                      "name wheels or directories of wheels, or --from-cache [SPEC]");
  }
  workflow::PublishRequest request;
  request.target = options.to;
  request.endpoint_url = options.endpoint_url;
  for (const auto& input : options.inputs) request.inputs.emplace_back(input);
  if (options.from_cache_given) {
    auto root = util::cache_root();
    if (!root)
      return util::fail(util::ErrorKind::usage, "no cache directory", "--from-cache",
                        "set FLASHFIT_CACHE_DIR, XDG_CACHE_HOME or HOME");
    request.from_cache = options.from_cache.empty() ? std::string() : options.from_cache.front();
    request.cache_root = *root;
  }
  request.options.replace = options.replace;
  if (options.torch_abi && !options.for_torch) {
    return util::fail(util::ErrorKind::usage, "--torch-cxx11-abi needs --for-torch");
  }
  if (options.for_torch) {
    std::optional<bool> abi;
    if (options.torch_abi) abi = *options.torch_abi == 1;
    auto key = workflow::parse_env_key(*options.for_torch, abi);
    if (!key) return tl::unexpected(key.error());
    request.options.for_torch = *key;
  }
  request.dry_run = options.dry_run;
  request.temp_dir = wheel_extraction_dir();
  if (!options.json) request.progress = [](std::string_view line) { note(line); };
  auto report = workflow::publish(request);
  if (!report) return tl::unexpected(report.error());
  return write_report(*report, options.json);
}

}  // namespace

util::Result<int> publish_built_wheel(const store::CacheEntry& built, const std::string& target,
                                      bool as_json) {
  std::function<void(std::string_view)> progress;
  if (!as_json) progress = [](std::string_view line) { note(line); };
  auto report = workflow::publish_built(built, target, wheel_extraction_dir(), progress);
  if (!report) return tl::unexpected(report.error());
  // --json: the build's JSON is the one document on stdout; the status says it.
  if (as_json) return report->plan.refused.empty() ? 0 : 1;
  return write_report(*report, false);
}

Runner define_publish(CLI::App& app) {
  auto options = std::make_shared<PublishCliOptions>();
  app.add_option("inputs", options->inputs, "Wheels, or directories of wheels, to publish")
      ->type_name("WHEEL|DIR");
  app.add_option("--to", options->to, "Where: a directory, file:///DIR or s3://BUCKET/PREFIX")
      ->type_name("TARGET");
  CLI::Option* from_cache =
      app.add_option("--from-cache", options->from_cache,
                     "Also publish the wheels in flashfit's cache (SPEC: NAME or NAME==VERSION)")
          ->expected(0, 1)
          ->type_name("[SPEC]");
  app.add_option("--endpoint-url", options->endpoint_url,
                 "s3:// only: the S3 endpoint (else AWS_ENDPOINT_URL, else AWS)")
      ->type_name("URL");
  app.add_option("--list", options->list, "Show what TARGET holds, per environment page")
      ->type_name("TARGET");
  app.add_option(
         "--for-torch", options->for_torch,
         "Place the wheels on the page for this torch build (torch.__version__, e.g. 2.9.1+cu128); "
         "refused when a wheel's own bytes contradict it")
      ->type_name("VERSION");
  app.add_option("--torch-cxx11-abi", options->torch_abi,
                 "The C++11 ABI of the --for-torch build (needed before torch 2.7)")
      ->check(CLI::IsMember({0, 1}))
      ->type_name("0|1");
  app.add_flag("--replace", options->replace,
               "Overwrite a published file of the same name with other bytes");
  app.add_flag("--dry-run", options->dry_run, "Plan and print, write nothing");
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  return [options, from_cache]() {
    options->from_cache_given = from_cache->count() > 0;
    return run_publish(*options);
  };
}

}  // namespace flashfit::cli
