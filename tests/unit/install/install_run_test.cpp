// The install run over a plan (issue 14 "seams for fast tests"), with fake
// steps behind InstallSteps and a real RestoreGuard on a real temp
// site-packages: at every failure point (fetch, inspect, backup, installer
// spawn, installer failure, import failure) and at Ctrl-C during each, either
// the next candidate is tried or the previous version is back on disk. No
// child process, no network: the whole file runs in milliseconds.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>

#include "../temp_dir.hpp"
#include "install/install.hpp"
#include "install/install_plan.hpp"
#include "install/install_steps.hpp"
#include "install/lines_run.hpp"
#include "util/interrupt.hpp"

namespace flashfit::install {
namespace {
namespace fs = std::filesystem;

using test::read;
using test::write;

enum class Step { fetch, inspect, backup, installer, import_check, uninstall };

// What a step does when it is made to fail.
enum class Failure {
  none,
  error,        // a failure of this candidate (download error, bad bytes, pip exits 1, ImportError)
  spawn,        // the step could not run at all (an error value, not Ctrl-C)
  interrupted,  // Ctrl-C arrived during the step
};

std::string name_of(Step step, Failure failure) {
  static const char* steps[] = {"fetch", "inspect", "backup", "installer", "import", "uninstall"};
  static const char* failures[] = {"none", "error", "spawn", "interrupted"};
  return std::string(steps[static_cast<int>(step)]) + "_" + failures[static_cast<int>(failure)];
}

// The world: a venv whose site-packages holds ff 0.9 (or nothing), and an
// installer that really replaces its files, so the guard has real work to undo.
struct World : InstallSteps {
  test::TempDir dir{"install-run"};
  fs::path prefix = dir.path() / "venv";
  fs::path site = prefix / "lib/site-packages";
  Step failing_step = Step::fetch;
  Failure failure = Failure::none;
  std::size_t failing_candidate = 0;  // which candidate's step fails (SIZE_MAX: every one)
  std::size_t current = 0;            // the candidate being tried
  Failure uninstall = Failure::none;  // how the uninstall after a failed import goes
  bool ctrl_c_on_failure = false;     // the user presses Ctrl-C when a step fails
  bool calls_torch = false;           // inspection finds modules that call into torch
  std::vector<std::string> calls;

  void install_09() {
    write(site / "ff/__init__.py", "0.9\n");
    write(site / "ff-0.9.dist-info/METADATA", "Name: ff\nVersion: 0.9\n");
    write(site / "ff-0.9.dist-info/RECORD",
          "ff/__init__.py,,\nff-0.9.dist-info/METADATA,,\nff-0.9.dist-info/RECORD,,\n");
  }
  std::string installed() const {
    auto now = find_installed({site.string()}, "ff");
    return now ? now->version : "none";
  }
  // Whatever version of ff is installed, as pip removes it before writing another.
  void remove_ff() {
    fs::remove_all(site / "ff");
    std::vector<fs::path> dist_infos;
    for (const auto& e : fs::directory_iterator(site))
      if (e.path().filename().string().starts_with("ff-")) dist_infos.push_back(e.path());
    for (const fs::path& d : dist_infos) fs::remove_all(d);
  }
  bool fails(Step step) const {
    if (step == Step::uninstall) return uninstall != Failure::none;
    return failure != Failure::none && failing_step == step &&
           (failing_candidate == SIZE_MAX || failing_candidate == current);
  }
  util::Error error_for(Step step) const {
    const Failure how = step == Step::uninstall ? uninstall : failure;
    return how == Failure::interrupted
               ? util::Error{util::ErrorKind::interrupted, "interrupted", {}, {}}
               : util::Error{util::ErrorKind::failed, "it broke", {}, {}};
  }
  std::string version_of(const fs::path& wheel) const {
    return wheel.filename().string().substr(3, 3);  // ff-1.2-py3-none-any.whl
  }

  util::Result<store::CacheEntry> fetch(const resolve::Candidate& c) override {
    current = static_cast<std::size_t>(c.priority);
    calls.push_back("fetch " + c.filename);
    if (fails(Step::fetch)) return tl::unexpected(error_for(Step::fetch));
    store::CacheEntry e;
    e.filename = c.filename;
    e.sha256 = std::string(64, 'f');
    e.version = c.filename.substr(3, 3);
    e.path = dir.path() / "cache" / c.filename;
    return e;
  }
  util::Result<CachedVerdict> inspect(store::CacheEntry& entry) override {
    calls.push_back("inspect");
    if (fails(Step::inspect) && failure != Failure::error)
      return tl::unexpected(error_for(Step::inspect));
    CachedVerdict v;
    v.record.compatible = !fails(Step::inspect);
    v.record.summary = v.record.compatible ? "compatible" : "needs GLIBC_2.99";
    v.record.torch_extension = calls_torch;
    (void)entry;
    return v;
  }
  util::Result<Backup> backup(const InstalledDist& dist, const fs::path& backup_dir) override {
    calls.push_back("backup");
    if (fails(Step::backup)) return tl::unexpected(error_for(Step::backup));
    return backup_installed(dist, backup_dir);
  }
  std::vector<std::string> members(const fs::path& wheel) override {
    const std::string v = version_of(wheel);
    return {"ff/__init__.py", "ff/new.py", "ff-" + v + ".dist-info/METADATA",
            "ff-" + v + ".dist-info/RECORD"};
  }
  std::vector<std::string> modules(const fs::path&) override { return {"ff"}; }
  util::Result<util::ProcessResult> run_installer(const std::vector<std::string>& argv) override {
    const bool removing = std::find(argv.begin(), argv.end(), "uninstall") != argv.end();
    calls.push_back(removing ? "uninstall" : "installer");
    const Step step = removing ? Step::uninstall : Step::installer;
    const Failure how = removing ? uninstall : failure;
    if (fails(step) && how == Failure::spawn) return tl::unexpected(error_for(step));
    util::ProcessResult result;
    result.exit_code = 0;
    if (removing) {
      if (!fails(step)) remove_ff();
    } else {
      // pip replaces the old version's files, even when it then fails or is stopped.
      const std::string v = version_of(argv.back());
      remove_ff();
      write(site / "ff/__init__.py", v + "\n");
      write(site / "ff/new.py", v + "\n");
      write(site / ("ff-" + v + ".dist-info/METADATA"), "Name: ff\nVersion: " + v + "\n");
      write(site / ("ff-" + v + ".dist-info/RECORD"), "ff/__init__.py,,\nff/new.py,,\nff-" + v +
                                                          ".dist-info/METADATA,,\nff-" + v +
                                                          ".dist-info/RECORD,,\n");
    }
    if (fails(step) && how == Failure::interrupted) return tl::unexpected(error_for(step));
    if (fails(step)) {
      result.exit_code = 1;
      result.err = "ERROR: it broke";
      if (ctrl_c_on_failure) util::set_interrupted(true);
    }
    return result;
  }
  void start_import_check(bool import_torch) override {
    calls.push_back(import_torch ? "preload with torch" : "preload");
  }
  util::Result<ImportCheck> check_imports(const ImportCheckOptions& options) override {
    calls.push_back(options.import_torch ? "import after torch" : "import");
    if (fails(Step::import_check) && failure != Failure::error)
      return tl::unexpected(error_for(Step::import_check));
    ImportCheck check;
    check.torch_ok = true;
    for (const std::string& m : options.modules)
      check.modules.push_back({m, !fails(Step::import_check),
                               fails(Step::import_check) ? "ImportError: undefined symbol" : ""});
    return check;
  }
  void record_installed(store::CacheEntry&) override { calls.push_back("record"); }
};

// Two fitting candidates, ff 1.2 then ff 1.1, planned for World's venv.
struct PlanRunner {
  World world;
  std::shared_ptr<std::vector<resolve::Candidate>> inputs =
      std::make_shared<std::vector<resolve::Candidate>>();
  resolve::Resolution resolution;
  env::Environment environment;
  Installer pip{
      InstallerKind::pip, "/venv/bin/python", {"/venv/bin/python", "-m", "pip"}, "pip 26.2.1"};
  std::optional<InstalledDist> before;
  InstallOptions options;
  std::optional<InstallPlan> plan;
  InstallOutcome outcome;

  explicit PlanRunner(bool with_09 = true) {
    fs::create_directories(world.site);
    if (with_09) world.install_09();
    for (int i = 0; i < 2; ++i) {
      resolve::Candidate c;
      c.filename = i == 0 ? "ff-1.2-py3-none-any.whl" : "ff-1.1-py3-none-any.whl";
      c.url = "http://127.0.0.1:1/" + c.filename;
      c.source = "team";
      c.priority = i;  // World reads it as the candidate's index
      inputs->push_back(c);
    }
    resolution.request = {"ff", {}, "ff"};
    resolution.inputs = inputs;
    for (const resolve::Candidate& c : *inputs) {
      resolve::Judged j;
      j.candidate = &c;
      resolution.candidates.push_back(std::move(j));
    }
    resolution.selected = 0;
    env::Interpreter interpreter;
    interpreter.executable = "/venv/bin/python";
    interpreter.prefix = world.prefix.string();
    interpreter.purelib = interpreter.platlib = world.site.string();
    interpreter.site_dirs = {world.site.string()};
    environment.python.interpreter = env::Fact<env::Interpreter>::of(interpreter, "test");
    before = find_installed(interpreter.site_dirs, "ff");
    options.backup_dir = world.dir.path() / "backup";
  }
  util::Result<void> go() {
    plan = plan_install({&resolution,
                         nullptr,
                         &*environment.python.interpreter,
                         &pip,
                         &before,
                         options.max_attempts,
                         false,
                         {}});
    return run_plan({*plan, nullptr, environment, pip, before, options}, world, outcome);
  }
  std::vector<std::string> stages() const {
    std::vector<std::string> out;
    for (const Attempt& a : outcome.attempts) out.emplace_back(to_string(a.stage));
    return out;
  }
};

TEST(InstallRun, TheFirstGoodCandidateIsInstalledAndNothingIsRestored) {
  PlanRunner r;
  ASSERT_TRUE(r.go());
  EXPECT_EQ(r.world.calls,
            (std::vector<std::string>{"fetch ff-1.2-py3-none-any.whl", "inspect", "preload",
                                      "backup", "installer", "import", "record"}));
  ASSERT_EQ(r.outcome.installed, 0u);
  EXPECT_EQ(r.stages(), (std::vector<std::string>{"installed"}));
  EXPECT_EQ(r.outcome.restore, "");
  EXPECT_EQ(r.world.installed(), "1.2");
  EXPECT_FALSE(fs::exists(r.options.backup_dir));  // the backup goes once the new one is proven
}

// The check's interpreter starts before the installer runs (it imports torch
// meanwhile), with torch exactly when the check will want it.
TEST(InstallRun, TheCheckInterpreterStartsBeforeTheInstaller) {
  PlanRunner r;
  r.world.calls_torch = true;
  ASSERT_TRUE(r.go());
  EXPECT_EQ(r.world.calls, (std::vector<std::string>{"fetch ff-1.2-py3-none-any.whl", "inspect",
                                                     "preload with torch", "backup", "installer",
                                                     "import after torch", "record"}));
  ASSERT_EQ(r.outcome.installed, 0u);
}

// A candidate refused by inspection starts nothing; the next one does.
TEST(InstallRun, NoCheckInterpreterForARefusedCandidate) {
  PlanRunner r;
  r.world.failing_step = Step::inspect;
  r.world.failure = Failure::error;
  r.world.failing_candidate = 0;
  ASSERT_TRUE(r.go());
  EXPECT_EQ(r.world.calls,
            (std::vector<std::string>{"fetch ff-1.2-py3-none-any.whl", "inspect",
                                      "fetch ff-1.1-py3-none-any.whl", "inspect", "preload",
                                      "backup", "installer", "import", "record"}));
}

TEST(InstallRun, DryRunActsOnNothing) {
  PlanRunner r;
  r.options.dry_run = true;
  ASSERT_TRUE(r.go());
  EXPECT_TRUE(r.world.calls.empty());
  EXPECT_EQ(r.stages(), (std::vector<std::string>{"would install"}));
  EXPECT_EQ(r.world.installed(), "0.9");
}

// A failure of one candidate: it is reported at its stage and the next one is
// tried; the environment ends up with 1.1, or with 0.9 when every one fails.
struct CandidateFailure {
  Step step;
  Failure failure;
  std::string stage;
};

class EachCandidateFailure : public testing::TestWithParam<CandidateFailure> {};

TEST_P(EachCandidateFailure, TheNextCandidateIsTried) {
  PlanRunner r;
  r.world.failing_step = GetParam().step;
  r.world.failure = GetParam().failure;
  r.world.failing_candidate = 0;
  ASSERT_TRUE(r.go());
  EXPECT_EQ(r.stages(), (std::vector<std::string>{GetParam().stage, "installed"}));
  EXPECT_EQ(r.outcome.installed, 1u);
  EXPECT_EQ(r.world.installed(), "1.1");
  EXPECT_FALSE(fs::exists(r.world.site / "ff-1.2.dist-info"));
}

TEST_P(EachCandidateFailure, WhenEveryOneFailsThePreviousVersionIsBack) {
  PlanRunner r;
  r.world.failing_step = GetParam().step;
  r.world.failure = GetParam().failure;
  r.world.failing_candidate = SIZE_MAX;
  ASSERT_TRUE(r.go());
  EXPECT_EQ(r.stages(), (std::vector<std::string>{GetParam().stage, GetParam().stage}));
  EXPECT_FALSE(r.outcome.installed);
  EXPECT_EQ(r.world.installed(), "0.9");
  EXPECT_EQ(read(r.world.site / "ff/__init__.py"), "0.9\n");
  EXPECT_FALSE(fs::exists(r.world.site / "ff/new.py"));
  // The installer ran (and was undone) only where the failure came after it.
  const bool changed = GetParam().step == Step::installer || GetParam().step == Step::import_check;
  EXPECT_EQ(r.outcome.restore, changed ? "restored 0.9" : "");
}

INSTANTIATE_TEST_SUITE_P(
    Steps, EachCandidateFailure,
    testing::Values(CandidateFailure{Step::fetch, Failure::error, "download"},
                    CandidateFailure{Step::inspect, Failure::error, "inspect"},
                    CandidateFailure{Step::inspect, Failure::spawn, "inspect"},
                    CandidateFailure{Step::installer, Failure::error, "install"},
                    CandidateFailure{Step::import_check, Failure::error, "import"}),
    [](const auto& p) { return name_of(p.param.step, p.param.failure); });

// A failure that ends the run (Ctrl-C during a step, the installer or the
// import check that cannot be started, a backup that cannot be made): an
// error, and 0.9 is back on disk whatever had changed.
struct RunFailure {
  Step step;
  Failure failure;
  util::ErrorKind kind;
};

class EachRunFailure : public testing::TestWithParam<RunFailure> {};

TEST_P(EachRunFailure, ThePreviousVersionIsBackAndTheErrorSaysSo) {
  for (bool with_09 : {true, false}) {
    SCOPED_TRACE(with_09 ? "0.9 installed before" : "nothing installed before");
    if (!with_09 && GetParam().step == Step::backup) continue;  // nothing to back up
    PlanRunner r(with_09);
    r.world.failing_step = GetParam().step;
    r.world.failure = GetParam().failure;
    r.world.failing_candidate = 0;
    auto ran = r.go();
    ASSERT_FALSE(ran);
    EXPECT_EQ(ran.error().kind, GetParam().kind);
    EXPECT_FALSE(r.outcome.installed);
    EXPECT_EQ(r.world.installed(), with_09 ? "0.9" : "none");
    EXPECT_FALSE(fs::exists(r.world.site / "ff/new.py"));
    // The second candidate is never tried after a run-ending failure.
    EXPECT_EQ(
        std::count(r.world.calls.begin(), r.world.calls.end(), "fetch ff-1.1-py3-none-any.whl"), 0);
    const bool changed = GetParam().step == Step::installer ||
                         GetParam().step == Step::import_check ||
                         GetParam().step == Step::uninstall;
    if (!changed) {
      EXPECT_EQ(r.outcome.restore, "");
      EXPECT_EQ(std::count(r.world.calls.begin(), r.world.calls.end(), "installer"), 0);
    } else {
      EXPECT_NE(r.outcome.restore, "");
      EXPECT_NE(ran.error().message.find("; " + r.outcome.restore), std::string::npos)
          << ran.error().message;
      if (with_09) {
        EXPECT_EQ(read(r.world.site / "ff/__init__.py"), "0.9\n");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Steps, EachRunFailure,
    testing::Values(RunFailure{Step::fetch, Failure::interrupted, util::ErrorKind::interrupted},
                    RunFailure{Step::inspect, Failure::interrupted, util::ErrorKind::interrupted},
                    RunFailure{Step::backup, Failure::interrupted, util::ErrorKind::interrupted},
                    RunFailure{Step::backup, Failure::error, util::ErrorKind::failed},
                    RunFailure{Step::installer, Failure::spawn, util::ErrorKind::failed},
                    RunFailure{Step::installer, Failure::interrupted, util::ErrorKind::interrupted},
                    RunFailure{Step::import_check, Failure::spawn, util::ErrorKind::failed},
                    RunFailure{Step::import_check, Failure::interrupted,
                               util::ErrorKind::interrupted}),
    [](const auto& p) { return name_of(p.param.step, p.param.failure); });

// The backup step only runs when something was installed before.
TEST(InstallRun, BackupFailureMattersOnlyWhenThereIsSomethingToBackUp) {
  PlanRunner r(false);
  r.world.failing_step = Step::backup;
  r.world.failure = Failure::error;
  ASSERT_TRUE(r.go());
  EXPECT_EQ(r.world.installed(), "1.2");
}

// The import fails and so does the uninstall meant to undo it: no further
// wheel goes on top; the guard restores 0.9 from its backup.
TEST(InstallRun, AFailedUninstallStopsTheRunAndTheGuardRestores) {
  PlanRunner r;
  r.world.failing_step = Step::import_check;
  r.world.failure = Failure::error;
  r.world.failing_candidate = 0;
  r.world.uninstall = Failure::error;
  ASSERT_TRUE(r.go());
  EXPECT_EQ(r.stages(), (std::vector<std::string>{"import"}));
  EXPECT_NE(r.outcome.attempts[0].detail.find("uninstalling it failed"), std::string::npos);
  EXPECT_EQ(r.outcome.restore, "restored 0.9");
  EXPECT_EQ(r.world.installed(), "0.9");
  EXPECT_EQ(std::count(r.world.calls.begin(), r.world.calls.end(), "fetch ff-1.1-py3-none-any.whl"),
            0);
}

// The uninstall cannot be started, or Ctrl-C arrives during it: an error, and
// the guard restores 0.9.
TEST(InstallRun, AnUninstallThatCannotRunEndsTheRunAndTheGuardRestores) {
  for (Failure failure : {Failure::spawn, Failure::interrupted}) {
    PlanRunner r;
    r.world.failing_step = Step::import_check;
    r.world.failure = Failure::error;
    r.world.failing_candidate = 0;
    r.world.uninstall = failure;
    auto ran = r.go();
    ASSERT_FALSE(ran);
    EXPECT_EQ(ran.error().kind, failure == Failure::interrupted ? util::ErrorKind::interrupted
                                                                : util::ErrorKind::failed);
    EXPECT_EQ(r.outcome.restore, "restored 0.9");
    EXPECT_EQ(r.world.installed(), "0.9");
  }
}

// Ctrl-C between two candidates (pressed while the first one's installer
// failed): the second is never fetched, and the first one's files are undone.
TEST(InstallRun, CtrlCBetweenCandidatesStopsBeforeTheNextAndRestores) {
  struct Reset {
    ~Reset() { util::set_interrupted(false); }
  } reset;
  PlanRunner r;
  r.world.failing_step = Step::installer;
  r.world.failure = Failure::error;
  r.world.failing_candidate = 0;
  r.world.ctrl_c_on_failure = true;
  auto ran = r.go();
  ASSERT_FALSE(ran);
  EXPECT_EQ(ran.error().kind, util::ErrorKind::interrupted);
  EXPECT_EQ(r.stages(), (std::vector<std::string>{"install"}));
  EXPECT_EQ(std::count(r.world.calls.begin(), r.world.calls.end(), "fetch ff-1.1-py3-none-any.whl"),
            0);
  EXPECT_EQ(r.outcome.restore, "restored 0.9");
  EXPECT_EQ(r.world.installed(), "0.9");
}

// Ctrl-C before anything: nothing is fetched, nothing changes.
TEST(InstallRun, CtrlCBeforeTheFirstCandidateTouchesNothing) {
  struct Reset {
    ~Reset() { util::set_interrupted(false); }
  } reset;
  PlanRunner r;
  util::set_interrupted(true);
  auto ran = r.go();
  ASSERT_FALSE(ran);
  EXPECT_EQ(ran.error().kind, util::ErrorKind::interrupted);
  EXPECT_TRUE(r.world.calls.empty());
  EXPECT_EQ(r.outcome.restore, "");
  EXPECT_EQ(r.world.installed(), "0.9");
}

// install -r's other lines, shared with the first attempt's installer run.
// The combined run is World's real installer write (the wheel is its last
// argument) when it succeeds; `combined_fails` / `lines_fail` make it fail
// for the wheel's sake or for the lines'.
struct LinesWorld {
  bool combined_fails = false;
  bool lines_fail = false;
  bool lines_change_torch = false;
  std::string torch = "torch 2.9";
  std::vector<std::vector<std::string>> runs;

  std::shared_ptr<SharedLinesRun> make(World& world) {
    return std::make_shared<SharedLinesRun>(
        std::vector<std::string>{"pip", "install", "-r", "lines.txt"},
        std::vector<std::string>{"-c", "pins.txt"},
        [this, &world](const std::vector<std::string>& argv) -> util::Result<util::ProcessResult> {
          runs.push_back(argv);
          world.calls.push_back(argv.back() == "lines.txt" ? "lines" : "lines + wheel");
          util::ProcessResult result;
          const bool combined = argv.back() != "lines.txt";
          result.exit_code = (combined && (combined_fails || lines_fail)) || lines_fail ? 1 : 0;
          if (result.exit_code == 0 && combined) return world.run_installer(argv);
          if (result.exit_code == 0 && lines_change_torch) torch = "torch 2.10";
          return result;
        },
        [this] { return std::vector<std::string>{torch}; });
  }
};

TEST(InstallRun, TheFirstAttemptTakesTheLinesIntoItsInstallerRun) {
  PlanRunner r;
  LinesWorld lines;
  r.options.lines = lines.make(r.world);
  ASSERT_TRUE(r.go());
  EXPECT_EQ(r.world.calls,
            (std::vector<std::string>{"fetch ff-1.2-py3-none-any.whl", "inspect", "preload",
                                      "backup", "lines + wheel", "installer", "import", "record"}));
  ASSERT_EQ(lines.runs.size(), 1u);
  EXPECT_EQ(lines.runs[0], (std::vector<std::string>{
                               "pip", "install", "-r", "lines.txt", "-c", "pins.txt",
                               r.world.dir.path().string() + "/cache/ff-1.2-py3-none-any.whl"}));
  EXPECT_TRUE(r.options.lines->shared());
  EXPECT_EQ(r.world.installed(), "1.2");
}

// A second candidate after a failed import installs by itself: the lines ran once.
TEST(InstallRun, OnlyTheFirstInstallerRunTakesTheLines) {
  PlanRunner r;
  LinesWorld lines;
  r.options.lines = lines.make(r.world);
  r.world.failing_step = Step::import_check;
  r.world.failure = Failure::error;
  r.world.failing_candidate = 0;
  ASSERT_TRUE(r.go());
  EXPECT_EQ(lines.runs.size(), 1u);
  // The combined run (World writes the wheel) and 1.1 by itself.
  EXPECT_EQ(std::count(r.world.calls.begin(), r.world.calls.end(), "installer"), 2);
  EXPECT_EQ(r.world.installed(), "1.1");
  EXPECT_TRUE(r.options.lines->shared());
}

// The combined run fails for the wheel's sake: the lines alone install, and
// the wheel then goes in by itself, as without sharing.
TEST(InstallRun, AFailedCombinedRunLeavesTheVerdictToTheLinesThenTheWheel) {
  PlanRunner r;
  LinesWorld lines;
  lines.combined_fails = true;
  r.options.lines = lines.make(r.world);
  ASSERT_TRUE(r.go());
  EXPECT_EQ(r.world.calls, (std::vector<std::string>{"fetch ff-1.2-py3-none-any.whl", "inspect",
                                                     "preload", "backup", "lines + wheel", "lines",
                                                     "installer", "import", "record"}));
  EXPECT_EQ(r.options.lines->lines_ok(), true);
  EXPECT_FALSE(r.options.lines->shared());
  EXPECT_EQ(r.world.installed(), "1.2");
}

// The lines fail by themselves too: nothing more is tried, and the guard
// puts the previous version back.
TEST(InstallRun, LinesThatFailByThemselvesEndTheRunAndRestore) {
  PlanRunner r;
  LinesWorld lines;
  lines.lines_fail = true;
  r.options.lines = lines.make(r.world);
  auto ran = r.go();
  ASSERT_FALSE(ran);
  EXPECT_NE(ran.error().message.find("other lines"), std::string::npos) << ran.error().message;
  EXPECT_EQ(r.options.lines->lines_ok(), false);
  EXPECT_EQ(std::count(r.world.calls.begin(), r.world.calls.end(), "installer"), 0);
  EXPECT_EQ(r.world.installed(), "0.9");
}

// The lines by themselves replaced torch: the wheel picked for the old torch
// is not installed on top; the caller is told to pick again.
TEST(InstallRun, LinesThatChangeTorchStopTheStalePick) {
  PlanRunner r;
  LinesWorld lines;
  lines.combined_fails = true;
  lines.lines_change_torch = true;
  r.options.lines = lines.make(r.world);
  ASSERT_FALSE(r.go());
  EXPECT_TRUE(r.options.lines->torch_changed());
  EXPECT_EQ(r.options.lines->lines_ok(), true);
  EXPECT_EQ(std::count(r.world.calls.begin(), r.world.calls.end(), "installer"), 0);
  EXPECT_EQ(r.world.installed(), "0.9");
}

// pip would answer "already satisfied" for the same version without
// --force-reinstall, which a run over the user's lines cannot take: the
// lines go in first by themselves (as without sharing), then the wheel by
// itself; another local label is another version, and is shared.
TEST(InstallRun, TheSameVersionInstalledGoesAfterTheLinesByThemselves) {
  for (const std::string installed : {"1.2", "1.2+old"}) {
    PlanRunner r(false);
    const std::string dist_info = "ff-" + installed + ".dist-info";
    test::write(r.world.site / dist_info / "METADATA", "Name: ff\nVersion: " + installed + "\n");
    test::write(r.world.site / dist_info / "RECORD", dist_info + "/METADATA,,\n");
    r.before = find_installed({r.world.site.string()}, "ff");
    ASSERT_TRUE(r.before);
    LinesWorld lines;
    r.options.lines = lines.make(r.world);
    ASSERT_TRUE(r.go()) << installed;
    ASSERT_EQ(lines.runs.size(), 1u) << installed;
    if (installed == "1.2") {
      EXPECT_EQ(lines.runs[0], (std::vector<std::string>{"pip", "install", "-r", "lines.txt"}));
      EXPECT_FALSE(r.options.lines->shared());
      EXPECT_EQ(r.world.calls,
                (std::vector<std::string>{"fetch ff-1.2-py3-none-any.whl", "inspect", "preload",
                                          "backup", "lines", "installer", "import", "record"}));
    } else {
      EXPECT_TRUE(r.options.lines->shared()) << installed;
    }
    EXPECT_EQ(r.world.installed(), "1.2");
  }
}

// The lines by themselves after a skipped share move torch: the wheel picked
// before them is not installed on top.
TEST(InstallRun, LinesFirstThatChangeTorchStopTheStalePick) {
  PlanRunner r(false);
  test::write(r.world.site / "ff-1.2.dist-info/METADATA", "Name: ff\nVersion: 1.2\n");
  test::write(r.world.site / "ff-1.2.dist-info/RECORD", "ff-1.2.dist-info/METADATA,,\n");
  r.before = find_installed({r.world.site.string()}, "ff");
  LinesWorld lines;
  lines.lines_change_torch = true;
  r.options.lines = lines.make(r.world);
  ASSERT_FALSE(r.go());
  EXPECT_TRUE(r.options.lines->torch_changed());
  EXPECT_EQ(std::count(r.world.calls.begin(), r.world.calls.end(), "installer"), 0);
}

TEST(SharedLinesRun, RunsTheLinesAtMostOnceSuccessfully) {
  int calls = 0;
  SharedLinesRun lines(
      {"pip", "install", "-r", "l.txt"}, {"-c", "p.txt"},
      [&calls](const std::vector<std::string>&) -> util::Result<util::ProcessResult> {
        ++calls;
        util::ProcessResult ok;
        ok.exit_code = 0;
        return ok;
      },
      [] { return std::vector<std::string>{}; });
  EXPECT_TRUE(lines.pending());
  EXPECT_FALSE(lines.lines_ok());
  ASSERT_TRUE(lines.ensure_lines());
  EXPECT_EQ(calls, 1);
  ASSERT_TRUE(lines.ensure_lines());
  ASSERT_TRUE(lines.run_alone());
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(lines.shared());  // they ran alone
  auto again = lines.run_with("/w.whl");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().kind, util::ErrorKind::internal);
  EXPECT_EQ(calls, 1);
}

TEST(SharedLinesRun, ASpawnFailureIsAnErrorAndDecidesNothing) {
  SharedLinesRun lines(
      {"pip"}, {},
      [](const std::vector<std::string>&) -> util::Result<util::ProcessResult> {
        return util::fail(util::ErrorKind::failed, "cannot start pip");
      },
      [] { return std::vector<std::string>{}; });
  EXPECT_FALSE(lines.run_with("/w.whl"));
  EXPECT_FALSE(lines.lines_ok());
  EXPECT_FALSE(lines.ensure_lines());
  EXPECT_FALSE(lines.lines_ok());
}

}  // namespace
}  // namespace flashfit::install
