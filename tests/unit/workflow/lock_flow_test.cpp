// lock's document from its steps, with fakes: each recipe package's pick (a
// cache pick locked at the URL its bytes came from, a pick without sha256
// downloaded to learn it unless told not to), pip's lines, what stops it.
#include "workflow/lock_flow.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "../temp_dir.hpp"

namespace flashfit::workflow {
namespace {

namespace fs = std::filesystem;

class NoIncludes : public pkg::FileReader {
 public:
  util::Result<std::string> read(const std::string& path) override {
    return util::input_error("no includes here", path);
  }
};

std::vector<pkg::RequirementsFile> requirements(const std::string& text) {
  NoIncludes none;
  auto file = pkg::parse_requirements_file(text, "r.txt", none);
  EXPECT_TRUE(file) << file.error().message;
  return {file ? *file : pkg::RequirementsFile{}};
}

env::Environment linux_311() {
  env::Interpreter interpreter;
  interpreter.executable = "/venv/bin/python";
  auto& m = interpreter.markers;
  *m.find("python_version") = "3.11";
  *m.find("python_full_version") = "3.11.2";
  *m.find("sys_platform") = "linux";
  *m.find("platform_system") = "Linux";
  *m.find("platform_machine") = "x86_64";
  *m.find("os_name") = "posix";
  *m.find("implementation_name") = "cpython";
  *m.find("platform_python_implementation") = "CPython";
  env::Environment environment;
  environment.python.interpreter = env::Fact<env::Interpreter>::of(interpreter, "test");
  return environment;
}

// A resolution picking `candidate` (or nothing).
std::unique_ptr<Resolved> picked(std::optional<resolve::Candidate> candidate, bool certain = true) {
  auto out = std::make_unique<Resolved>();
  if (!candidate) return out;
  auto inputs = std::make_shared<std::vector<resolve::Candidate>>();
  inputs->push_back(*candidate);
  out->resolution.inputs = inputs;
  resolve::Judged judged;
  judged.candidate = &inputs->front();
  if (auto wheel = pkg::parse_wheel_filename(candidate->filename)) judged.wheel = *wheel;
  if (!certain) judged.assumptions.push_back({"gpu", "the GPUs are unreadable", "--gpu"});
  out->resolution.candidates.push_back(judged);
  out->resolution.selected = 0;
  return out;
}

resolve::Candidate candidate(std::string url, std::optional<std::string> sha256,
                             resolve::SourceRole role = resolve::SourceRole::upstream) {
  resolve::Candidate c;
  c.url = std::move(url);
  c.filename = c.url.substr(c.url.rfind('/') + 1);
  c.source = role == resolve::SourceRole::cache ? "cache" : "upstream";
  c.role = role;
  c.sha256 = std::move(sha256);
  return c;
}

const std::string kHash = std::string(64, 'a');
const std::string kOther = std::string(64, 'b');

class FakeLockSteps : public LockSteps {
 public:
  std::map<std::string, std::optional<resolve::Candidate>> picks;  // by recipe name
  std::vector<ReportedPackage> pip;
  std::optional<util::Error> pip_error;
  std::vector<std::string> resolved, downloaded, pip_lines;
  bool uv_asked = false;

  util::Result<std::unique_ptr<Resolved>> resolve(const TakenPackage& taken,
                                                  const resolve::SourceFlags&) override {
    resolved.push_back(taken.spec);
    auto it = picks.find(taken.recipe);
    if (it == picks.end()) return util::fail(util::ErrorKind::usage, "unknown package");
    return picked(it->second);
  }
  util::Result<std::vector<ReportedPackage>> pip_resolution(const InstallRequirementsPlan& plan,
                                                            const env::Interpreter&) override {
    for (const auto& line : plan.installer)
      pip_lines.push_back(line.requirement ? line.requirement->name : line.text);
    if (pip_error) return tl::unexpected(*pip_error);
    return pip;
  }
  util::Result<std::vector<ReportedPackage>> uv_resolution(const InstallRequirementsPlan& plan,
                                                           const env::Environment&) override {
    uv_asked = true;
    return pip_resolution(plan, env::Interpreter{});
  }
  std::vector<std::string> cache_urls(const std::string& sha256) override {
    if (sha256 == kHash) return {"/elsewhere/x.whl", "https://files.example/x.whl"};
    return {};
  }
  util::Result<std::string> hash_by_download(const resolve::Candidate& c) override {
    downloaded.push_back(c.url);
    if (c.url.find("gone") != std::string::npos)
      return util::fail(util::ErrorKind::failed, "HTTP 404", c.url);
    return kOther;
  }
  // A pick's Requires-Dist by file name; one not scripted requires nothing
  // and is on this machine.
  std::map<std::string, std::vector<std::string>> dependencies;
  std::vector<std::string> deps_read;
  util::Result<std::optional<std::vector<std::string>>> requires_dist(
      const resolve::Candidate& c, const std::optional<std::string>&, bool may_fetch,
      const std::function<void(const std::string&)>& fetching) override {
    deps_read.push_back(c.filename);
    auto it = dependencies.find(c.filename);
    if (it == dependencies.end()) return std::vector<std::string>{};
    if (!may_fetch) return std::nullopt;
    if (fetching) fetching("downloading " + c.filename + " to read its dependencies");
    return it->second;
  }
};

struct LockRun {
  env::Environment environment = linux_311();
  std::vector<pkg::RequirementsFile> files;
  resolve::RecipeBook book = resolve::RecipeBook::built_in();
  LockInput input;
  std::vector<std::string> warnings, notes, remarks;
  explicit LockRun(const std::string& text) : files(requirements(text)) {
    input.files = &files;
    input.book = &book;
    input.environment = &environment;
    input.note = [this](std::string_view l) { notes.emplace_back(l); };
    input.warning = [this](std::string_view l) { warnings.emplace_back(l); };
    input.remark = [this](std::string_view l) { remarks.emplace_back(l); };
  }
};

TEST(LockFlow, RecipePicksAndPipLinesMakeTheDocument) {
  LockRun run("flash-attn==2.8.3\nnumpy>=1.24\n");
  FakeLockSteps steps;
  steps.picks["flash-attn"] = candidate("https://h/flash_attn-2.8.3-cp311.whl", kHash);
  steps.pip = {{"numpy", "2.1.0", "https://p/numpy.whl", kOther, {}},
               {"flash_attn", "2.7.0", "https://p/fa.whl", "", {}}};
  auto out = lock_requirements(steps, run.input);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_FALSE(out->unfit);
  const LockDocument& d = out->document;
  ASSERT_EQ(d.flashfit.size(), 1u);
  EXPECT_EQ(d.flashfit[0].name, "flash-attn");
  EXPECT_EQ(d.flashfit[0].url, "https://h/flash_attn-2.8.3-cp311.whl");
  EXPECT_EQ(d.flashfit[0].sha256, kHash);
  EXPECT_EQ(steps.resolved, (std::vector<std::string>{"flash-attn==2.8.3"}));
  EXPECT_EQ(steps.pip_lines, (std::vector<std::string>{"numpy"}));
  // pip's own flash_attn is not locked beside flashfit's pick: a note says so.
  ASSERT_EQ(d.installer.size(), 1u);
  EXPECT_EQ(d.installer[0].name, "numpy");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("flashfit's pick above is the one locked"), std::string::npos);
  EXPECT_TRUE(steps.downloaded.empty());
  EXPECT_FALSE(steps.uv_asked);
  EXPECT_EQ(d.installer[0].origin, "pip's resolution");
  EXPECT_TRUE(run.warnings.empty());
  ASSERT_EQ(run.notes.size(), 1u);
  EXPECT_EQ(run.notes[0], "resolving 1 line with pip (--dry-run --report)");
}

TEST(LockFlow, UvResolvesTheInstallerLinesWhenChosenAndAPylockWarnsOfNoMissingHash) {
  LockRun run("numpy\n");
  run.input.resolver = LineResolver::uv;
  run.input.warn_unhashed = false;  // --format pylock: the renderer refuses, saying why
  FakeLockSteps steps;
  steps.pip = {{"numpy", "2.1.0", "https://p/numpy.tar.gz", "", {}}};
  auto out = lock_requirements(steps, run.input);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_TRUE(steps.uv_asked);
  ASSERT_EQ(out->document.installer.size(), 1u);
  EXPECT_EQ(out->document.installer[0].origin, "uv's resolution");
  EXPECT_FALSE(out->document.installer[0].sha256);
  EXPECT_TRUE(run.warnings.empty());
  EXPECT_EQ(
      run.notes,
      (std::vector<std::string>{"resolving 1 line with uv (pip compile --format pylock.toml)"}));
}

TEST(LockFlow, ACachePickIsLockedAtTheUrlItsBytesCameFrom) {
  LockRun run("flash-attn\n");
  FakeLockSteps steps;
  steps.picks["flash-attn"] =
      candidate("/home/u/.cache/flashfit/wheels/x.whl", kHash, resolve::SourceRole::cache);
  auto out = lock_requirements(steps, run.input);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->document.flashfit.at(0).url, "https://files.example/x.whl");
}

TEST(LockFlow, APickWithoutSha256IsDownloadedUnlessToldNot) {
  {
    LockRun run("flash-attn\n");
    FakeLockSteps steps;
    steps.picks["flash-attn"] = candidate("https://h/fa.whl", std::nullopt);
    auto out = lock_requirements(steps, run.input);
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(out->document.flashfit.at(0).sha256, kOther);
    EXPECT_EQ(steps.downloaded, (std::vector<std::string>{"https://h/fa.whl"}));
    EXPECT_TRUE(run.warnings.empty());
  }
  for (int variant = 0; variant < 2; ++variant) {
    LockRun run("flash-attn\n");
    if (variant == 0) run.input.no_download = true;
    if (variant == 1) run.input.sources.offline = true;  // a remote file is the network
    FakeLockSteps steps;
    steps.picks["flash-attn"] = candidate("https://h/fa.whl", std::nullopt);
    auto out = lock_requirements(steps, run.input);
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_FALSE(out->document.flashfit.at(0).sha256) << variant;
    EXPECT_TRUE(steps.downloaded.empty()) << variant;
    ASSERT_EQ(run.warnings.size(), 1u) << variant;
    EXPECT_NE(run.warnings[0].find("its --hash is left out"), std::string::npos);
  }
}

TEST(LockFlow, ALocalFileIsHashedEvenOffline) {
  LockRun run("flash-attn\n");
  run.input.sources.offline = true;
  FakeLockSteps steps;
  steps.picks["flash-attn"] = candidate("/wheels/fa.whl", std::nullopt);
  auto out = lock_requirements(steps, run.input);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->document.flashfit.at(0).url, "file:///wheels/fa.whl");
  EXPECT_EQ(out->document.flashfit.at(0).sha256, kOther);
}

// The file `install -r` installs for a line naming a local wheel that fits
// (workflow::install_spec) is the one locked; a named wheel that does not fit
// here is replaced by the pick for its version.
TEST(LockFlow, ALocalWheelTheLineNamesIsLockedWhenItFits) {
  test::TempDir dir("lock-named");
  const fs::path fits =
      dir.path() / "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp311-cp311-linux_x86_64.whl";
  const fs::path other = dir.path() / "causal_conv1d-1.5.2-cp310-cp310-linux_x86_64.whl";
  std::ofstream(fits) << "x";
  std::ofstream(other) << "x";
  LockRun run("flash-attn @ file://" + fits.string() + "\ncausal-conv1d @ file://" +
              other.string() + "\n");
  // CPython 3.11 on x86_64 Linux (glibc 2.36), torch 2.8 for CUDA 12.8 with the C++11 ABI.
  env::Interpreter python = *run.environment.python.interpreter;
  python.tag_facts.implementation = "cpython";
  python.tag_facts.python_minor = 11;
  python.tag_facts.py_version_nodot = "311";
  python.tag_facts.py_debug = false;
  python.tag_facts.soabi = "cpython-311-x86_64-linux-gnu";
  python.tag_facts.system = "Linux";
  python.tag_facts.platform = "linux-x86_64";
  python.tag_facts.glibc = pkg::LibcVersion{2, 36};
  run.environment.python.interpreter = env::Fact<env::Interpreter>::of(python, "test");
  auto& torch = run.environment.torch;
  torch.package_dir = env::Fact<fs::path>::of("/venv/site/torch", "test");
  torch.version = env::Fact<pkg::Version>::of(*pkg::Version::parse("2.8.0+cu128"), "test");
  torch.cuda = env::Fact<env::ToolkitBuild>::of(env::ToolkitBuild::of("12.8"), "test");
  torch.cxx11_abi = env::Fact<bool>::of(true, "test");
  run.environment.machine.arch = env::Fact<std::string>::of("x86_64", "test");
  FakeLockSteps steps;
  steps.picks["flash-attn"] = candidate(fits.string(), std::nullopt);
  steps.picks["causal-conv1d"] = candidate("https://h/causal_conv1d-1.5.2-cp311.whl", kHash);
  auto out = lock_requirements(steps, run.input);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(steps.resolved, (std::vector<std::string>{fits.string(), "causal-conv1d==1.5.2"}));
  const LockDocument& d = out->document;
  ASSERT_EQ(d.flashfit.size(), 2u);
  EXPECT_EQ(d.flashfit[0].url,
            "file://" + (dir.path() / "flash_attn-2.8.3%2Bcu12torch2.8cxx11abiTRUE-"
                                      "cp311-cp311-linux_x86_64.whl")
                            .string());
  EXPECT_EQ(d.flashfit[0].sha256, kOther);  // read to hash it
  EXPECT_NE(d.flashfit[0].origin.find("names, which fits here"), std::string::npos)
      << d.flashfit[0].origin;
  EXPECT_NE(d.flashfit[1].origin.find("flashfit's pick"), std::string::npos);
}

TEST(LockFlow, AFetchThatFailsNamesTheLine) {
  LockRun run("flash-attn\n");
  FakeLockSteps steps;
  steps.picks["flash-attn"] = candidate("https://h/gone.whl", std::nullopt);
  auto out = lock_requirements(steps, run.input);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message, "HTTP 404");
  EXPECT_NE(out.error().context.find("r.txt:1"), std::string::npos) << out.error().context;
}

TEST(LockFlow, NothingFitsStopsBeforePip) {
  LockRun run("flash-attn\nmamba-ssm\nnumpy\n");
  FakeLockSteps steps;
  steps.picks["flash-attn"] = std::nullopt;
  steps.picks["mamba-ssm"] = candidate("https://h/m.whl", kHash);
  auto out = lock_requirements(steps, run.input);
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_TRUE(out->unfit);
  EXPECT_EQ(out->unfit->taken.recipe, "flash-attn");
  EXPECT_EQ(steps.resolved.size(), 1u);
  EXPECT_TRUE(steps.pip_lines.empty());
}

TEST(LockFlow, AnUncertainPickIsLockedWithANoteAndAWarning) {
  LockRun run("flash-attn\n");
  // The fake picks certain candidates; this one an uncertain one.
  class Uncertain : public FakeLockSteps {
   public:
    util::Result<std::unique_ptr<Resolved>> resolve(const TakenPackage&,
                                                    const resolve::SourceFlags&) override {
      return picked(candidate("https://h/fa.whl", kHash), /*certain=*/false);
    }
  } uncertain;
  auto out = lock_requirements(uncertain, run.input);
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_EQ(out->document.notes.size(), 1u);
  EXPECT_NE(out->document.notes[0].find("rests on facts not known here"), std::string::npos);
  EXPECT_EQ(run.warnings, out->document.notes);
}

TEST(LockFlow, WhatIfFlagsLeaveTheInstallerLinesUnresolved) {
  LockRun run("numpy\n");
  run.input.what_if = {"--torch 2.8.0"};
  FakeLockSteps steps;
  auto out = lock_requirements(steps, run.input);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_TRUE(steps.pip_lines.empty());
  EXPECT_TRUE(out->document.installer.empty());
  ASSERT_EQ(out->document.notes.size(), 2u);
  EXPECT_EQ(out->document.notes[0],
            "what-if (--torch 2.8.0): environment markers are this interpreter's, "
            "python_version and platform_machine as described");
  ASSERT_EQ(run.remarks.size(), 1u);
  EXPECT_EQ(run.remarks[0], out->document.notes[1]);
}

// The header is this environment's key: a resolution that replaces torch
// would lock a torch the header does not name.
TEST(LockFlow, TheInstallersLinesMayNotChangeTorch) {
  LockRun run("dep\n");
  run.environment.torch.package_dir =
      env::Fact<std::filesystem::path>::of("/venv/lib/site-packages/torch", "test");
  run.environment.torch.version =
      env::Fact<pkg::Version>::of(*pkg::Version::parse("1.13.0a0"), "test");
  FakeLockSteps steps;
  steps.pip = {{"dep", "1.0", "https://p/dep-1.0-py3-none-any.whl", kHash, {}},
               {"torch", "9.9", "https://p/torch-9.9-py3-none-any.whl", kOther, {}}};
  auto out = lock_requirements(steps, run.input);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().kind, util::ErrorKind::input);
  EXPECT_EQ(out.error().message,
            "the installer's lines change torch (1.13.0a0 -> 9.9): a lock is written for the "
            "torch installed here");
  EXPECT_EQ(out.error().hint, "install them first (e.g. `flashfit install -r r.txt`), then lock");
  // This torch, however pip spells its version, is locked.
  steps.pip[1] = {
      "Torch", "1.13.0-alpha0", "https://p/torch-1.13.0a0-py3-none-any.whl", kOther, {}};
  out = lock_requirements(steps, run.input);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->document.installer.size(), 2u);
  // No torch here: a torch in the resolution is a change too, named by its line.
  LockRun bare("torch>=1.0\n");
  steps.pip = {{"torch", "9.9", "https://p/torch-9.9-py3-none-any.whl", kOther, {}}};
  out = lock_requirements(steps, bare.input);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("(none -> 9.9)"), std::string::npos) << out.error().message;
  EXPECT_EQ(out.error().context, "r.txt:1");
}

// A recipe package only a dependency brings in would be the installer's
// choice, never judged for this environment: refused, naming who requires it.
TEST(LockFlow, ARecipePackageThatOnlyADependencyBringsInIsRefused) {
  LockRun run("numpy\npulls>=1.0\n");
  FakeLockSteps steps;
  steps.pip = {{"numpy", "2.1.0", "https://p/numpy.whl", kHash, {}},
               {"pulls", "1.0", "https://p/pulls.whl", kHash, {"numpy", "flash-attn"}},
               {"flash_attn", "2.7.0", "https://p/fa.whl", kOther, {}}};
  auto out = lock_requirements(steps, run.input);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().kind, util::ErrorKind::input);
  EXPECT_EQ(out.error().message,
            "flash_attn 2.7.0 comes in as a dependency of pulls: pip's choice, with no check that "
            "it fits this environment");
  EXPECT_EQ(out.error().context, "r.txt:2");
  EXPECT_EQ(out.error().hint,
            "list flash-attn in the requirements, so that flashfit picks its wheel");
  // uv's pylock does not say who requires what.
  run.input.resolver = LineResolver::uv;
  for (auto& p : steps.pip) p.requires_names.clear();
  out = lock_requirements(steps, run.input);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message,
            "flash_attn 2.7.0 comes in as a dependency of another line (uv does not say which): "
            "uv's choice, with no check that it fits this environment");
  EXPECT_EQ(out.error().context, "");
  // Listed in the requirements, it is flashfit's pick (and pip's is left out).
  LockRun listed("pulls>=1.0\nflash-attn\n");
  steps.picks["flash-attn"] = candidate("https://h/flash_attn-2.8.3-cp311.whl", kHash);
  out = lock_requirements(steps, listed.input);
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_EQ(out->document.flashfit.size(), 1u);
  EXPECT_EQ(out->document.installer.size(), 2u);
}

// A compiled package is installed --no-deps: what its wheel requires is
// resolved with the installer's lines and locked, except torch (the key's),
// a package the lock already picks, and one flashfit would pick but the
// requirements do not name (said, on stderr and in the document).
TEST(LockFlow, ThePicksOwnDependenciesAreResolvedWithTheLines) {
  LockRun run("flash-attn[test]==2.8.3\nnumpy\ncausal-conv1d\n");
  FakeLockSteps steps;
  steps.picks["flash-attn"] = candidate("https://h/flash_attn-2.8.3-cp311.whl", kHash);
  steps.picks["causal-conv1d"] = candidate("https://h/causal_conv1d-1.5.0-cp311.whl", kHash);
  steps.dependencies["flash_attn-2.8.3-cp311.whl"] = {"torch",
                                                      "einops>=0.6; python_version >= '3.8'",
                                                      "typing-extensions; python_version < '3.8'",
                                                      "pytest; extra == 'test'",
                                                      "causal-conv1d>=1.2",
                                                      "mamba-ssm"};
  steps.pip = {{"numpy", "2.1.0", "https://p/numpy.whl", kHash, {}},
               {"einops", "0.8.0", "https://p/einops.whl", kOther, {}},
               {"pytest", "8.0.0", "https://p/pytest.whl", kOther, {}}};
  auto out = lock_requirements(steps, run.input);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(steps.deps_read, (std::vector<std::string>{"flash_attn-2.8.3-cp311.whl",
                                                       "causal_conv1d-1.5.0-cp311.whl"}));
  EXPECT_EQ(steps.pip_lines, (std::vector<std::string>{"numpy", "einops", "pytest"}));
  ASSERT_EQ(out->document.installer.size(), 3u);
  EXPECT_EQ(out->document.installer[1].name, "einops");
  const std::string why =
      "flash-attn requires mamba-ssm, which flashfit picks for each environment: not locked; add "
      "a line `mamba-ssm` to the requirements and lock again";
  EXPECT_EQ(out->document.notes, (std::vector<std::string>{why}));
  EXPECT_EQ(run.warnings, (std::vector<std::string>{why}));
  EXPECT_EQ(run.notes, (std::vector<std::string>{
                           "downloading flash_attn-2.8.3-cp311.whl to read its dependencies; "
                           "--no-download leaves them out",
                           "resolving 3 lines with pip (--dry-run --report)"}));
  // With only compiled packages, pip still runs for their dependencies.
  LockRun alone("flash-attn==2.8.3\n");
  steps.pip_lines.clear();
  out = lock_requirements(steps, alone.input);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(steps.pip_lines, (std::vector<std::string>{"einops"}));
  // causal-conv1d is now not in the requirements: not given to pip either.
  ASSERT_EQ(out->document.notes.size(), 2u);
  EXPECT_NE(out->document.notes[0].find("flash-attn requires causal-conv1d>=1.2, which flashfit"),
            std::string::npos)
      << out->document.notes[0];
}

TEST(LockFlow, DependenciesNotReadOrNotHashableAreSaidNotLocked) {
  FakeLockSteps steps;
  steps.picks["flash-attn"] = candidate("https://h/flash_attn-2.8.3-cp311.whl", kHash);
  steps.dependencies["flash_attn-2.8.3-cp311.whl"] = {"einops"};
  {
    // --no-download: the wheel is not here, its METADATA unread.
    LockRun run("flash-attn==2.8.3\n");
    run.input.no_download = true;
    auto out = lock_requirements(steps, run.input);
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_TRUE(steps.pip_lines.empty());
    ASSERT_EQ(out->document.notes.size(), 1u);
    EXPECT_EQ(out->document.notes[0],
              "flash-attn's own dependencies are not locked: its wheel is not on this machine "
              "(--no-download, or --offline with a remote file)");
    EXPECT_EQ(run.warnings, out->document.notes);
  }
  {
    // --offline: a local pick's METADATA is read, but pip would ask an index.
    LockRun run("numpy\nflash-attn==2.8.3\n");
    run.input.sources.offline = true;
    FakeLockSteps local;
    local.picks["flash-attn"] = candidate("/wheels/flash_attn-2.8.3-cp311.whl", kHash);
    local.dependencies["flash_attn-2.8.3-cp311.whl"] = {"einops"};
    local.pip = {{"numpy", "2.1.0", "https://p/numpy.whl", kHash, {}}};
    auto out = lock_requirements(local, run.input);
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(local.pip_lines, (std::vector<std::string>{"numpy"}));
    ASSERT_EQ(out->document.notes.size(), 1u);
    EXPECT_EQ(out->document.notes[0],
              "the compiled packages' own dependencies (einops) are not locked: --offline, and the "
              "installer would ask an index for them");
  }
  {
    // pip's hash-checking mode wants a hash for each: the lines resolve alone.
    LockRun run("numpy==2.1.0 --hash=sha256:" + kHash + "\nflash-attn==2.8.3\n");
    steps.pip = {{"numpy", "2.1.0", "https://p/numpy.whl", kHash, {}}};
    auto out = lock_requirements(steps, run.input);
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(steps.pip_lines, (std::vector<std::string>{"numpy"}));
    ASSERT_EQ(out->document.notes.size(), 1u);
    EXPECT_EQ(out->document.notes[0],
              "the compiled packages' own dependencies (einops) are not locked: the requirements "
              "use pip's hash-checking mode, where each needs a line of its own with its --hash");
  }
  {
    // What-if flags: pip is not asked, the wheel not read; the note says both.
    LockRun run("flash-attn==2.8.3\n");
    run.input.what_if = {"--gpu 8.0"};
    steps.deps_read.clear();
    steps.pip_lines.clear();
    auto out = lock_requirements(steps, run.input);
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_TRUE(steps.deps_read.empty());
    EXPECT_TRUE(steps.pip_lines.empty());
    ASSERT_EQ(out->document.notes.size(), 2u);
    EXPECT_EQ(out->document.notes[1],
              "the compiled packages' own dependencies are not locked: the what-if flags describe "
              "an environment with no interpreter to ask pip in");
  }
}

TEST(LockFlow, APicksRequirementOnTorchOrAnotherPickIsCheckedAtTheEnd) {
  LockRun run("mamba-ssm[causal-conv1d]\ncausal-conv1d\n");
  FakeLockSteps steps;
  const std::string mamba = "mamba_ssm-2.2.4-cp311-cp311-linux_x86_64.whl";
  const std::string conv = "causal_conv1d-1.5.0-cp311-cp311-linux_x86_64.whl";
  steps.picks["mamba-ssm"] = candidate("/wheels/" + mamba, kHash);
  steps.picks["causal-conv1d"] = candidate("https://h/" + conv, kHash);
  steps.dependencies[mamba] = {"torch>=2.4", "einops",
                               "causal-conv1d>=1.6; extra == 'causal-conv1d'"};
  steps.dependencies[conv] = {"torch"};
  const std::string unmet =
      "the picks' own requirements are not met: mamba-ssm 2.2.4's wheel requires "
      "causal-conv1d>=1.6, and the lock picks causal-conv1d 1.5.0";
  auto out = lock_requirements(steps, run.input);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message, unmet);
  EXPECT_EQ(out.error().context, "r.txt:1");
  EXPECT_TRUE(steps.pip_lines.empty());  // checked before pip is asked for einops
  // causal-conv1d's own dependencies not read (--offline, a remote file): its version still counts.
  run.input.sources.offline = true;
  out = lock_requirements(steps, run.input);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message, unmet);
  run.input.sources.offline = false;
  // Met: each torch requirement is said not checked (torch's version is unknown here).
  steps.dependencies[mamba][2] = "causal-conv1d>=1.4; extra == 'causal-conv1d'";
  out = lock_requirements(steps, run.input);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(steps.pip_lines, (std::vector<std::string>{"einops"}));
  EXPECT_EQ(out->document.notes,
            (std::vector<std::string>{
                "mamba-ssm requires torch>=2.4, and torch's version here is not known: not checked",
                "causal-conv1d requires torch, and torch's version here is not known: not "
                "checked"}));
  // torch known, below the wheel's floor:
  run.environment.torch.version = env::Fact<pkg::Version>::of(*pkg::Version::parse("2.3.1"), "t");
  out = lock_requirements(steps, run.input);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message,
            "the picks' own requirements are not met: mamba-ssm 2.2.4's wheel requires torch>=2.4, "
            "and this environment has torch 2.3.1");
}

TEST(LockFlow, PipsFailureAndAResolveErrorAreErrors) {
  {
    LockRun run("numpy\n");
    FakeLockSteps steps;
    steps.pip_error = util::Error{util::ErrorKind::failed, "pip could not resolve", {}, {}};
    auto out = lock_requirements(steps, run.input);
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().message, "pip could not resolve");
  }
  {
    // pip names what it could not meet; the hint says which package asked.
    LockRun run("flash-attn==2.8.3\n");
    FakeLockSteps steps;
    steps.picks["flash-attn"] = candidate("https://h/flash_attn-2.8.3-cp311.whl", kHash);
    steps.dependencies["flash_attn-2.8.3-cp311.whl"] = {"einops>=9"};
    steps.pip_error = util::Error{util::ErrorKind::failed, "no einops>=9", {}, {}};
    auto out = lock_requirements(steps, run.input);
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().message, "no einops>=9");
    EXPECT_NE(out.error().hint.find(
                  "the error may concern one of them: einops>=9 (flash-attn's Requires-Dist)"),
              std::string::npos)
        << out.error().hint;
  }
  {
    LockRun run("flash-attn\n");
    FakeLockSteps steps;  // no pick scripted: the fake's resolve fails
    auto out = lock_requirements(steps, run.input);
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().context, "r.txt:1");
  }
}

}  // namespace
}  // namespace flashfit::workflow
