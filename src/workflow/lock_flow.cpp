#include "workflow/lock_flow.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include "binary/wheel.hpp"
#include "install/installed.hpp"
#include "net/download.hpp"
#include "net/http.hpp"
#include "pkg/name.hpp"
#include "resolve/suggestions.hpp"
#include "resolve/target.hpp"
#include "store/wheel_cache.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"
#include "workflow/core_metadata.hpp"
#include "workflow/install_requirements_flow.hpp"
#include "workflow/installer_inputs.hpp"
#include "workflow/lock_deps.hpp"
#include "workflow/tail_metadata.hpp"

namespace flashfit::workflow {
namespace {

namespace fs = std::filesystem;

void tell(const std::function<void(std::string_view)>& sink, std::string_view line) {
  if (sink) sink(line);
}

std::string lines_word(std::size_t n) {
  return fmt::format("{} line{}", n, n == 1 ? "" : "s");
}

// A resolver (pip or uv) that failed on the installer's lines: its own words,
// the last 2,000 characters of them.
// `hold`: the torch pin the resolution ran under (torch_hold), said in the hint.
util::Error resolver_failed(std::string_view tool, const util::ProcessResult& ran,
                            const std::string& where, std::string_view hold = {}) {
  std::string err(util::trim(ran.err.empty() ? ran.out : ran.err));
  if (err.size() > 2000) err = "..." + err.substr(err.size() - 2000);
  std::string hint;
  if (!hold.empty()) {
    hint = fmt::format(
        "torch was held at the installed {} (a lock is for the torch installed here): the lines' "
        "sources must offer that torch for lines that need one, or install the torch they want "
        "first (flashfit install -r FILE), then lock",
        util::trim(hold));
  }
  return util::Error{
      util::ErrorKind::failed,
      fmt::format("{} could not resolve the installer's lines ({}): {}", tool, ran.describe(), err),
      where, hint};
}

std::vector<std::string> texts_of(const std::vector<pkg::RequirementLine>& lines) {
  std::vector<std::string> out;
  out.reserve(lines.size());
  for (const auto& line : lines) out.push_back(line.text);
  return out;
}

// pip names the requirement it could not meet, not who asked for it: when
// the picks' dependencies were resolved with the lines, the hint lists them
// with the package each came from.
util::Error with_dependencies_said(util::Error error,
                                   const std::vector<pkg::RequirementLine>& dependencies) {
  if (dependencies.empty()) return error;
  std::vector<std::string> said;
  said.reserve(dependencies.size());
  for (const auto& need : dependencies)
    said.push_back(fmt::format("{} ({})", need.text, need.file));
  const std::string also = fmt::format(
      "the compiled packages' own dependencies were resolved with the lines, and the error may "
      "concern one of them: {}",
      util::join(said, ", "));
  error.hint = error.hint.empty() ? also : error.hint + "; " + also;
  return error;
}

// `flashfit install -r` of the files the installer's lines came from (the
// command line's SPECs as written), for a hint.
std::string install_command(const InstallRequirementsPlan& plan) {
  std::vector<std::string> args;
  for (const pkg::RequirementLine& line : plan.installer) {
    std::string arg = resolve::shell_quote(line.file == "<command line>" ? line.text : line.file);
    if (line.file != "<command line>") arg.insert(0, "-r ");
    if (std::find(args.begin(), args.end(), arg) == args.end()) args.push_back(std::move(arg));
  }
  return "flashfit install " + util::join(args, " ");
}

// A resolution that installs another torch than the environment's: the lock's
// header (this environment's key) would name a torch it does not install, and
// every fit judged for the compiled packages would be for the wrong one.
// `installed`: the torch distribution's version installed here (nullopt: none).
util::Result<void> check_keeps_torch(const InstallRequirementsPlan& plan, const LockKey& key,
                                     const ReportedPackage& reported,
                                     const std::optional<std::string>& installed) {
  const auto other = torch_other_than_key(key, reported.name, reported.version, installed);
  if (!other) return {};
  std::string where;
  for (const pkg::RequirementLine& line : plan.installer) {
    if (names_torch(line)) where = fmt::format("{}:{}", line.file, line.line);
  }
  return util::input_error(
      fmt::format("the installer's lines change torch ({} -> {}): a lock is written for the "
                  "torch installed here",
                  key.torch.value_or("unknown"), *other),
      where, fmt::format("install them first (e.g. `{}`), then lock", install_command(plan)));
}

// A recipe package the installer's resolution brings in as another package's
// dependency: locked, it would be the installer's choice with no fit check,
// where a line of its own gets flashfit's pick. Named with the packages that
// require it (pip's report says; uv's does not) and the line of the first that
// is one of the installer's lines.
util::Error recipe_as_dependency(const InstallRequirementsPlan& plan,
                                 const resolve::RecipeBook& book,
                                 const std::vector<ReportedPackage>& reported,
                                 const ReportedPackage& package, const resolve::Recipe& recipe,
                                 std::string_view by) {
  std::vector<std::string> parents;
  std::string where;
  for (const ReportedPackage& other : reported) {
    const auto& names = other.requires_names;
    if (std::none_of(names.begin(), names.end(),
                     [&](const std::string& n) { return book.find(n) == &recipe; }))
      continue;
    parents.push_back(other.name);
    for (const pkg::RequirementLine& line : plan.installer) {
      if (where.empty() && line.requirement &&
          pkg::canonicalize_name(line.requirement->name) == pkg::canonicalize_name(other.name))
        where = fmt::format("{}:{}", line.file, line.line);
    }
  }
  const std::string parent = parents.empty()
                                 ? fmt::format("another line ({} does not say which)", by)
                                 : util::join(parents, ", ");
  return util::Error{
      util::ErrorKind::input,
      fmt::format("{} {} comes in as a dependency of {}: {}'s choice, with no check that it fits "
                  "this environment",
                  package.name, package.version, parent, by),
      where,
      fmt::format("list {} in the requirements, so that flashfit picks its wheel", recipe.name)};
}

}  // namespace

util::Result<LockOutcome> lock_requirements(LockSteps& steps, const LockInput& input) {
  const env::Environment& environment = *input.environment;
  const env::Interpreter& interpreter = *environment.python.interpreter;
  auto plan = plan_install_requirements(*input.files, *input.book, environment.marker_environment(),
                                        input.sources);
  if (!plan) return tl::unexpected(plan.error());
  if (auto hashed = check_named_hashes(*plan); !hashed) return tl::unexpected(hashed.error());

  LockOutcome out;
  LockDocument& document = out.document;
  const resolve::ResolveTarget target = resolve::target_from_environment(environment);
  document.key = lock_key_from(target);
  const bool described = !input.what_if.empty();
  // What the lock leaves out that `install --lock` then misses: in the
  // document and on stderr.
  const auto not_locked = [&](const std::string& why) {
    document.notes.push_back(why);
    tell(input.warning, why);
  };
  if (described) {
    document.notes.push_back(
        fmt::format("what-if ({}): environment markers are this interpreter's, "
                    "python_version and platform_machine as described",
                    util::join(input.what_if, " ")));
  }

  // Recipe packages: flashfit's pick for this environment.
  std::set<std::string> taken_names;
  for (const TakenPackage& taken : plan->flashfit) taken_names.insert(taken.recipe);
  // What the picks' wheels require, for the installer's resolution; and each
  // pick's whole list, checked against torch and the other picks at the end.
  std::vector<pkg::RequirementLine> dependencies;
  std::vector<PickRequirements> picked;
  // A line naming a local wheel that fits here is locked as named, the file
  // `install -r` installs; any other is the pick for its pin.
  const auto named = judge_named_wheels(*plan, *input.book, target);
  for (std::size_t index = 0; index < plan->flashfit.size(); ++index) {
    const TakenPackage& taken = plan->flashfit[index];
    TakenPackage asked = taken;
    asked.spec = install_spec(taken, named[index]);
    const bool as_named = asked.spec != taken.spec;
    auto resolved = steps.resolve(asked, plan->sources);
    if (!resolved) {
      return tl::unexpected(std::move(resolved.error()).with_context(taken.where));
    }
    const Resolved& r = **resolved;
    if (!r.resolution.selected) {
      out.unfit = LockUnfit{taken, std::move(*resolved)};
      return out;
    }
    const resolve::Judged& pick = r.resolution.candidates[*r.resolution.selected];
    LockedLine line;
    line.name = taken.recipe;
    line.version = pick.wheel ? pick.wheel->version.str() : taken.spec;
    line.url = as_url(pick.candidate->url);
    if (pick.candidate->role == resolve::SourceRole::cache) {
      // The cache's path is this machine's: the URL its bytes came from is the lock's.
      line.url = as_url(
          portable_url(pick.candidate->url, steps.cache_urls(pick.candidate->sha256.value_or(""))));
    }
    line.sha256 = pick.candidate->sha256;
    // Under --offline only a local file is read; a URL would be the network.
    const bool local = !util::starts_with(pick.candidate->url, "http://") &&
                       !util::starts_with(pick.candidate->url, "https://");
    const bool may_fetch = !input.no_download && (local || !input.sources.offline);
    if (!line.sha256 && may_fetch) {
      tell(input.note, "downloading " + pick.candidate->filename +
                           " to learn its sha256 (--no-download: leave it out)");
      auto hashed = steps.hash_by_download(*pick.candidate);
      if (!hashed) return tl::unexpected(std::move(hashed.error()).with_context(taken.where));
      line.sha256 = *hashed;
    }
    line.origin = as_named ? fmt::format("the wheel {} names, which fits here", taken.where)
                           : fmt::format("flashfit's pick from {}, for {}", pick.candidate->source,
                                         taken.where);
    if (!pick.certain()) {
      const std::string why = fmt::format(
          "{}: the pick {} rests on facts not known here (flashfit resolve {} says which)",
          taken.recipe, pick.candidate->filename, taken.spec);
      document.notes.push_back(why);
      tell(input.warning, why);
    }
    if (!line.sha256 && input.warn_unhashed) {
      tell(input.warning, fmt::format("{}: no sha256 is known for {}; its --hash is left out "
                                      "(--no-download, or --offline with a remote file)",
                                      taken.recipe, pick.candidate->filename));
    }
    // Every pick's version is held for the check at the end, whether or not
    // its own dependencies can be read.
    std::optional<std::size_t> mine;
    if (pick.wheel) {
      mine = picked.size();
      picked.push_back({taken, pick.wheel->canonical_name, line.version, std::nullopt});
    }
    document.flashfit.push_back(std::move(line));
    // It is installed --no-deps: what its wheel requires is locked with the
    // installer's lines, or said not to be (under what-if flags pip is not
    // asked at all: the note below says so).
    if (described) continue;
    auto required = steps.requires_dist(
        *pick.candidate, document.flashfit.back().sha256, may_fetch, [&](const std::string& doing) {
          tell(input.note, doing + "; --no-download leaves them out");
        });
    if (!required) return tl::unexpected(std::move(required.error()).with_context(taken.where));
    if (!*required) {
      not_locked(
          fmt::format("{}'s own dependencies are not locked: its wheel is not on this "
                      "machine (--no-download, or --offline with a remote file)",
                      taken.recipe));
    } else {
      auto needs = pick_dependencies(taken, **required, environment.marker_environment(),
                                     *input.book, taken_names);
      for (auto& why : needs.not_locked) not_locked(why);
      for (auto& need : needs.lines) dependencies.push_back(std::move(need));
      if (mine) picked[*mine].requires_dist = std::move(**required);
    }
  }
  // torch as `install --lock`'s check will see it: its distribution's version
  // ("1.13.0a0+gitunknown" where version.py says "1.13.0a0"), else the probe's.
  const auto torch_dist = install::find_installed(interpreter.site_dirs, "torch");
  const std::optional<std::string> installed_torch =
      torch_dist ? std::optional(torch_dist->version) : std::nullopt;
  std::optional<std::string> torch_version = installed_torch;
  if (!torch_version && target.torch) torch_version = target.torch->str();
  auto unchecked = check_picks_agree(picked, torch_version, environment.marker_environment());
  if (!unchecked) return tl::unexpected(unchecked.error());
  for (const std::string& why : *unchecked) not_locked(why);

  // The other lines and the picks' dependencies: the installer's own
  // resolution (none under what-if flags).
  InstallRequirementsPlan resolved_lines = *plan;
  // Held back from the installer: under --offline it would ask an index for
  // them; in hash-checking mode it refuses the whole run (a dependency has no hash).
  const char* held_back =
      dependencies.empty()    ? nullptr
      : input.sources.offline ? "--offline, and the installer would ask an index for them"
      : hash_checking(*plan)  ? "the requirements use pip's hash-checking mode, where each "
                                "needs a line of its own with its --hash"
                              : nullptr;
  if (held_back) {
    not_locked(fmt::format("the compiled packages' own dependencies ({}) are not locked: {}",
                           util::join(texts_of(dependencies), ", "), held_back));
  } else {
    for (auto& need : dependencies) resolved_lines.installer.push_back(std::move(need));
  }
  if (described) {
    const auto unasked = [&](std::string_view what) {
      const std::string why = fmt::format(
          "{} not locked: the what-if flags describe an environment with no interpreter to ask "
          "pip in",
          what);
      document.notes.push_back(why);
      tell(input.remark, why);
    };
    if (installer_runs(*plan)) unasked("the installer's lines are");
    if (!plan->flashfit.empty()) unasked("the compiled packages' own dependencies are");
  } else if (installer_runs(resolved_lines)) {
    const std::string by(to_string(input.resolver));
    const bool uv = input.resolver == LineResolver::uv;
    tell(input.note,
         fmt::format("resolving {} with {}", lines_word(resolved_lines.installer.size()),
                     uv ? "uv (pip compile --format pylock.toml)" : "pip (--dry-run --report)"));
    auto reported = uv ? steps.uv_resolution(resolved_lines, environment)
                       : steps.pip_resolution(resolved_lines, interpreter);
    if (!reported) {
      return tl::unexpected(with_dependencies_said(
          std::move(reported.error()),
          {resolved_lines.installer.begin() + static_cast<std::ptrdiff_t>(plan->installer.size()),
           resolved_lines.installer.end()}));
    }
    for (const auto& p : *reported) {
      if (auto kept = check_keeps_torch(*plan, document.key, p, installed_torch); !kept)
        return tl::unexpected(kept.error());
      const resolve::Recipe* recipe = input.book->find(p.name);
      if (taken_names.count(pkg::canonicalize_name(p.name)) != 0 ||
          (recipe && taken_names.count(recipe->name) != 0)) {
        document.notes.push_back(
            fmt::format("{}'s resolution also named {} {}: flashfit's pick above is the one locked",
                        by, p.name, p.version));
        continue;
      }
      if (recipe) {
        return tl::unexpected(recipe_as_dependency(*plan, *input.book, *reported, p, *recipe, by));
      }
      LockedLine line{p.name, p.version, p.url, std::nullopt, by + "'s resolution"};
      if (!p.sha256.empty()) line.sha256 = p.sha256;
      if (!line.sha256 && input.warn_unhashed) {
        tell(input.warning,
             fmt::format("{}: {} gave no sha256 ({}); its --hash is left out", p.name, by, p.url));
      }
      document.installer.push_back(std::move(line));
    }
  }
  for (const auto& skipped : plan->skipped) {
    document.notes.push_back(
        fmt::format("{}: '{}' is skipped here by its marker", skipped.where, skipped.text));
  }
  return out;
}

namespace {

// The installed torch held in the resolution: pip's --ignore-installed (and
// uv's compile) would otherwise take the index's newest torch for any line
// that needs one, and the lock would be for another torch than its header's.
// Held at the installed distribution's version (its dist-info's, which is
// what the index names: "2.8.0" for PyPI's build whose version.py says
// "2.8.0+cu128"); not when a line or constraint names torch itself.
std::string torch_hold(const InstallRequirementsPlan& plan, const env::Interpreter& interpreter) {
  if (std::any_of(plan.installer.begin(), plan.installer.end(), names_torch) ||
      std::any_of(plan.constraints.begin(), plan.constraints.end(), names_torch))
    return {};
  const auto torch = install::find_installed(interpreter.site_dirs, "torch");
  if (!torch) return {};
  const auto version = pkg::Version::parse(torch->version);
  return version ? "torch==" + version->str() + "\n" : std::string();
}

}  // namespace

util::Result<std::vector<ReportedPackage>> RealLockSteps::pip_resolution(
    const InstallRequirementsPlan& plan, const env::Interpreter& interpreter) {
  const std::string hold = torch_hold(plan, interpreter);
  auto inputs = InstallerInputFiles::write(plan, "lock", hold);
  if (!inputs) return tl::unexpected(inputs.error());
  util::ProcessSpec spec;
  spec.argv = {interpreter.executable,
               "-m",
               "pip",
               "install",
               "--dry-run",
               "--ignore-installed",
               "--report",
               "-",
               "--quiet",
               "--disable-pip-version-check",
               "--no-input",
               "-r",
               inputs->requirements().string()};
  if (!inputs->pins().empty()) spec.argv.insert(spec.argv.end(), {"-c", inputs->pins().string()});
  spec.timeout = std::chrono::minutes{30};
  auto ran = util::run_process(spec);
  if (!ran) return tl::unexpected(ran.error());
  if (!ran->succeeded())
    return tl::unexpected(resolver_failed("pip", *ran, interpreter.executable, hold));
  auto parsed = parse_pip_report(ran->out);
  if (!parsed) {
    return tl::unexpected(std::move(parsed.error()).with_context("pip's --report"));
  }
  return parsed;
}

// The same lines resolved by `uv pip compile` for this interpreter, read back
// from its pylock.toml as the files this interpreter's tags install.
util::Result<std::vector<ReportedPackage>> RealLockSteps::uv_resolution(
    const InstallRequirementsPlan& plan, const env::Environment& environment) {
  const std::string hold = torch_hold(plan, *environment.python.interpreter);
  auto inputs = InstallerInputFiles::write(plan, "lock", hold);
  if (!inputs) return tl::unexpected(inputs.error());
  const fs::path output = inputs->requirements().parent_path() / "pylock.uv.toml";
  util::ProcessSpec spec;
  spec.argv =
      uv_compile_argv(environment.python.uv->string(), environment.python.interpreter->executable,
                      inputs->requirements().string(), output.string(), inputs->pins().string());
  spec.timeout = std::chrono::minutes{30};
  auto ran = util::run_process(spec);
  if (!ran) return tl::unexpected(ran.error());
  if (!ran->succeeded())
    return tl::unexpected(resolver_failed("uv", *ran, environment.python.uv->string(), hold));
  auto text = util::read_small_file(output, std::size_t{16} << 20);
  if (!text) {
    return util::fail(util::ErrorKind::failed, "uv pip compile wrote no readable pylock.toml",
                      output.string());
  }
  const auto tags = resolve::target_from_environment(environment).tags;
  if (!tags) {
    return util::fail(util::ErrorKind::failed,
                      "this interpreter's wheel tags are unknown: uv's files cannot be chosen", {},
                      "lock with --resolver pip");
  }
  auto parsed = parse_uv_resolution(*text, "uv's pylock.toml", *tags);
  if (!parsed) return tl::unexpected(parsed.error());
  return parsed;
}

std::vector<std::string> RealLockSteps::cache_urls(const std::string& sha256) {
  auto root = util::cache_root();
  if (!root || sha256.empty()) return {};
  auto cache = store::WheelCache::open(*root);
  if (!cache) return {};
  auto entry = cache->find_sha256(sha256);
  return entry ? entry->urls : std::vector<std::string>{};
}

// A pick whose source gave no sha256 (a find-links page or a catalog row
// without one) is fetched into the cache as install would fetch it, and
// locked with the sha256 of those bytes: the next install checks them.
util::Result<std::string> RealLockSteps::hash_by_download(const resolve::Candidate& candidate) {
  auto root = util::require_cache_root();
  if (!root) return tl::unexpected(root.error());
  auto cache = store::WheelCache::open(*root);
  if (!cache) return tl::unexpected(cache.error());
  auto entry =
      cache->fetch(candidate.url, std::nullopt, store::EntryOrigin::fetched_from(candidate.source));
  if (!entry) return tl::unexpected(std::move(entry.error()).with_context(candidate.url));
  return entry->sha256;
}

// The pick's bytes are read where they already are (the local file, the
// cache's copy); its METADATA alone where the index serves it (PEP 658);
// otherwise its last bytes (workflow/tail_metadata), else the whole file,
// into the cache's tmp/ for this read and removed: the cache is left as it
// was, since a cached copy would become the next resolve's pick (another
// origin, another URL for a find-links file).
util::Result<std::optional<std::vector<std::string>>> RealLockSteps::requires_dist(
    const resolve::Candidate& pick, const std::optional<std::string>& sha256, bool may_fetch,
    const std::function<void(const std::string&)>& fetching) {
  const auto read =
      [&](const fs::path& wheel_path) -> util::Result<std::optional<std::vector<std::string>>> {
    auto wheel = binary::open_wheel(wheel_path);
    if (!wheel) return tl::unexpected(std::move(wheel.error()).with_context(pick.filename));
    return wheel->metadata().requires_dist;
  };
  if (net::is_local_source(pick.url)) {
    // A local wheel (find-links directory, the cache, a named path, a file:// link).
    auto path = net::local_source_path(pick.url);
    if (!path) return tl::unexpected(std::move(path.error()).with_context(pick.filename));
    return read(*path);
  }
  const std::optional<fs::path> root = util::cache_root();
  if (root && sha256) {
    if (auto cache = store::WheelCache::open(*root)) {
      if (auto entry = cache->find_sha256(*sha256)) return read(entry->path);
    }
  }
  if (!may_fetch) return std::nullopt;
  // A few kilobytes, where the index serves the METADATA beside the wheel.
  auto served = fetch_core_metadata(pick);
  if (!served) return tl::unexpected(std::move(served.error()));
  if (*served) return served;
  if (pick.filename.empty() || pick.filename.find('/') != std::string::npos)
    return util::input_error("not a file name to download to", pick.filename);
  auto cache_root = util::require_cache_root();  // its error says what to set
  if (!cache_root) return tl::unexpected(cache_root.error());
  const fs::path dir = *cache_root / "tmp" / fmt::format("lock-deps-{}", ::getpid());
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return util::fail(util::ErrorKind::failed, "cannot create " + dir.string(), ec.message());
  struct Removed {
    fs::path dir;
    ~Removed() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } removed{dir};
  // Its last bytes first: a wheel ends with its dist-info.
  if (fetching) {
    fetching(fmt::format("reading {}'s dependencies from its last {} KiB (HTTP range requests)",
                         pick.filename, kFirstTailBytes >> 10));
  }
  auto tail = tail_requires_dist(pick, dir);
  if (!tail) return tl::unexpected(std::move(tail.error()).with_context(pick.url));
  if (tail->requires_dist) return std::move(tail->requires_dist);
  fs::remove(dir / pick.filename, ec);
  if (fetching) {
    fetching(fmt::format("downloading {} to read its dependencies, since {}", pick.filename,
                         tail->why_not));
  }
  net::DownloadRequest request;
  request.url = pick.url;
  request.destination = dir / pick.filename;
  request.expected_sha256 = sha256;
  request.label = pick.filename;
  request.durable_name = false;  // read once, then removed
  auto fetched = net::download_file(request);
  if (!fetched) return tl::unexpected(std::move(fetched.error()).with_context(pick.url));
  // The server's file, held to the name and version its tail would be.
  auto wheel = binary::open_wheel(request.destination);
  if (!wheel) return tl::unexpected(std::move(wheel.error()).with_context(pick.filename));
  auto required =
      requires_dist_of_pick(pick, wheel->metadata(), "the METADATA in the wheel", pick.url);
  if (!required) return tl::unexpected(std::move(required.error()));
  return std::optional(std::move(*required));
}

}  // namespace flashfit::workflow
