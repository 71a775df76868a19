#include "build/build.hpp"

#include <fmt/format.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <set>

#include "build/calibration.hpp"
#include "build/compile_units.hpp"
#include "build/process_tree.hpp"
#include "build/progress.hpp"
#include "env/load_host.hpp"
#include "pkg/name.hpp"
#include "pkg/requirement.hpp"
#include "pkg/variant.hpp"
#include "pkg/wheel_name.hpp"
#include "util/env_vars.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"

namespace flashfit::build {
namespace {
namespace fs = std::filesystem;

constexpr std::size_t kTailLines = 400;  // what the diagnosis reads of the log

void say(const BuildRequest& request, const std::string& line) {
  if (request.say) request.say(line);
}

// The build's temp dir: removed on every way out unless kept.
class TempDir {
 public:
  TempDir(fs::path path, bool keep) : path_(std::move(path)), keep_(keep) {}
  ~TempDir() {
    std::error_code ec;
    if (!keep_) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool keep_;
};

std::string timestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

std::optional<std::uint64_t> free_bytes(const fs::path& dir) {
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
}

// The distribution's name: the requirement's, else what the sdist / pyproject says.
std::optional<std::string> package_name(const BuildRequest& request, const SourceTree& source) {
  if (request.package) return pkg::canonicalize_name(*request.package);
  if (source.kind == SourceKind::requirement) {
    if (auto req = pkg::parse_requirement(request.spec)) return pkg::canonicalize_name(req->name);
  }
  if (source.scan.name) return pkg::canonicalize_name(*source.scan.name);
  return std::nullopt;
}

// SASS the wheel's modules really hold: what the build compiled, read from the bytes.
std::vector<std::string> sass_in(const binary::InspectReport& report) {
  std::set<int> archs;
  for (const binary::ModuleReport& m : report.modules) {
    for (const binary::FatbinEntry& e : m.fatbin) {
      if (e.kind == binary::FatbinKind::cubin) archs.insert(e.arch);
    }
  }
  std::vector<std::string> out;
  for (int a : archs) out.push_back(fmt::format("sm_{}", a));
  return out;
}

// Enters the wheel into the cache with the key of the environment it was built in.
// The toolkit of the build record: what --toolkit chose, else the probed nvcc.
std::string toolkit_record(const env::Environment& environment, const std::string& origin) {
  const auto& tk = environment.toolkit;
  if (!tk.nvcc.known()) return origin;
  std::string text = fmt::format(
      "nvcc {} at {}", tk.cuda_version.known() ? tk.cuda_version->text : "(version unknown)",
      tk.nvcc->string());
  if (tk.cuda_home.known()) text += ", CUDA_HOME " + tk.cuda_home->string();
  return text + " (" + (origin.empty() ? "found by " + tk.nvcc.source : origin) + ")";
}

// What the wheel was built for, as the resolver will judge it (store::BuildRecord).
store::BuildRecord build_record(const env::Environment& environment, const std::string& filename,
                                const BuildPlan& plan, const std::string& toolkit_origin) {
  store::BuildRecord record;
  const env::TorchFacts& torch = environment.torch;
  if (torch.version.known()) {
    if (auto version = pkg::Version::parse(torch.version->public_str()))
      record.torch = std::move(*version);
  }
  if (torch.cuda.known() && !torch.cuda->none()) {
    // torch.version.cuda is "12.8"; another form leaves the record's CUDA unknown.
    if (auto cuda = pkg::parse_cuda_version(*torch.cuda->version))
      record.cuda = store::BuiltCuda{*cuda};
  } else if (torch.installed()) {
    record.cuda = store::BuiltCuda{};  // a CPU torch
  }
  if (torch.cxx11_abi.known()) record.cxx11_abi = *torch.cxx11_abi;
  if (auto name = pkg::parse_wheel_filename(filename); name && !name->tags.empty()) {
    record.python = name->tags.front().interpreter;
    record.platform = name->tags.front().platform;
  }
  record.archs = plan.archs ? plan.archs->sass : std::vector<std::string>{};
  if (plan.cuda) record.toolkit = toolkit_record(environment, toolkit_origin);
  return record;
}

util::Result<store::CacheEntry> cache_built_wheel(store::WheelCache& cache, const fs::path& wheel,
                                                  const env::Environment& environment,
                                                  const BuildPlan& plan,
                                                  const std::string& toolkit_origin) {
  auto entry = cache.add(wheel, store::EntryOrigin::built());
  if (!entry) return tl::unexpected(entry.error());
  entry->record = build_record(environment, entry->filename, plan, toolkit_origin);
  if (auto saved = cache.update(*entry); !saved) return tl::unexpected(saved.error());
  return entry;
}

// Fills the plan request's calibration: cached, run now, or why not.
void calibrate_for_plan(const env::Environment& environment, const resolve::Recipe* recipe,
                        const BuildRequest& request, PlanRequest& plan) {
  if (plan.calibration) return;
  const bool measured = recipe && recipe->build.measured &&
                        recipe->build.measured->calibration_seconds > 0 &&
                        !recipe->build.unit_kinds.empty();
  if (!measured) return;
  if (request.calibration == CalibrationPolicy::never) {
    plan.calibration_note = "--no-calibrate";
    return;
  }
  if (!environment.toolkit.nvcc.known() || !environment.toolkit.cuda_version.known()) {
    plan.calibration_note = "no nvcc to calibrate with";
    return;
  }
  const std::string version = environment.toolkit.cuda_version->text;
  if (request.dry_run && request.calibration != CalibrationPolicy::always) {
    plan.calibration = cached_calibration(request.cache_root, version);
    if (!plan.calibration)
      plan.calibration_note = "none cached; a build or --calibrate runs it once";
    return;
  }
  say(request, "calibrating: compiling a small CUDA file once with this nvcc (cached)");
  auto calibration = calibrate(*environment.toolkit.nvcc, version, request.cache_root);
  if (calibration) {
    plan.calibration = *calibration;
  } else {
    plan.calibration_note = "calibration failed: " + calibration.error().message;
  }
}

// The governor's per-kind estimates: each measured unit kind's peak per
// nvcc thread, with the learned margin left to the governor.
std::vector<UnitClass> unit_classes(const BuildPlan& plan) {
  std::vector<UnitClass> classes;
  for (const UnitCost& c : plan.unit_costs) {
    if (c.cuda && c.measured && !c.match.empty())
      classes.push_back({c.kind, c.match, c.peak_bytes});
  }
  return classes;
}

}  // namespace

std::string_view to_string(BuildStage stage) {
  switch (stage) {
    case BuildStage::preflight:
      return "preflight";
    case BuildStage::planned:
      return "planned";
    case BuildStage::build:
      return "build";
    case BuildStage::check:
      return "check";
    case BuildStage::done:
      return "done";
  }
  return "unknown";
}

std::vector<std::string> build_argv(const std::string& python, const fs::path& source_root,
                                    const fs::path& wheel_dir) {
  // -v streams setup.py's output (ninja's [N/M] lines) instead of a spinner.
  return {python,
          "-m",
          "pip",
          "wheel",
          "--no-deps",
          "--no-build-isolation",
          "--no-index",
          "-v",
          "-w",
          wheel_dir.string(),
          source_root.string()};
}

util::Result<void> check_binary_tags(const std::string& wheel_filename) {
  auto name = pkg::parse_wheel_filename(wheel_filename);
  if (!name)
    return util::input_error(
        fmt::format("'{}' is not a wheel file name", util::printable(wheel_filename)));
  for (const pkg::Tag& tag : name->tags) {
    if (tag.platform == "any" || tag.abi == "none") {
      return util::fail(
          util::ErrorKind::failed,
          fmt::format("the build produced {} ({}-{}-{}): it holds no compiled extension",
                      wheel_filename, tag.interpreter, tag.abi, tag.platform),
          {},
          "a py3-none-any wheel of a CUDA extension is the skip-CUDA-build trap: unset "
          "FLASH_ATTENTION_SKIP_CUDA_BUILD (and similar switches) and build again");
    }
  }
  return {};
}

util::Result<BuildOutcome> run_build(const env::Environment& environment,
                                     const resolve::RecipeBook& recipes,
                                     const BuildRequest& request) {
  BuildOutcome out;
  if (!environment.python.interpreter.known()) {
    return util::fail(util::ErrorKind::failed, "no Python interpreter to build with",
                      environment.python.interpreter.unknown_reason,
                      "pass --python PATH or activate a virtualenv");
  }
  const std::string python = environment.python.interpreter->executable;
  auto cache = store::WheelCache::open(request.cache_root);
  if (!cache) return tl::unexpected(cache.error());

  static std::atomic<unsigned> counter{0};
  const fs::path temp_path = request.cache_root / "tmp" /
                             fmt::format("build-{}-{}-{}", ::getpid(), timestamp(), counter++);
  std::error_code ec;
  fs::create_directories(temp_path, ec);
  if (ec) {
    return util::fail(util::ErrorKind::failed,
                      fmt::format("cannot create {}: {}", temp_path.string(), ec.message()), {},
                      "set FLASHFIT_CACHE_DIR to a writable directory");
  }
  TempDir temp(temp_path, request.keep_temp);
  if (request.keep_temp) out.kept_temp = temp_path;

  say(request, fmt::format("getting the source: {}", util::printable(request.spec, 300)));
  SourceRequest source_request{request.spec, temp_path, request.index_urls, request.find_links,
                               !request.progress_bar};
  auto source = prepare_source(source_request);
  if (!source) return tl::unexpected(source.error());
  out.source = *source;
  auto name = package_name(request, *source);
  out.package = name.value_or(source->root.filename().string());
  out.recipe = name ? recipes.find(*name) : nullptr;

  const CompileUnits units = find_compile_units(source->root, out.recipe, source->scan);
  PlanRequest plan_request = request.plan;
  if (plan_request.flashfit_exe.empty()) {
    // The nvcc wrapper's command names this very binary (PYTORCH_NVCC).
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) plan_request.flashfit_exe = self.string();
  }
  calibrate_for_plan(environment, out.recipe, request, plan_request);
  auto plan = plan_build(environment, out.recipe, source->scan, units, plan_request);
  if (!plan) return tl::unexpected(plan.error());
  out.plan = *plan;

  PreflightFacts facts;
  auto importable =
      probe_importable(python, required_build_modules(out.recipe, plan->setup_requires));
  if (!importable) return tl::unexpected(importable.error());
  facts.importable = std::move(*importable);
  facts.compilers = find_host_compilers(util::getenv_opt("PATH").value_or(""));
  facts.free_disk_bytes = free_bytes(temp_path);
  facts.build_dir = temp_path;
  out.preflight = preflight(environment, out.recipe, *plan, facts);
  if (request.on_planned) request.on_planned(*source, *plan, *out.preflight);
  if (!out.preflight->passed()) {
    out.stage = BuildStage::preflight;
    const PreflightCheck* first = out.preflight->first_failure();
    out.failure = first ? first->message : "preflight failed";
    return out;
  }
  if (request.dry_run) {
    out.stage = BuildStage::planned;
    out.ok = true;
    return out;
  }

  // The build itself.
  out.stage = BuildStage::build;
  const fs::path wheel_dir = temp_path / "dist";
  fs::create_directories(wheel_dir, ec);
  out.log_path = request.cache_root / "logs" /
                 fmt::format("build-{}-{}-{}.log", out.package, timestamp(), ::getpid());
  SupervisorOptions run;
  run.argv = build_argv(python, source->root, wheel_dir);
  run.cwd = source->root;
  run.set_env = plan->env;
  // Plain status lines to parse, output as it happens, the user's pip config out of the way.
  run.set_env.emplace_back("NINJA_STATUS", "[%f/%t] ");
  run.set_env.emplace_back("PYTHONUNBUFFERED", "1");
  // ASCII quotes in compiler messages: the log and the diagnosis stay plain text.
  run.set_env.emplace_back("LC_ALL", "C");
  run.set_env.emplace_back("PIP_CONFIG_FILE", "/dev/null");
  run.set_env.emplace_back("PIP_DISABLE_PIP_VERSION_CHECK", "1");
  run.set_env.emplace_back("PIP_NO_INPUT", "1");
  run.set_env.emplace_back("TMPDIR", (temp_path / "tmp").string());
  fs::create_directories(temp_path / "tmp", ec);
  run.log_path = out.log_path;
  std::deque<std::string> tail;
  BuildProgress progress(out.package, request.progress_bar);
  run.on_line = [&](std::string_view line) {
    tail.emplace_back(line);
    if (tail.size() > kTailLines) tail.pop_front();
    progress.on_line(line);
  };
  if (request.governor) {
    GovernorConfig governor;
    governor.budget_bytes = plan->budget_bytes;
    governor.reserve_bytes = plan->reserve_bytes;
    if (plan->per_worker_bytes) governor.worker_estimate_bytes = plan->per_worker_bytes;
    governor.unit_classes = unit_classes(*plan);
    if (!governor.unit_classes.empty())
      governor.worker_args = [](int pid) { return read_process_args(pid); };
    run.governor = governor;
    std::size_t paused = 0;
    run.on_governor_action = [&progress, paused](const GovernorAction& action) mutable {
      if (action.kind == GovernorAction::Kind::pause) {
        ++paused;
      } else if (paused) {
        --paused;
      }
      progress.set_paused(paused);
    };
  }
  say(request, fmt::format("building (log: {})", out.log_path.string()));
  auto ran = supervise(run);
  if (!ran) {
    progress.finish(false);
    return tl::unexpected(ran.error());
  }
  out.run = *ran;
  progress.finish(ran->succeeded());
  if (!ran->succeeded()) {
    out.failure = fmt::format("the build {}", ran->describe());
    out.diagnosis = diagnose_build_failure(tail, ran->term_signal);
    out.failure_lines = relevant_lines(tail);
    return out;
  }

  // The wheel: one file, binary tags, bytes that fit this environment.
  out.stage = BuildStage::check;
  std::vector<fs::path> wheels;
  for (fs::directory_iterator it(wheel_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (util::ends_with(it->path().filename().string(), ".whl")) wheels.push_back(it->path());
  }
  if (wheels.size() != 1) {
    out.failure = fmt::format("pip reported success but wrote {} wheels to {}", wheels.size(),
                              wheel_dir.string());
    return out;
  }
  if (auto tags = check_binary_tags(wheels.front().filename().string()); !tags) {
    out.failure = tags.error().message;
    out.failure_lines = {tags.error().hint};
    return out;
  }
  auto entry =
      cache_built_wheel(*cache, wheels.front(), environment, *plan, request.toolkit_origin);
  if (!entry) return tl::unexpected(entry.error());
  out.package = entry->package;  // a source tree may not say its name; the wheel does
  say(request, fmt::format("checking {} against this environment", entry->filename));
  const binary::LoadHost host = env::load_host_for(environment);
  fs::create_directories(temp_path / "inspect", ec);
  auto verdict = install::inspect_cached(*cache, *entry, environment, host, temp_path / "inspect");
  if (!verdict) return tl::unexpected(verdict.error());
  BuiltWheel built{*entry, *verdict, {}};
  if (verdict->report) {
    built.archs = sass_in(*verdict->report);
    if (!built.archs.empty() && built.archs != entry->record.archs) {
      // The bytes, not the plan, say what was compiled.
      built.entry.record.archs = built.archs;
      (void)cache->update(built.entry);
    }
  }
  if (!verdict->record.compatible) {
    out.failure = "the built wheel does not fit this environment: " + verdict->record.summary;
    // Kept out of the cache so no install ever picks it; the file stays for a look with
    // --keep-temp.
    (void)cache->remove(entry->sha256);
    out.wheel = std::move(built);
    return out;
  }
  out.wheel = std::move(built);
  out.stage = BuildStage::done;
  out.ok = true;
  return out;
}

}  // namespace flashfit::build
