// The install plan (issue 14 "plan, then act"): which candidates are tried in
// which order, what is backed up, how the environment is restored, and the
// exact installer argv, decided without running anything.
#include "install/install_plan.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace flashfit::install {
namespace {
namespace fs = std::filesystem;

resolve::Candidate candidate(std::string filename, std::string url,
                             std::optional<std::string> sha256 = std::nullopt) {
  resolve::Candidate c;
  c.filename = std::move(filename);
  c.url = std::move(url);
  c.source = "team";
  c.sha256 = std::move(sha256);
  return c;
}

// Three fits then two rejected wheels, in rank order.
struct Fixture {
  std::shared_ptr<std::vector<resolve::Candidate>> inputs =
      std::make_shared<std::vector<resolve::Candidate>>(std::vector<resolve::Candidate>{
          candidate("ff-1.2-py3-none-any.whl", "http://127.0.0.1:1/ff-1.2-py3-none-any.whl",
                    std::string(64, 'a')),
          candidate("ff-1.1-py3-none-any.whl", "http://127.0.0.1:1/ff-1.1-py3-none-any.whl"),
          candidate("ff-1.0-py3-none-any.whl", "/wheels/ff-1.0-py3-none-any.whl"),
          candidate("ff-0.9-cp27-none-any.whl", "http://127.0.0.1:1/ff-0.9-cp27-none-any.whl"),
          candidate("ff-0.8-cp27-none-any.whl", "http://127.0.0.1:1/ff-0.8-cp27-none-any.whl")});
  resolve::Resolution resolution;
  env::Interpreter interpreter;
  Installer pip{
      InstallerKind::pip, "/venv/bin/python", {"/venv/bin/python", "-m", "pip"}, "pip 26.2.1"};
  std::optional<InstalledDist> before;

  Fixture() {
    resolution.request = {"ff", {}, "ff"};
    resolution.inputs = inputs;
    for (std::size_t i = 0; i < inputs->size(); ++i) {
      resolve::Judged j;
      j.candidate = &(*inputs)[i];
      if (i >= 3) j.reasons.push_back({resolve::ReasonCode::python, "built for Python 2.7"});
      resolution.candidates.push_back(std::move(j));
    }
    resolution.selected = 0;
    interpreter.executable = "/venv/bin/python";
    interpreter.prefix = "/venv";
    interpreter.purelib = "/venv/lib/python3.11/site-packages";
    interpreter.platlib = "/venv/lib/python3.11/site-packages";
    interpreter.site_dirs = {"/venv/lib/python3.11/site-packages"};
  }
  PlanInputs inputs_for(std::size_t max_attempts = 5, bool try_rejected = false) const {
    return {&resolution, nullptr, &interpreter, &pip, &before, max_attempts, try_rejected, {}};
  }
};

std::vector<std::string> filenames(const InstallPlan& plan) {
  std::vector<std::string> out;
  for (const PlannedCandidate& c : plan.candidates) out.push_back(c.filename);
  return out;
}

TEST(InstallPlan, TriesTheFitsInRankOrderAndStopsAtTheFirstRejected) {
  Fixture f;
  InstallPlan plan = plan_install(f.inputs_for());
  EXPECT_EQ(filenames(plan),
            (std::vector<std::string>{"ff-1.2-py3-none-any.whl", "ff-1.1-py3-none-any.whl",
                                      "ff-1.0-py3-none-any.whl"}));
  EXPECT_EQ(plan.interpreter, "/venv/bin/python");
  // purelib == platlib: one target dir, not two.
  EXPECT_EQ(plan.site_dirs, (std::vector<std::string>{"/venv/lib/python3.11/site-packages"}));
  EXPECT_EQ(plan.installer, "pip 26.2.1");
  EXPECT_EQ(plan.candidates[0].judged, &f.resolution.candidates[0]);
}

TEST(InstallPlan, MaxAttemptsCapsTheCandidates) {
  Fixture f;
  EXPECT_EQ(filenames(plan_install(f.inputs_for(2))),
            (std::vector<std::string>{"ff-1.2-py3-none-any.whl", "ff-1.1-py3-none-any.whl"}));
  EXPECT_TRUE(plan_install(f.inputs_for(0)).candidates.empty());
}

TEST(InstallPlan, ANamedFileIsTriedEvenWhenItsLabelIsRejected) {
  Fixture f;
  EXPECT_EQ(plan_install(f.inputs_for(5, true)).candidates.size(), 5u);
}

TEST(InstallPlan, NoFitNoCandidates) {
  Fixture f;
  for (resolve::Judged& j : f.resolution.candidates)
    j.reasons.push_back({resolve::ReasonCode::python, "no"});
  f.resolution.selected.reset();
  InstallPlan plan = plan_install(f.inputs_for());
  EXPECT_TRUE(plan.candidates.empty());
  EXPECT_NE(plan_text(plan).find("candidates: none fits"), std::string::npos);
}

TEST(InstallPlan, TheExactInstallerArgvWithTheKnownPathOrAPlaceholder) {
  Fixture f;
  PlanInputs in = f.inputs_for();
  in.cached[std::string(64, 'a')] = "/cache/wheels/aa/ff-1.2-py3-none-any.whl";
  InstallPlan plan = plan_install(in);
  ASSERT_EQ(plan.candidates.size(), 3u);
  // A cache hit: the cache's file.
  EXPECT_EQ(plan.candidates[0].wheel_path, fs::path("/cache/wheels/aa/ff-1.2-py3-none-any.whl"));
  EXPECT_EQ(plan.candidates[0].installer_argv,
            install_argv(f.pip, "/cache/wheels/aa/ff-1.2-py3-none-any.whl"));
  EXPECT_EQ(plan.candidates[0].installer_argv.front(), "/venv/bin/python");
  // Not downloaded yet: no path, and no sha256 is made up.
  EXPECT_FALSE(plan.candidates[1].wheel_path);
  EXPECT_FALSE(plan.candidates[1].sha256);
  EXPECT_EQ(plan.candidates[1].installer_argv.back(), "<cache entry of ff-1.1-py3-none-any.whl>");
  // A local wheel is copied into the cache first: the installer gets the copy.
  EXPECT_FALSE(plan.candidates[2].wheel_path);
  EXPECT_EQ(plan.uninstall_argv, uninstall_argv(f.pip, "ff"));
}

TEST(InstallPlan, UvArgvNamesTheTargetInterpreter) {
  Fixture f;
  Installer uv{InstallerKind::uv, "/venv/bin/python", {"/usr/bin/uv", "pip"}, "uv 0.13.9"};
  PlanInputs in = f.inputs_for();
  in.installer = &uv;
  InstallPlan plan = plan_install(in);
  const auto& argv = plan.candidates[0].installer_argv;
  EXPECT_EQ(argv.front(), "/usr/bin/uv");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "/venv/bin/python"), argv.end());
  EXPECT_EQ(plan.installer, "uv 0.13.9");
}

TEST(InstallPlan, BacksUpThePreviousVersionOnlyWhereTheInstallerWrites) {
  Fixture f;
  InstallPlan none = plan_install(f.inputs_for());
  EXPECT_FALSE(none.previous);
  EXPECT_FALSE(none.backup_previous);
  EXPECT_NE(none.restore.find("nothing was installed before"), std::string::npos);

  f.before = InstalledDist{"/venv/lib/python3.11/site-packages", "", "ff", "0.9", false};
  InstallPlan replaced = plan_install(f.inputs_for());
  EXPECT_EQ(replaced.previous, "0.9");
  EXPECT_TRUE(replaced.backup_previous);
  EXPECT_NE(replaced.restore.find("backed-up files"), std::string::npos);

  // A system package seen through --system-site-packages stays untouched.
  f.before = InstalledDist{"/usr/lib/python3/dist-packages", "", "ff", "0.8", false};
  InstallPlan beside = plan_install(f.inputs_for());
  EXPECT_EQ(beside.previous, "0.8");
  EXPECT_FALSE(beside.backup_previous);
  EXPECT_NE(beside.restore.find("stays untouched"), std::string::npos);
}

TEST(InstallPlan, TheRecipesModuleIsWhatTheImportCheckImports) {
  Fixture f;
  resolve::Recipe recipe;
  recipe.name = "ff";
  recipe.binary_module = "ff_cuda";
  PlanInputs in = f.inputs_for();
  in.recipe = &recipe;
  EXPECT_EQ(plan_install(in).import_modules, (std::vector<std::string>{"ff_cuda"}));
  EXPECT_TRUE(plan_install(f.inputs_for()).import_modules.empty());
}

// Issue 19 item 8: the dry run names the interpreter, its site-packages, where
// each wheel comes from, its sha256 or that it is unknown, and the command line.
TEST(InstallPlan, TextNamesEverythingTheDryRunPromises) {
  Fixture f;
  PlanInputs in = f.inputs_for();
  in.cached[std::string(64, 'a')] = "/cache/wheels/aa/ff-1.2-py3-none-any.whl";
  const std::string text = plan_text(plan_install(in));
  for (const std::string& want :
       {std::string("interpreter:   /venv/bin/python"),
        std::string("site-packages: /venv/lib/python3.11/site-packages"),
        std::string("cached:  /cache/wheels/aa/ff-1.2-py3-none-any.whl"),
        std::string("from:    /wheels/ff-1.0-py3-none-any.whl"),
        std::string("from:    http://127.0.0.1:1/ff-1.1-py3-none-any.whl"),
        std::string("sha256:  ") + std::string(64, 'a'), std::string("sha256:  unknown"),
        std::string("command: /venv/bin/python -m pip install --no-deps"),
        std::string("'<cache entry of ff-1.1-py3-none-any.whl>'")}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\nin:\n" << text;
  }
}

}  // namespace
}  // namespace flashfit::install
