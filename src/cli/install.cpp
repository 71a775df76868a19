// flashfit install SPEC|WHEEL: resolve, fetch into the cache, inspect the
// bytes, install with --no-deps (torch is never touched), prove the import,
// and roll back to what was there when nothing works. Exit 0 installed,
// 1 nothing could be installed (the environment is as before), 2 bad usage.
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/resolve_pipeline.hpp"
#include "cli/resolve_report.hpp"
#include "install/install.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct InstallCliOptions {
  std::string spec;
  EnvironmentFlags environment;
  resolve::SourceFlags sources;
  bool dry_run = false;
  bool no_build = false;
  bool json = false;
  std::size_t max_attempts = 5;
};

json attempt_json(const install::Attempt& a) {
  json out{{"filename", a.filename}, {"url", a.url}, {"source", a.source}, {"stage", a.stage},
           {"ok", a.ok}, {"detail", a.detail}, {"sha256", a.sha256 ? json(*a.sha256) : json(nullptr)}};
  if (a.import_check) {
    json modules = json::array();
    for (const auto& m : a.import_check->modules) modules.push_back({{"module", m.module}, {"ok", m.ok}, {"error", m.error}});
    out["import_check"] = {{"torch", a.import_check->torch_ok ? json(a.import_check->torch_version) : json(nullptr)},
                           {"modules", modules},
                           {"gpu_test", a.import_check->gpu_test}};
  }
  return out;
}

std::string outcome_text(const Resolved& r, const install::InstallOutcome& o, bool dry_run) {
  std::string out;
  for (const std::string& w : r.resolution.warnings) out += "warning: " + w + "\n";
  for (const install::Attempt& a : o.attempts) {
    out += fmt::format("{} {}  [{}]\n     {}: {}\n", a.ok ? "ok  " : "FAIL", a.filename, a.source, a.stage, a.detail);
    if (a.import_check && a.ok) out += "     GPU check: " + a.import_check->gpu_test + "\n";
  }
  if (o.installed) {
    const install::Attempt& a = o.attempts[*o.installed];
    out += fmt::format("\ninstalled {}{}\n", a.filename,
                       o.previous ? fmt::format(" (replacing {})", *o.previous) : std::string());
  } else if (dry_run) {
    out += o.attempts.empty() ? "\nnothing would be installed: no wheel fits.\n" : "\n(dry run: nothing was changed)\n";
  } else {
    out += "\nnothing was installed.";
    if (!o.restore.empty()) out += " " + o.restore + ".";
    out += "\n";
  }
  if (!o.torch_note.empty()) out += o.torch_note + ".\n";
  return out;
}

util::Result<int> run_install(const InstallCliOptions& options) {
  PipelineOptions pipeline;
  pipeline.environment = &options.environment;
  pipeline.sources = &options.sources;
  std::error_code ec;
  if (util::ends_with(options.spec, ".whl")) {
    if (!fs::is_regular_file(options.spec, ec)) return util::fail(util::ErrorKind::input, "no such wheel file", options.spec);
    pipeline.wheel_file = fs::path(options.spec);
  } else {
    pipeline.spec = options.spec;
  }
  auto resolved = run_pipeline(pipeline);
  if (!resolved) return tl::unexpected(resolved.error());
  const Resolved& r = **resolved;

  install::InstallOutcome outcome;
  const bool named_file = pipeline.wheel_file.has_value() && !r.resolution.candidates.empty();
  if (named_file && !r.resolution.selected) {
    for (const resolve::Reason& reason : r.resolution.candidates.front().reasons) {
      std::fprintf(stderr, "flashfit: warning: %s: %s (the file's bytes will decide)\n",
                   std::string(to_string(reason.code)).c_str(), reason.message.c_str());
    }
  }
  if (r.resolution.selected || named_file) {
    auto cache_root = util::cache_root();
    if (!cache_root) return util::fail(util::ErrorKind::failed, "no cache directory", {}, "set FLASHFIT_CACHE_DIR or HOME");
    auto cache = store::WheelCache::open(*cache_root);
    if (!cache) return tl::unexpected(cache.error());
    install::InstallOptions install_options;
    install_options.dry_run = options.dry_run;
    install_options.max_attempts = options.max_attempts;
    install_options.try_rejected = named_file;
    install_options.temp_dir = *cache_root / "tmp" / fmt::format("install-{}", ::getpid());
    fs::create_directories(install_options.temp_dir, ec);
    install_options.progress = [](std::string_view line) {
      std::fprintf(stderr, "flashfit: %.*s\n", static_cast<int>(line.size()), line.data());
    };
    auto done = install::install_resolution(r.resolution, r.recipe, r.environment, *cache, install_options);
    fs::remove_all(install_options.temp_dir, ec);
    if (!done) return tl::unexpected(done.error());
    outcome = std::move(*done);
  }

  const bool ok = outcome.installed.has_value() || (options.dry_run && !outcome.attempts.empty());
  std::vector<resolve::Suggestion> next;
  if (!ok) {
    next = r.resolution.suggestions;
    bool has_build = std::any_of(next.begin(), next.end(), [](const auto& s) { return s.kind == "build"; });
    if (has_build && !options.no_build) {
      next.push_back({"build", "`flashfit build` is not available yet: run the build command above yourself", std::nullopt});
    }
  }
  if (options.json) {
    json attempts = json::array();
    for (const auto& a : outcome.attempts) attempts.push_back(attempt_json(a));
    json suggestions = json::array();
    for (const auto& s : next) {
      json item{{"kind", s.kind}, {"message", s.message}};
      if (s.command) item["command"] = *s.command;
      suggestions.push_back(item);
    }
    json installed = nullptr;
    if (outcome.installed) {
      const auto& a = outcome.attempts[*outcome.installed];
      installed = {{"filename", a.filename}, {"source", a.source}, {"url", a.url},
                   {"sha256", a.sha256 ? json(*a.sha256) : json(nullptr)}};
    }
    json out{{"requirement", r.resolution.request.text},
             {"dry_run", options.dry_run},
             {"installer", outcome.installer},
             {"installed", installed},
             {"previous", outcome.previous ? json(*outcome.previous) : json(nullptr)},
             {"restore", outcome.restore},
             {"torch_untouched", outcome.torch_untouched},
             {"attempts", attempts},
             {"suggestions", suggestions},
             {"warnings", r.resolution.warnings}};
    write_stdout(out.dump(2) + "\n");
  } else {
    std::string text;
    if (!r.resolution.selected && !named_file) {
      ResolveReport report{r.resolution, r.recipe, r.environment, r.sources, false};
      text = resolve_text(report);
    } else {
      text = outcome_text(r, outcome, options.dry_run);
      if (!ok && !next.empty()) {
        text += "\nwhat now:\n";
        for (const auto& s : next) text += "  [" + s.kind + "] " + s.message + (s.command ? "\n       $ " + *s.command : "") + "\n";
      }
    }
    write_stdout(text);
  }
  return ok ? 0 : 1;
}

}  // namespace

Runner define_install(CLI::App& app) {
  auto options = std::make_shared<InstallCliOptions>();
  app.add_option("spec", options->spec, "A requirement (flash-attn, 'flash-attn>=2.6,<2.8') or a local .whl file")
      ->required();
  add_environment_flags(app, options->environment);
  add_source_flags(app, options->sources);
  app.add_flag("--dry-run", options->dry_run, "Show what would be installed; change nothing");
  app.add_flag("--no-build", options->no_build, "Never hand over to a source build");
  app.add_option("--max-attempts", options->max_attempts, "Candidates to try before giving up (default 5)");
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  return [options]() { return run_install(*options); };
}

}  // namespace flashfit::cli
