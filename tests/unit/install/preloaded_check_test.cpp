// The import check's request and answer (pure), and the rule that decides
// whether an interpreter started before the installer ran may answer for it.
// The real interpreter's evidence is tested end to end in
// tests/integration/test_install_preload.sh.
#include "install/preloaded_check.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "../temp_dir.hpp"
#include "install/import_check.hpp"
#include "util/process.hpp"

namespace flashfit::install {
namespace {

util::ProcessResult exited(std::string out, int code = 0) {
  util::ProcessResult run;
  run.exit_code = code;
  run.out = std::move(out);
  return run;
}

ImportCheckOptions options(std::vector<std::string> modules, bool gpu = false) {
  ImportCheckOptions o;
  o.python = "/venv/bin/python";
  o.modules = std::move(modules);
  o.gpu_present = gpu;
  return o;
}

TEST(ImportCheckRequest, NamesTheSmokeTestThenTheModules) {
  EXPECT_EQ(check_request(options({"ffinst", "ffinst._C"})), "-\tffinst\tffinst._C\n");
  EXPECT_EQ(check_request(options({"flash_attn_2_cuda"}, true)), "flash-attn\tflash_attn_2_cuda\n");
  // The smoke test needs a GPU and flash-attn's module.
  EXPECT_EQ(check_request(options({"flash_attn_2_cuda"}, false)), "-\tflash_attn_2_cuda\n");
  EXPECT_EQ(check_request(options({})), "-\n");
}

TEST(ImportCheckProcess, SaysWhetherItImportsTorchAndWhetherItIsPreloaded) {
  const util::ProcessSpec fresh = check_process("/venv/bin/python", false, false);
  ASSERT_EQ(fresh.argv.size(), 5U);
  EXPECT_EQ(fresh.argv[0], "/venv/bin/python");
  EXPECT_EQ(fresh.argv[3], "-");
  EXPECT_EQ(fresh.argv[4], "fresh");
  const util::ProcessSpec preloaded = check_process("/venv/bin/python", true, true);
  EXPECT_EQ(preloaded.argv[3], "torch");
  EXPECT_EQ(preloaded.argv[4], "preloaded");
  // When it was started, ns since the epoch: a file changed later is newer than that.
  ASSERT_EQ(preloaded.argv.size(), 6U);
  const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const long long started = std::stoll(preloaded.argv[5]);
  EXPECT_LE(started, now);
  EXPECT_GT(started, now - 60LL * 1000 * 1000 * 1000);
  EXPECT_EQ(preloaded.cwd, std::filesystem::path("/"));
}

TEST(ImportCheckAnswer, ACompleteAnswer) {
  auto answer = read_check_output(
      exited("torch\t1.13.1\tok\nmodule\tffinst\tok\nmodule\tffinst._C\tImportError: undefined "
             "symbol: _ZN3c10\n"),
      options({"ffinst", "ffinst._C"}));
  EXPECT_TRUE(answer.complete);
  EXPECT_FALSE(answer.stale);
  EXPECT_TRUE(answer.check.torch_ok);
  EXPECT_EQ(answer.check.torch_version, "1.13.1");
  ASSERT_EQ(answer.check.modules.size(), 2U);
  EXPECT_FALSE(answer.check.modules[1].ok);
  EXPECT_FALSE(answer.check.ok());
  EXPECT_EQ(answer.check.first_failure(),
            "import ffinst._C: ImportError: undefined symbol: _ZN3c10");
}

TEST(ImportCheckAnswer, AStaleOneImportedNothing) {
  auto answer =
      read_check_output(exited("stale\t-\t/x/torch/version.py changed\n"), options({"ffinst"}));
  ASSERT_TRUE(answer.stale);
  EXPECT_EQ(*answer.stale, "/x/torch/version.py changed");
  EXPECT_FALSE(answer.complete);
  EXPECT_TRUE(answer.check.modules.empty());
}

TEST(ImportCheckAnswer, ACrashLeavesTheMissingModulesFailed) {
  util::ProcessResult run = exited("torch\t1.13.1\tok\n", -1);
  run.term_signal = 11;
  run.err = "Segmentation fault";
  auto answer = read_check_output(run, options({"ffinst"}));
  EXPECT_FALSE(answer.complete);
  ASSERT_EQ(answer.check.modules.size(), 1U);
  EXPECT_FALSE(answer.check.modules[0].ok);
  EXPECT_NE(answer.check.modules[0].error.find("killed by signal 11"), std::string::npos)
      << answer.check.modules[0].error;
  // torch did import: its result stands.
  EXPECT_TRUE(answer.check.torch_ok);
}

TEST(ImportCheckAnswer, NoTorchLineIsIncomplete) {
  auto answer = read_check_output(exited("module\tffinst\tok\n"), options({"ffinst"}));
  EXPECT_FALSE(answer.complete);
  EXPECT_FALSE(answer.check.torch_ok);
  EXPECT_FALSE(answer.check.torch_error.empty());
}

CheckAnswer good() {
  return read_check_output(exited("torch\t1.13.1\tok\nmodule\tffinst\tok\n"), options({"ffinst"}));
}

TEST(PreloadSetAside, ItsAnswerStandsWhenNothingChanged) {
  EXPECT_EQ(preload_set_aside(good(), true, true), std::nullopt);
  EXPECT_EQ(preload_set_aside(good(), false, true), std::nullopt);
}

TEST(PreloadSetAside, TorchsFilesChangedWhatEverTheInterpreterSays) {
  auto why = preload_set_aside(good(), true, false);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "torch's files changed while the installer ran");
  // Even for a package checked without torch: its modules may load torch's libraries.
  EXPECT_TRUE(preload_set_aside(good(), false, false));
}

TEST(PreloadSetAside, TheInterpretersOwnEvidence) {
  CheckAnswer stale = good();
  stale.stale = "/venv/lib/python3.11/site-packages/x.pth appeared";
  auto why = preload_set_aside(stale, true, true);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "what it had loaded changed: /venv/lib/python3.11/site-packages/x.pth appeared");
}

TEST(PreloadSetAside, TorchThatDidNotImportAtStartMayBeThereNow) {
  auto answer = read_check_output(
      exited("torch\t\tModuleNotFoundError: No module named 'torch'\nmodule\tffinst\tok\n"),
      options({"ffinst"}));
  ASSERT_TRUE(answer.complete);
  auto why = preload_set_aside(answer, true, true);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "torch did not import when it started");
  // Not asked to import torch: "ok" is what the script says, and nothing is redone.
  EXPECT_EQ(preload_set_aside(good(), false, true), std::nullopt);
}

TEST(PreloadSetAside, AnIncompleteAnswerIsRedone) {
  // A crash after torch: the fresh interpreter's answer is the one to trust.
  util::ProcessResult crashed = exited("torch\t1.13.1\tok\n");
  crashed.exit_code = -1;
  crashed.term_signal = 11;
  auto answer = read_check_output(crashed, options({"ffinst"}));
  auto why = preload_set_aside(answer, true, true);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "it did not answer in full");
  // A timeout before it proved itself current (no torch line yet): redone
  // (without torch to import, the script still says torch's line first).
  util::ProcessResult early = exited("");
  early.exit_code = -1;
  early.timed_out = true;
  answer = read_check_output(early, options({"ffinst"}));
  EXPECT_EQ(preload_set_aside(answer, false, true), "it did not answer in full");
  EXPECT_EQ(preload_set_aside(answer, true, true), "torch did not import when it started");
}

// A module whose import hangs past the timeout, after the interpreter proved
// nothing it had loaded changed: a fresh one would hang as long; the answer
// (that module failed, timed out) stands instead of a second full timeout.
TEST(PreloadSetAside, AHangAfterTheProofIsTheAnswer) {
  util::ProcessResult run = exited("torch\t1.13.1\tok\n");
  run.exit_code = -1;
  run.timed_out = true;
  auto answer = read_check_output(run, options({"ffinst"}));
  EXPECT_FALSE(answer.complete);
  EXPECT_EQ(preload_set_aside(answer, true, true), std::nullopt);
  ASSERT_EQ(answer.check.modules.size(), 1u);
  EXPECT_FALSE(answer.check.modules[0].ok);
  EXPECT_NE(answer.check.modules[0].error.find("timed out"), std::string::npos)
      << answer.check.modules[0].error;
  // torch's files changed: set aside all the same.
  EXPECT_TRUE(preload_set_aside(answer, true, false));
}

// The interpreter's own evidence, with a real interpreter: started "now" it
// loaded nothing newer than itself; told it started at the epoch, every file
// it loaded is newer than that, as a file replaced while it was importing
// would be, and it imports nothing.
TEST(PreloadedInterpreter, AFileNewerThanTheInterpreterMakesItStale) {
  const ImportCheckOptions check{
      FLASHFIT_TEST_PYTHON, {"json"}, false, false, std::chrono::seconds{60}};
  util::ProcessSpec spec = check_process(FLASHFIT_TEST_PYTHON, false, true);
  spec.timeout = check.timeout;
  auto now = util::StartedProcess::start(spec);
  ASSERT_TRUE(now) << now.error().message;
  auto run = now->finish(check_request(check));
  ASSERT_TRUE(run) << run.error().message;
  CheckAnswer answer = read_check_output(*run, check);
  EXPECT_FALSE(answer.stale) << *answer.stale;
  EXPECT_TRUE(answer.complete) << run->out << run->err;
  EXPECT_TRUE(answer.check.ok());

  spec.argv.back() = "0";
  auto epoch = util::StartedProcess::start(spec);
  ASSERT_TRUE(epoch) << epoch.error().message;
  run = epoch->finish(check_request(check));
  ASSERT_TRUE(run) << run.error().message;
  answer = read_check_output(*run, check);
  ASSERT_TRUE(answer.stale) << run->out << run->err;
  EXPECT_NE(answer.stale->find("changed after the check's interpreter started"), std::string::npos)
      << *answer.stale;
  EXPECT_TRUE(answer.check.modules.empty());  // it imported nothing
}

// A real interpreter (Debian's python3): a library it mapped at startup and
// that was replaced by a new file before its first snapshot shows in
// /proc/self/maps as "PATH (deleted)" with the same identity (none) in both
// snapshots; it is stale all the same, since a fresh interpreter would load
// the new file. sitecustomize (imported at startup) maps a copy of libz and
// replaces it, as an installer upgrading a library torch loaded would.
TEST(ImportCheckInterpreter, ALibraryReplacedBeforeTheSnapshotIsStale) {
  test::TempDir dir("preload");
  const std::string lib = (dir.path() / "libreplaced.so").string();
  test::write(dir.path() / "sitecustomize.py",
              "import ctypes, os, shutil\n"
              "shutil.copyfile('/usr/lib/x86_64-linux-gnu/libz.so.1', '" +
                  lib +
                  "')\n"
                  "ctypes.CDLL('" +
                  lib +
                  "')\n"
                  "shutil.copyfile('/usr/lib/x86_64-linux-gnu/libz.so.1', '" +
                  lib +
                  ".new')\n"
                  "os.replace('" +
                  lib + ".new', '" + lib + "')\n");
  // Started after sitecustomize.py is written (a file newer than the
  // interpreter is stale for another reason).
  const auto check = [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
    util::ProcessSpec spec = check_process("/usr/bin/python3", false, true);
    spec.set_env.emplace_back("PYTHONPATH", dir.path().string());
    spec.stdin_data = check_request(options({"json"}));
    spec.timeout = std::chrono::seconds{60};
    return util::run_process(spec);
  };
  auto run = check();
  ASSERT_TRUE(run) << run.error().message;
  auto answer = read_check_output(*run, options({"json"}));
  ASSERT_TRUE(answer.stale) << run->out << run->err;
  EXPECT_EQ(*answer.stale, lib + " was replaced after the interpreter loaded it");

  // The same interpreter with nothing replaced answers.
  test::write(dir.path() / "sitecustomize.py", "");
  auto plain = check();
  ASSERT_TRUE(plain) << plain.error().message;
  auto answered = read_check_output(*plain, options({"json"}));
  EXPECT_FALSE(answered.stale) << *answered.stale;
  EXPECT_TRUE(answered.complete) << plain->out << plain->err;
}

}  // namespace
}  // namespace flashfit::install
