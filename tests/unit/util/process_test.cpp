#include "util/process.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "util/interrupt.hpp"

using namespace std::chrono_literals;
using flashfit::util::ErrorKind;
using flashfit::util::ProcessSpec;
using flashfit::util::run_process;

namespace {

ProcessSpec command(std::vector<std::string> argv) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  return spec;
}

ProcessSpec shell(std::string script) {
  return command({"/bin/sh", "-c", std::move(script)});
}

// Running, as opposed to gone or a zombie waiting for its (re)parent to reap it.
bool process_running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto close_paren = line.rfind(')');
  return close_paren != std::string::npos && close_paren + 2 < line.size() &&
         line[close_paren + 2] != 'Z';
}

// The group is signalled as the call returns; death is asynchronous, so look
// for a bounded while before concluding that a process survived.
bool stays_running(pid_t pid) {
  for (int i = 0; i < 50; ++i) {
    if (!process_running(pid)) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

}  // namespace

TEST(Process, CapturesBothStreamsAndExitStatus) {
  auto r = run_process(shell("echo out; echo err >&2; exit 3"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_FALSE(r->succeeded());
  EXPECT_EQ(r->describe(), "exited with status 3");
}

TEST(Process, StdinIsDevNullUnlessDataIsGiven) {
  auto empty = run_process(shell("cat; echo done"));
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->out, "done\n");

  auto spec = shell("tr a-z A-Z");
  spec.stdin_data = std::string(200000, 'x');  // bigger than a pipe buffer
  auto fed = run_process(spec);
  ASSERT_TRUE(fed);
  EXPECT_EQ(fed->out, std::string(200000, 'X'));
}

TEST(Process, ChildThatStopsReadingStdinDoesNotHangOrKillUs) {
  auto spec = shell("head -c 10 >/dev/null; echo ok");
  spec.stdin_data = std::string(1 << 20, 'y');
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, "ok\n");
}

TEST(Process, ReportsTheSignalThatEndedTheChild) {
  auto r = run_process(shell("kill -9 $$"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->term_signal, 9);
  EXPECT_NE(r->describe().find("killed by signal 9"), std::string::npos);
}

TEST(Process, MissingProgramIsAnInputErrorWithAHint) {
  auto r = run_process(command({"flashfit-no-such-program-xyz"}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::input);
  EXPECT_NE(r.error().message.find("flashfit-no-such-program-xyz"), std::string::npos);
  EXPECT_FALSE(r.error().hint.empty());
}

TEST(Process, TimeoutEndsTheWholeProcessGroup) {
  // The shell starts a grandchild and reports its pid; both must be gone after the timeout.
  auto spec = shell("sleep 30 & echo $!; wait");
  spec.timeout = 300ms;
  spec.grace = 200ms;
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->timed_out);
  EXPECT_FALSE(r->succeeded());
  const pid_t grandchild = std::stoi(r->out);
  EXPECT_FALSE(stays_running(grandchild)) << "grandchild " << grandchild << " survived";
}

TEST(Process, ChildIgnoringSigtermIsKilledAfterTheGrace) {
  auto spec = shell("trap '' TERM; sleep 30");
  spec.timeout = 200ms;
  spec.grace = 200ms;
  const auto start = std::chrono::steady_clock::now();
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);  // bounded, not a timing assertion
}

TEST(Process, OutputBeyondTheCapIsDroppedAndFlagged) {
  auto spec = shell("head -c 300000 /dev/zero");
  spec.max_output = 1000;
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out.size(), 1000u);
  EXPECT_TRUE(r->output_truncated);
  EXPECT_EQ(r->exit_code, 0);
}

// The installer's output goes to unlinked files, so that a SIGKILLed flashfit
// leaves it no broken pipe to die of; the same bytes come back.
TEST(Process, OutputToFilesIsNoPipeAndComesBackWhole) {
  const std::string script =
      "if [ -p /dev/stdout ]; then echo pipe; else echo file; fi; echo err >&2; exit 2";
  auto piped = run_process(shell(script));
  ASSERT_TRUE(piped) << piped.error().message;
  EXPECT_EQ(piped->out, "pipe\n");  // the default, for contrast
  auto spec = shell(script);
  spec.output_to_files = true;
  auto r = run_process(spec);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->out, "file\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_EQ(r->exit_code, 2);
}

TEST(Process, OutputToFilesKeepsTheCapAndLargeOutput) {
  auto spec = shell("head -c 300000 /dev/zero; head -c 70000 /dev/zero >&2");
  spec.output_to_files = true;
  spec.max_output = 100000;
  auto r = run_process(spec);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->out.size(), 100000u);
  EXPECT_EQ(r->err.size(), 70000u);
  EXPECT_TRUE(r->output_truncated);
}

TEST(Process, EnvironmentAndWorkingDirectory) {
  ::setenv("FLASHFIT_TEST_UNSET_ME", "present", 1);
  auto spec = shell("echo \"$FLASHFIT_TEST_SET|${FLASHFIT_TEST_UNSET_ME:-gone}|$(pwd)\"");
  spec.set_env = {{"FLASHFIT_TEST_SET", "value with spaces"}};
  spec.unset_env = {"FLASHFIT_TEST_UNSET_ME"};
  spec.cwd = "/tmp";
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, "value with spaces|gone|/tmp\n");
}

TEST(Process, DaemonHoldingThePipesDoesNotBlockForever) {
  // The daemon reports its pid so the test can end it: no sleeper outlives the suite.
  auto spec = shell("(sleep 30 & echo $!) ; echo started");
  spec.grace = 200ms;
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  const auto newline = r->out.find('\n');
  ASSERT_NE(newline, std::string::npos);
  const pid_t daemon = std::stoi(r->out.substr(0, newline));
  ::kill(daemon, SIGKILL);
  EXPECT_EQ(r->out.substr(newline + 1), "started\n");
  EXPECT_EQ(r->exit_code, 0);
}

TEST(Process, InterruptStopsTheChildAndIsReportedAsInterrupted) {
  auto spec = shell("sleep 30");
  spec.grace = 200ms;
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(200ms);
    flashfit::util::set_interrupted(true);
  });
  auto r = run_process(spec);
  ctrl_c.join();
  flashfit::util::set_interrupted(false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::interrupted);
}

TEST(StartedProcess, RunsWhileTheCallerWorksThenReadsItsInput) {
  // The child does its slow start before reading stdin; finish() gives it the rest.
  auto started = flashfit::util::StartedProcess::start(
      shell("echo warming >&2; read line; echo \"got $line\"; exit 4"));
  ASSERT_TRUE(started) << started.error().message;
  auto r = started->finish("the modules\n");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->out, "got the modules\n");
  EXPECT_EQ(r->err, "warming\n");
  EXPECT_EQ(r->exit_code, 4);
  auto again = started->finish("twice\n");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().kind, ErrorKind::internal);
}

TEST(StartedProcess, TheTimeoutCountsFromFinish) {
  ProcessSpec spec = shell("read line; sleep 30");
  spec.timeout = 300ms;
  spec.grace = 100ms;
  auto started = flashfit::util::StartedProcess::start(spec);
  ASSERT_TRUE(started) << started.error().message;
  std::this_thread::sleep_for(400ms);  // longer than the timeout: it has not started counting
  auto r = started->finish("go\n");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->timed_out);
  EXPECT_FALSE(r->succeeded());
}

TEST(StartedProcess, FinishCanSetTheTimeout) {
  auto started = flashfit::util::StartedProcess::start(shell("read line; sleep 30"));
  ASSERT_TRUE(started) << started.error().message;
  auto r = started->finish("go\n", 300ms);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->timed_out);
  EXPECT_LT(r->elapsed, 10s);
}

TEST(StartedProcess, OneNeverFinishedIsEndedWithItsGroup) {
  const std::string pid_file = "/tmp/flashfit-started-" + std::to_string(::getpid()) + ".pid";
  std::remove(pid_file.c_str());
  pid_t pid = 0;
  {
    auto started =
        flashfit::util::StartedProcess::start(shell("echo $$ > " + pid_file + "; sleep 30 & wait"));
    ASSERT_TRUE(started) << started.error().message;
    for (int i = 0; i < 500 && pid <= 0; ++i) {
      std::this_thread::sleep_for(10ms);
      std::ifstream(pid_file) >> pid;
    }
  }
  std::remove(pid_file.c_str());
  ASSERT_GT(pid, 0);
  EXPECT_FALSE(stays_running(pid));
}
