// The supervisor with real commands: output lines to the callback and the log,
// exit statuses and signals, a missing command, an unwritable log, timeouts,
// Ctrl-C with stopped grandchildren in several process groups, and commands
// that leave processes behind holding the output pipe. "Nothing left" is
// checked with kill(): a process group, and every pid the command reported.
#include "build/supervisor.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../temp_dir.hpp"
#include "build/supervisor_io.hpp"
#include "util/interrupt.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

bool gone(int pid) {
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

bool group_gone(int pgid) {
  return ::kill(-pgid, 0) != 0 && errno == ESRCH;
}

struct Captured {
  std::vector<std::string> lines;
};

SupervisorOptions shell(const test::TempDir& dir, const std::string& script, Captured& captured) {
  SupervisorOptions o;
  o.argv = {"/bin/sh", "-c", script};
  o.log_path = dir.path() / "logs" / "build.log";
  o.on_line = [&captured](std::string_view line) { captured.lines.emplace_back(line); };
  o.grace = std::chrono::milliseconds(500);
  return o;
}

// "pid 123" lines the scripts print: the processes they started.
std::vector<int> reported_pids(const Captured& captured) {
  std::vector<int> pids;
  for (const auto& line : captured.lines) {
    if (line.rfind("pid ", 0) == 0) pids.push_back(std::stoi(line.substr(4)));
  }
  return pids;
}

TEST(Supervisor, LinesOfStdoutAndStderrReachTheCallbackAndTheLog) {
  test::TempDir dir("super");
  Captured c;
  auto o = shell(dir,
                 "echo '[1/3] first'; echo 'oops' >&2; printf 'crlf\\r\\n'; echo; "
                 "echo '[3/3] last'; printf 'no newline'",
                 c);
  const auto run = supervise(o);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_TRUE(run->succeeded());
  EXPECT_EQ(run->exit_code, 0);
  EXPECT_EQ(run->describe(), "exited with status 0");
  EXPECT_EQ(c.lines, (std::vector<std::string>{"[1/3] first", "oops", "crlf", "", "[3/3] last",
                                               "no newline"}));
  EXPECT_EQ(run->lines, 6u);
  EXPECT_EQ(read_file(o.log_path), "[1/3] first\noops\ncrlf\r\n\n[3/3] last\nno newline");
  EXPECT_EQ(run->governor.samples, 0u);
}

TEST(Supervisor, ExitStatusesAndSignalsAreReportedNotFailures) {
  test::TempDir dir("super");
  Captured c;
  const auto three = supervise(shell(dir, "echo before; exit 3", c));
  ASSERT_TRUE(three);
  EXPECT_EQ(three->exit_code, 3);
  EXPECT_FALSE(three->succeeded());
  EXPECT_EQ(three->describe(), "exited with status 3");

  const auto killed = supervise(shell(dir, "kill -9 $$", c));
  ASSERT_TRUE(killed);
  EXPECT_EQ(killed->term_signal, 9);
  EXPECT_FALSE(killed->succeeded());
  EXPECT_NE(killed->describe().find("killed by signal 9"), std::string::npos);
}

TEST(Supervisor, TheEnvironmentAndWorkingDirectoryAreTheCommands) {
  test::TempDir dir("super");
  Captured c;
  auto o =
      shell(dir, "pwd; echo \"$FLASHFIT_TEST_VAR\"; echo \"${HOME-unset}\"; read x || echo eof", c);
  o.cwd = dir.path();
  o.set_env = {{"FLASHFIT_TEST_VAR", "set by test"}};
  o.unset_env = {"HOME"};
  const auto run = supervise(o);
  ASSERT_TRUE(run);
  ASSERT_EQ(c.lines.size(), 4u);
  EXPECT_EQ(fs::canonical(c.lines[0]), fs::canonical(dir.path()));
  EXPECT_EQ(c.lines[1], "set by test");
  EXPECT_EQ(c.lines[2], "unset");
  EXPECT_EQ(c.lines[3], "eof");  // stdin is /dev/null
}

TEST(Supervisor, AMissingCommandOrDirectoryIsAnError) {
  test::TempDir dir("super");
  Captured c;
  auto o = shell(dir, "true", c);
  o.argv = {"flashfit-no-such-program-xyz"};
  auto run = supervise(o);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().kind, util::ErrorKind::input);
  EXPECT_NE(run.error().message.find("flashfit-no-such-program-xyz"), std::string::npos);

  o.argv = {(dir.path() / "missing").string()};
  run = supervise(o);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().kind, util::ErrorKind::input);

  o.argv = {"/bin/true"};
  o.cwd = dir.path() / "no-such-dir";
  run = supervise(o);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().kind, util::ErrorKind::input);

  o.cwd.reset();
  o.argv.clear();
  EXPECT_FALSE(supervise(o));
}

TEST(Supervisor, AnUnwritableLogIsAnErrorBeforeAnythingRuns) {
  test::TempDir dir("super");
  const fs::path marker = dir.path() / "ran";
  Captured c;
  auto o = shell(dir, "touch '" + marker.string() + "'", c);
  { std::ofstream(dir.path() / "file") << "x"; }
  o.log_path = dir.path() / "file" / "build.log";  // below a regular file
  const auto run = supervise(o);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().kind, util::ErrorKind::failed);
  EXPECT_FALSE(fs::exists(marker));
}

TEST(Supervisor, ALogThatFillsUpStopsTheBuildWithAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  test::TempDir dir("super");
  Captured c;
  auto o = shell(dir, "echo pgid $$; sleep 60 & echo pid $!; wait", c);
  o.log_path = "/dev/full";  // every write fails with ENOSPC
  const auto run = supervise(o);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().kind, util::ErrorKind::failed);
  EXPECT_NE(run.error().message.find("log"), std::string::npos);
  ASSERT_FALSE(c.lines.empty());  // the lines still reached the callback
  EXPECT_TRUE(group_gone(std::stoi(c.lines[0].substr(5))));
  for (const int pid : reported_pids(c)) EXPECT_TRUE(gone(pid)) << pid;
}

TEST(Supervisor, LongLinesAreCutForTheCallbackAndKeptWholeInTheLog) {
  test::TempDir dir("super");
  Captured c;
  auto o = shell(dir,
                 "head -c 200000 /dev/zero | tr '\\0' a; echo; echo after; head -c 70000 /dev/zero "
                 "| tr '\\0' b",
                 c);
  const auto run = supervise(o);
  ASSERT_TRUE(run);
  ASSERT_EQ(c.lines.size(), 3u);
  EXPECT_EQ(c.lines[0], std::string(LineSplitter::kMaxLine, 'a'));
  EXPECT_EQ(c.lines[1], "after");
  EXPECT_EQ(c.lines[2], std::string(LineSplitter::kMaxLine, 'b'));
  EXPECT_EQ(read_file(o.log_path),
            std::string(200000, 'a') + "\nafter\n" + std::string(70000, 'b'));
}

TEST(Supervisor, LineSplitterHandlesEveryChunking) {
  std::vector<std::string> lines;
  LineSplitter s([&](std::string_view l) { lines.emplace_back(l); }, 4);
  for (char ch : std::string("ab\ncdef\nghijkl\n\nmn")) s.feed(std::string_view(&ch, 1));
  s.finish();
  EXPECT_EQ(lines, (std::vector<std::string>{"ab", "cdef", "ghij", "", "mn"}));
  lines.clear();
  LineSplitter whole([&](std::string_view l) { lines.emplace_back(l); }, 4);
  whole.feed("ab\ncdef\nghijkl\n\nmn");
  whole.finish();
  whole.finish();  // twice: nothing more
  EXPECT_EQ(lines, (std::vector<std::string>{"ab", "cdef", "ghij", "", "mn"}));
}

TEST(Supervisor, ATimeoutStopsTheWholeBuild) {
  test::TempDir dir("super");
  Captured c;
  auto o = shell(dir,
                 "echo pgid $$; sleep 60 & echo pid $!; "
                 "perl -e 'setpgrp(0, 0); exec @ARGV' sleep 60 & echo pid $!; echo ready; wait",
                 c);
  o.timeout = std::chrono::milliseconds(300);
  const auto run = supervise(o);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_TRUE(run->timed_out);
  EXPECT_FALSE(run->succeeded());
  EXPECT_NE(run->describe().find("timed out"), std::string::npos);
  ASSERT_FALSE(c.lines.empty());
  const int pgid = std::stoi(c.lines[0].substr(5));
  EXPECT_TRUE(group_gone(pgid));
  for (const int pid : reported_pids(c)) EXPECT_TRUE(gone(pid)) << pid;
}

TEST(Supervisor, InterruptStopsStoppedGrandchildrenInEveryGroupAndKeepsTheLog) {
  test::TempDir dir("super");
  Captured c;
  std::atomic<bool> ready{false};
  // Stopped sleeps in the root's group and in a group of their own, and one
  // that ignores SIGTERM (SIGKILL after the grace gets it).
  auto o = shell(dir,
                 "echo pgid $$; "
                 "sleep 60 & echo pid $!; kill -STOP $!; "
                 "perl -e 'setpgrp(0, 0); exec @ARGV' sleep 61 & p=$!; echo pid $p; "
                 "(trap '' TERM; exec sleep 62) & echo pid $!; "
                 "sleep 0.3; kill -STOP $p; echo ready; wait",
                 c);
  o.on_line = [&](std::string_view line) {
    c.lines.emplace_back(line);
    if (line == "ready") ready = true;
  };
  std::thread ctrl_c([&] {
    while (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    util::set_interrupted(true);
  });
  const auto run = supervise(o);
  ctrl_c.join();
  util::set_interrupted(false);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().kind, util::ErrorKind::interrupted);
  ASSERT_GE(c.lines.size(), 5u);
  const int pgid = std::stoi(c.lines[0].substr(5));
  EXPECT_TRUE(group_gone(pgid));
  const auto pids = reported_pids(c);
  EXPECT_EQ(pids.size(), 3u);
  for (const int pid : pids) EXPECT_TRUE(gone(pid)) << pid;
  const std::string log = read_file(o.log_path);
  EXPECT_NE(log.find("ready\n"), std::string::npos);
}

TEST(Supervisor, ProcessesLeftBehindHoldingThePipeAreStoppedWhenTheCommandExits) {
  test::TempDir dir("super");
  Captured c;
  // The command exits at once; a background sleep holds the output pipe.
  auto o = shell(dir, "echo pgid $$; sleep 60 & echo pid $!; echo bye", c);
  o.grace = std::chrono::milliseconds(5000);  // SIGTERM is enough: no wait for the grace
  const auto run = supervise(o);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->exit_code, 0);
  EXPECT_EQ(c.lines.back(), "bye");
  EXPECT_TRUE(group_gone(std::stoi(c.lines[0].substr(5))));
  for (const int pid : reported_pids(c)) EXPECT_TRUE(gone(pid)) << pid;
}

TEST(Supervisor, ADaemonThatLeftTheSessionDoesNotHoldTheRunOpen) {
  test::TempDir dir("super");
  Captured c;
  // setsid: out of the build's session, out of reach, still holding the pipe.
  auto o = shell(dir, "setsid sleep 30 & echo pid $!; echo bye", c);
  const auto run = supervise(o);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->exit_code, 0);
  const auto pids = reported_pids(c);
  ASSERT_EQ(pids.size(), 1u);
  ::kill(pids[0], SIGKILL);
}

TEST(Supervisor, StopProcessGroupEndsAGroupWithStoppedMembers) {
  test::TempDir dir("super");
  Captured c;
  // Started by hand: a group whose root is not our child to wait for here.
  std::thread runner;
  std::atomic<int> pgid{0};
  auto o = shell(dir, "echo pgid $$; sleep 60 & kill -STOP $!; echo pid $!; echo ready; wait", c);
  o.on_line = [&](std::string_view line) {
    c.lines.emplace_back(line);
    if (line.rfind("pgid ", 0) == 0) pgid = std::stoi(std::string(line.substr(5)));
  };
  runner = std::thread([&] { (void)supervise(o); });
  while (pgid == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(stop_process_group(pgid, std::chrono::milliseconds(500)));
  runner.join();
  EXPECT_TRUE(group_gone(pgid));
  EXPECT_FALSE(stop_process_group(0, std::chrono::milliseconds(1)));
  EXPECT_FALSE(stop_process_group(1, std::chrono::milliseconds(1)));
}

TEST(Supervisor, PeakMemoryIsSampledWithoutAGovernor) {
  test::TempDir dir("super");
  Captured c;
  auto o = shell(dir, std::string(FLASHFIT_FIXTURE_MEMHOG) + " 64 0 600", c);
  const auto run = supervise(o);
  ASSERT_TRUE(run);
  EXPECT_TRUE(run->succeeded());
  EXPECT_GE(run->peak_group_bytes, std::uint64_t{64} << 20);
  EXPECT_EQ(c.lines.size(), 2u);  // memhog's start and done lines
}

}  // namespace
}  // namespace flashfit::build
