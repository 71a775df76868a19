// install --lock: choose this environment's lock, check every compiled
// file's bytes against it, then pip's lines with their hashes, then each
// compiled package through install's own flow.
#include "workflow/install_lock.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include "net/http.hpp"
#include "pkg/name.hpp"
#include "pkg/wheel_name.hpp"
#include "resolve/resolver.hpp"
#include "resolve/target.hpp"
#include "store/wheel_cache.hpp"
#include "util/atomic_file.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"
#include "workflow/install_flow.hpp"
#include "workflow/installed_state.hpp"
#include "workflow/lock_dir.hpp"
#include "workflow/pylock.hpp"

namespace flashfit::workflow {
namespace {

namespace fs = std::filesystem;
constexpr std::size_t kMaxLockBytes = std::size_t{16} << 20;

util::Result<ParsedLock> read_lock(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return util::input_error("no such lock file", file.string());
  auto text = util::read_small_file(file, kMaxLockBytes);
  if (!text) {
    return util::input_error("cannot read the lock (unreadable or over 16 MiB)", file.string());
  }
  return parse_lock_by_name(*text, file.string());
}

void say(const InstallLockRequest& request, std::string_view line) {
  if (request.progress) request.progress(line);
}

// A temp dir of the cache for the installer's requirements file, removed on every way out.
class TempDir {
 public:
  explicit TempDir(fs::path dir) : dir_(std::move(dir)) {}
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const fs::path& path() const { return dir_; }

 private:
  fs::path dir_;
};

util::Result<void> run_installer_lines(const InstallLockRequest& request,
                                       const install::Installer& installer,
                                       InstallLockOutcome& outcome) {
  TempDir temp(request.cache_root / "tmp" / fmt::format("install-lock-{}", ::getpid()));
  std::error_code ec;
  fs::create_directories(temp.path(), ec);
  if (ec) {
    return util::fail(util::ErrorKind::failed, "cannot create " + temp.path().string(),
                      ec.message());
  }
  const fs::path requirements = temp.path() / "requirements.txt";
  if (auto wrote = util::write_file_atomic(requirements, locked_lines_text(*request.lock)); !wrote)
    return tl::unexpected(wrote.error());
  say(request, fmt::format("installing {} locked line{} with {} (--require-hashes --no-deps)",
                           outcome.installer_lines, outcome.installer_lines == 1 ? "" : "s",
                           to_string(installer.kind)));
  // The user's pip configuration applies (a mirror, a proxy); the hashes decide the bytes.
  auto ran = install::run_installer(locked_lines_argv(installer, requirements.string()),
                                    std::chrono::seconds{1800}, install::InstallerConfig::users);
  if (!ran) return tl::unexpected(ran.error());
  outcome.installer_ok = ran->succeeded();
  if (!ran->succeeded()) {
    // pip's last lines, each made printable, as lines (its hash report is a table).
    const std::string said(util::trim(ran->err.empty() ? ran->out : ran->err));
    std::vector<std::string> lines;
    for (std::string_view line : util::split(said, '\n'))
      lines.push_back(util::printable(line, 300));
    if (lines.size() > 12) lines.erase(lines.begin(), lines.end() - 12);
    outcome.installer_failure = fmt::format("{} {}:\n    {}", to_string(installer.kind),
                                            ran->describe(), util::join(lines, "\n    "));
  }
  return {};
}

// One compiled line: the locked file the only candidate, tried even when its
// label is doubted (the key matched; inspection of its bytes decides).
util::Result<LockedPackageRun> install_compiled(const InstallLockRequest& request,
                                                store::WheelCache& cache, const LockedLine& line) {
  LockedPackageRun run{line, false, {}, std::nullopt};
  const resolve::Recipe* recipe = request.book->find(line.name);
  resolve::Candidate candidate;
  candidate.filename = net::url_file_name(line.url);
  candidate.url = line.url;
  candidate.source = "lock";
  candidate.role = resolve::SourceRole::find_links;
  candidate.sha256 = line.sha256;
  const resolve::Request wanted{
      recipe ? recipe->name : line.name, {}, fmt::format("{} @ {}", line.name, line.url)};
  resolve::ResolveOptions resolve_options;
  resolve_options.suggest = false;
  const resolve::Resolution resolution =
      resolve::resolve(wanted, recipe, resolve::target_from_environment(*request.environment),
                       {std::move(candidate)}, resolve_options);
  install::InstallOptions options;
  options.dry_run = request.dry_run;
  options.max_attempts = 1;
  options.try_rejected = true;
  options.temp_dir = request.cache_root / "tmp" / fmt::format("install-{}", ::getpid());
  options.backup_dir =
      request.cache_root / "backups" / fmt::format("{}-{}", wanted.name, ::getpid());
  options.keep_replaced = !request.dry_run;  // for install --undo
  options.progress = request.progress;
  std::error_code ec;
  fs::create_directories(options.temp_dir, ec);
  auto done = install::install_resolution(resolution, recipe, *request.environment, cache, options);
  fs::remove_all(options.temp_dir, ec);
  if (!done) return tl::unexpected(done.error());
  if (done->attempts.empty()) {
    run.detail = "not tried: " + (resolution.candidates.empty()
                                      ? std::string("its file name is not a wheel's")
                                      : std::string("the install plan held no candidate"));
  } else {
    const install::Attempt& last = done->attempts.back();
    run.ok = done->installed.has_value() || (request.dry_run && last.ok);
    run.detail = run.ok ? (request.dry_run ? last.detail : "installed " + last.filename)
                        : fmt::format("{}: {}", to_string(last.stage), last.detail);
    if (!run.ok && !done->restore.empty()) run.detail += " (" + done->restore + ")";
  }
  run.outcome = std::move(*done);
  return run;
}

// An installer line that installs another torch than the header's: the lock
// was written for one torch and would leave another, so that its compiled
// packages, picked for the header's torch, no longer fit. The version is the
// file name's when the URL names a wheel (what pip installs), else the comment's.
util::Result<void> check_keeps_torch(const ParsedLock& lock, std::size_t i) {
  const LockedLine& line = lock.document.installer[i];
  const auto wheel = pkg::parse_wheel_filename(net::url_file_name(line.url));
  const auto other =
      wheel ? torch_other_than_key(lock.document.key, wheel->canonical_name, wheel->version.str())
            : torch_other_than_key(lock.document.key, line.name, line.version);
  if (!other) return {};
  return util::input_error(
      fmt::format("the lock's installer lines change torch ({} -> {}): its header names the "
                  "torch it was locked for",
                  lock.document.key.torch.value_or("unknown"),
                  other->empty() ? "an unknown version" : *other),
      lock.installer_where[i],
      "install the requirements first (`flashfit install -r FILE`), then lock them again");
}

// A compiled line is installed as its URL's wheel, judged by that file name:
// a name that is no wheel's, or another project's wheel, would only fail after
// the installer's lines were installed, and say little of why.
util::Result<void> check_compiled_file(const ParsedLock& lock, std::size_t i) {
  const LockedLine& line = lock.document.flashfit[i];
  const std::string file = net::url_file_name(line.url);
  const auto wheel = pkg::parse_wheel_filename(file);
  if (!wheel) {
    return util::input_error(fmt::format("{}'s URL does not name a wheel ('{}': {})", line.name,
                                         util::printable(file, 200), wheel.error().message),
                             lock.flashfit_where[i],
                             "a compiled line locks the wheel flashfit picked: lock again");
  }
  if (wheel->canonical_name != pkg::canonicalize_name(line.name)) {
    return util::input_error(
        fmt::format("{}'s URL names a wheel of another project ({}: {})", line.name,
                    wheel->canonical_name, util::printable(file, 200)),
        lock.flashfit_where[i], "a compiled line locks the wheel flashfit picked: lock again");
  }
  return {};
}

}  // namespace

util::Result<LockSelection> select_lock(const fs::path& path, const LockKey& here) {
  std::error_code ec;
  LockSelection selection;
  if (!fs::is_directory(path, ec)) {
    auto lock = read_lock(path);
    if (!lock) return tl::unexpected(lock.error());
    auto differences = compare_keys(lock->document.key, here);
    if (!differences.empty()) {
      selection.mismatches.push_back({path.string(), std::move(differences)});
      return selection;
    }
    selection.file = path;
    selection.lock = std::move(*lock);
    return selection;
  }
  auto entries = read_lock_index(path);
  if (!entries) return tl::unexpected(entries.error());
  const LockChoice choice = choose_lock(*entries, here);
  if (!choice.match) {
    for (std::size_t i = 0; i < entries->size(); ++i) {
      selection.mismatches.push_back({(*entries)[i].file, choice.differences[i]});
    }
    return selection;
  }
  const LockIndexEntry& entry = (*entries)[*choice.match];
  auto lock = read_lock(path / entry.file);
  if (!lock) return tl::unexpected(lock.error());
  // The header is the file's own word: an index that says otherwise was edited by hand.
  if (lock->document.key != entry.key) {
    std::vector<std::string> facts;
    for (const auto& d : compare_keys(entry.key, lock->document.key)) facts.push_back(d.fact);
    return util::input_error(
        fmt::format("{}'s header and {}'s entry for it name other environments ({})", entry.file,
                    kLockIndexName, util::join(facts, ", ")),
        (path / entry.file).string(), "write the lock again with `flashfit lock --dir DIR`");
  }
  selection.file = path / entry.file;
  selection.lock = std::move(*lock);
  return selection;
}

util::Result<std::vector<std::string>> check_installable(const ParsedLock& lock) {
  for (std::size_t i = 0; i < lock.document.installer.size(); ++i) {
    const LockedLine& line = lock.document.installer[i];
    if (!line.sha256) {
      return util::input_error(
          fmt::format("{} has no --hash: install --lock installs the installer's lines with "
                      "--require-hashes, so every one needs its sha256",
                      line.name),
          lock.installer_where[i],
          "lock from an index that gives hashes, or add --hash=sha256:... to the line");
    }
    if (auto kept = check_keeps_torch(lock, i); !kept) return tl::unexpected(kept.error());
  }
  std::vector<std::string> unchecked;
  for (std::size_t i = 0; i < lock.document.flashfit.size(); ++i) {
    if (auto wheel = check_compiled_file(lock, i); !wheel) return tl::unexpected(wheel.error());
    if (!lock.document.flashfit[i].sha256) unchecked.push_back(lock.document.flashfit[i].name);
  }
  return unchecked;
}

std::vector<std::string> locked_lines_argv(const install::Installer& installer,
                                           const std::string& requirements) {
  // The lock holds the whole resolution: no dependency is looked for beyond it.
  return install::requirements_argv(installer, requirements, {"--require-hashes", "--no-deps"});
}

std::string locked_lines_text(const ParsedLock& lock) {
  std::string out;
  for (const LockedLine& line : lock.document.installer) {
    out += fmt::format("{} @ {}", line.name, line.url);
    if (line.sha256) out += " --hash=sha256:" + *line.sha256;
    out += "\n";
  }
  return out;
}

util::Result<InstallLockOutcome> install_lock(const InstallLockRequest& request) {
  InstallLockOutcome outcome;
  const ParsedLock& lock = *request.lock;
  auto installer = install::choose_installer(*request.environment);
  if (!installer) return tl::unexpected(installer.error());
  outcome.installer =
      installer->version.empty() ? std::string(to_string(installer->kind)) : installer->version;
  outcome.installer_lines = lock.document.installer.size();
  if (outcome.installer_lines > 0) {
    outcome.installer_argv = locked_lines_argv(*installer, "<the lock's installer lines>");
  }
  auto cache = store::WheelCache::open(request.cache_root);
  if (!cache) return tl::unexpected(cache.error());

  // Every compiled file's bytes first: a file replaced upstream stops the
  // install before anything has changed.
  if (!request.dry_run) {
    for (const LockedLine& line : lock.document.flashfit) {
      if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
      say(request, fmt::format("fetching {} ({})", net::url_file_name(line.url),
                               line.sha256 ? "checking its sha256 against the lock"
                                           : "no sha256 in the lock: its bytes are not checked"));
      auto fetched = cache->fetch(line.url, line.sha256, store::EntryOrigin::fetched_from("lock"));
      if (!fetched) {
        outcome.verify_failure = fmt::format("{}: {}", line.name, fetched.error().message);
        return outcome;
      }
    }
  }

  const env::Interpreter& interpreter = *request.environment->python.interpreter;
  if (outcome.installer_lines > 0 && !request.dry_run) {
    const InstalledVersions before = installed_versions(interpreter.site_dirs);
    auto ran = run_installer_lines(request, *installer, outcome);
    outcome.installer_changes = diff_installed(before, installed_versions(interpreter.site_dirs));
    if (!ran) return tl::unexpected(ran.error());
    if (!*outcome.installer_ok) return outcome;
  }
  // Each compiled package's install record kept until the end: a later
  // failure, or Ctrl-C, rolls the earlier ones back (as install -r does).
  std::optional<HeldInstalls> held;
  if (!request.dry_run) held.emplace(request.cache_root);
  auto interrupted = [&](util::Error error) -> util::Result<InstallLockOutcome> {
    if (held) {
      error = held->roll_back_interrupted(
          std::move(error), [&] { return *request.environment; }, request.progress);
    }
    return tl::unexpected(std::move(error));
  };
  std::vector<InstalledCompiled> installed;
  for (const LockedLine& line : lock.document.flashfit) {
    if (util::interrupted())
      return interrupted(util::Error{util::ErrorKind::interrupted, "interrupted", {}, {}});
    if (!request.dry_run) {
      say(request, fmt::format("{} {}: installing the locked file", line.name, line.version));
    }
    auto run = install_compiled(request, *cache, line);
    if (!run) {
      if (run.error().kind == util::ErrorKind::interrupted) return interrupted(run.error());
      util::Error error = run.error();
      if (held) {
        const std::string rolled =
            describe_rolled_back(held->roll_back(*request.environment, request.progress));
        if (!rolled.empty()) error.message += "; " + rolled;
      }
      return tl::unexpected(std::move(error));
    }
    const bool ok = run->ok;
    outcome.packages.push_back(std::move(*run));
    if (!ok) {
      // The next ones are not tried (the report says which); those before go back.
      if (held) outcome.rolled_back = held->roll_back(*request.environment, request.progress);
      return outcome;
    }
    if (held) {
      // The record `install --undo` reads, as after `flashfit install`; held
      // by this run until it ends.
      LockedPackageRun& done = outcome.packages.back();
      if (done.outcome) {
        if (auto recorded = remember_install(request.cache_root, *request.environment, line.name,
                                             *done.outcome);
            !recorded) {
          say(request, "warning: install --undo will not know this install: " +
                           util::render(recorded.error()));
        }
      }
      if (auto kept = held->hold(pkg::canonicalize_name(line.name)); !kept) {
        say(request, fmt::format("warning: {} cannot be rolled back if a later package fails: {}",
                                 line.name, util::render(kept.error())));
      }
    }
    installed.push_back({line.name, {}});
  }
  if (held) {
    if (auto released = held->release(); !released) {
      say(request, "warning: install --undo will not know the last install: " +
                       util::render(released.error()));
    }
  }
  if (!request.dry_run) outcome.unmet = unmet_after_install(installed, interpreter);
  outcome.ok = outcome.unmet.empty();
  return outcome;
}

}  // namespace flashfit::workflow
