#pragma once
// The build workflow behind `flashfit build` and install's hand-over when no
// prebuilt wheel works: source -> plan -> preflight -> supervised
// `pip wheel --no-build-isolation` (progress, log, memory governor) -> the
// wheel's tags and bytes checked -> the cache, with the full variant key
// (package version, torch, CUDA, C++11 ABI, Python, platform, archs built),
// so the next install in the same environment takes it instead of building.
// The temp dir is removed at the end (success, failure or Ctrl-C) unless
// kept; the log always stays in the cache dir.

#include <deque>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "build/diagnose.hpp"
#include "build/plan.hpp"
#include "build/preflight.hpp"
#include "build/source.hpp"
#include "build/supervisor.hpp"
#include "env/environment.hpp"
#include "install/cached_verdict.hpp"
#include "resolve/recipe.hpp"
#include "store/wheel_cache.hpp"
#include "util/error.hpp"

namespace flashfit::build {

// When the plan may compile the calibration unit (a few CPU seconds, once
// per nvcc and CPU): only for recipes with measured unit figures.
enum class CalibrationPolicy {
  when_building,  // a real build calibrates; a dry run uses a cached figure only
  always,         // --calibrate: a dry run calibrates too
  never,          // --no-calibrate
};

struct BuildRequest {
  std::string spec;                     // DIR, ARCHIVE, URL or requirement
  std::vector<std::string> index_urls;  // for a requirement's sdist
  std::vector<std::string> find_links;
  std::optional<std::string> package;  // the distribution name, when the caller knows it
  PlanRequest plan;
  bool dry_run = false;  // plan and preflight only
  bool keep_temp = false;
  bool governor = true;
  // How the toolkit was chosen (--toolkit), for the build record; empty: the
  // probed one, described from the environment.
  std::string toolkit_origin;
  CalibrationPolicy calibration = CalibrationPolicy::when_building;
  std::filesystem::path cache_root;
  bool progress_bar = false;                  // a bar on the terminal, else plain lines
  std::function<void(std::string_view)> say;  // step lines (stderr)
  // Called once the plan and preflight are known, before anything compiles.
  std::function<void(const SourceTree&, const BuildPlan&, const PreflightReport&)> on_planned;
};

struct BuiltWheel {
  store::CacheEntry entry;  // in the cache, with the variant key
  install::CachedVerdict verdict;
  std::vector<std::string> archs;  // SASS found in the wheel's modules ("sm_80")
};

// Where a build ended: stopped by preflight, planned only (dry run), in the
// compile, in the check of the wheel, or done.
enum class BuildStage { preflight, planned, build, check, done };
std::string_view to_string(BuildStage stage);  // "preflight", "planned", ...

struct BuildOutcome {
  BuildStage stage = BuildStage::preflight;
  bool ok = false;
  std::string package;                      // the distribution's canonical name, when known
  const resolve::Recipe* recipe = nullptr;  // into the caller's book
  std::optional<SourceTree> source;
  std::optional<BuildPlan> plan;
  std::optional<PreflightReport> preflight;
  std::optional<SupervisedRun> run;
  std::filesystem::path log_path;
  std::optional<Diagnosis> diagnosis;
  std::vector<std::string> failure_lines;  // the log lines worth showing
  std::string failure;                     // one sentence when !ok
  std::optional<BuiltWheel> wheel;
  std::optional<std::filesystem::path> kept_temp;  // --keep-temp
};

// Errors: the source cannot be had (input/failed), Ctrl-C (interrupted, after
// the build's processes are gone), the cache cannot be written. A failed
// preflight, build or check is an outcome with ok = false.
util::Result<BuildOutcome> run_build(const env::Environment& environment,
                                     const resolve::RecipeBook& recipes,
                                     const BuildRequest& request);

// The build command (pip wheel of the source, no isolation, no deps, no index).
std::vector<std::string> build_argv(const std::string& python,
                                    const std::filesystem::path& source_root,
                                    const std::filesystem::path& wheel_dir);

// A wheel of a package with compiled code must carry interpreter-specific
// tags: `py3-none-any` means the extension was never compiled (the
// skip-CUDA-build trap, docs/background.md §15). Failed error when so.
util::Result<void> check_binary_tags(const std::string& wheel_filename);

}  // namespace flashfit::build
