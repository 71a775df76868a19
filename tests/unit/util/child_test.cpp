// The child-process engine that run_process and the build supervisor share:
// the spawn's options, the wait's reads and stdin writes, the clock.
#include "util/child.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

using namespace std::chrono_literals;
using flashfit::util::Child;
using flashfit::util::ChildSpec;
using flashfit::util::ChildStream;
using flashfit::util::RunClock;

namespace {

struct Collected {
  std::string out, err;
};

// Waits until the child exited and both pipes reached EOF (bounded).
Collected run(Child& child) {
  Collected c;
  const Child::Sink sink = [&](ChildStream s, std::string_view data) {
    (s == ChildStream::out ? c.out : c.err).append(data);
  };
  for (int i = 0; i < 200 && (child.output_open() || !child.try_reap()); ++i)
    child.wait(50ms, sink);
  return c;
}

ChildSpec shell(std::string script) {
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", std::move(script)};
  return spec;
}

}  // namespace

TEST(Child, SeparateOrMergedOutput) {
  auto separate = Child::spawn(shell("echo out; echo err >&2; exit 4"));
  ASSERT_TRUE(separate) << separate.error().message;
  Collected a = run(*separate);
  EXPECT_EQ(a.out, "out\n");
  EXPECT_EQ(a.err, "err\n");
  ASSERT_TRUE(separate->reaped());
  EXPECT_EQ(WEXITSTATUS(separate->status()), 4);

  ChildSpec spec = shell("echo one; echo two >&2; echo three");
  spec.merge_output = true;
  auto merged = Child::spawn(spec);
  ASSERT_TRUE(merged);
  Collected b = run(*merged);
  EXPECT_EQ(b.out, "one\ntwo\nthree\n");  // one stream, in order
  EXPECT_EQ(b.err, "");
}

TEST(Child, OwnGroupOrOwnSession) {
  auto group = Child::spawn(shell("ps -o pgid= -o sid= -p $$"));
  ASSERT_TRUE(group);
  const std::string g = run(*group).out;
  EXPECT_EQ(std::stoi(g), group->pid()) << g;  // leads a process group of its own
  EXPECT_EQ(std::stoi(g.substr(g.find_first_not_of(' ', g.find(' ', g.find_first_not_of(' '))))),
            ::getsid(0))
      << g;  // in flashfit's session still

  ChildSpec spec = shell("ps -o sid= -p $$");
  spec.own_session = true;
  auto session = Child::spawn(spec);
  ASSERT_TRUE(session);
  const std::string sid = run(*session).out;
  EXPECT_EQ(std::stoi(sid), session->pid()) << sid;  // leads a session of its own
}

TEST(Child, StdinDataIsWrittenAndClosed) {
  ChildSpec spec = shell("wc -c");
  spec.stdin_pipe = true;
  auto child = Child::spawn(spec);
  ASSERT_TRUE(child);
  child->set_stdin(std::string(300000, 'x'));  // more than a pipe holds
  EXPECT_EQ(std::stoi(run(*child).out), 300000);
}

TEST(Child, AMissingProgramIsAnInputError) {
  ChildSpec spec;
  spec.argv = {"flashfit-no-such-program"};
  auto child = Child::spawn(spec);
  ASSERT_FALSE(child);
  EXPECT_EQ(child.error().kind, flashfit::util::ErrorKind::input);
  spec.argv = {};
  EXPECT_EQ(Child::spawn(spec).error().kind, flashfit::util::ErrorKind::internal);
}

TEST(Child, DestroyingAnUnreapedChildEndsIt) {
  pid_t pid = -1;
  {
    auto child = Child::spawn(shell("sleep 30"));
    ASSERT_TRUE(child);
    pid = child->pid();
    Child moved(std::move(*child));  // the moved-from one owns nothing
  }
  EXPECT_NE(::kill(pid, 0), 0);  // killed and reaped: no such process
}

TEST(RunClock, TimeoutAndTheStopSequence) {
  RunClock none(0ms, 50ms);
  EXPECT_EQ(none.due(RunClock::Clock::now() + 24h), RunClock::Cause::none);
  RunClock clock(100ms, 50ms);
  const auto t0 = clock.started();
  EXPECT_EQ(clock.due(t0 + 99ms), RunClock::Cause::none);
  EXPECT_EQ(clock.due(t0 + 100ms), RunClock::Cause::timed_out);
  EXPECT_FALSE(clock.stopping());
  clock.begin_stop(RunClock::Cause::timed_out, t0 + 100ms);
  EXPECT_TRUE(clock.stopping());
  EXPECT_FALSE(clock.grace_over(t0 + 149ms));
  EXPECT_TRUE(clock.grace_over(t0 + 150ms));
  EXPECT_EQ(clock.since_stop(t0 + 130ms), 30ms);
}

TEST(RunClock, OneWordingOfHowAChildEnded) {
  EXPECT_EQ(flashfit::util::describe_exit(3, 0, false, 0ms), "exited with status 3");
  EXPECT_EQ(flashfit::util::describe_exit(-1, 9, false, 0ms), "killed by signal 9 (Killed)");
  EXPECT_EQ(flashfit::util::describe_exit(-1, 15, true, 5040ms), "timed out after 5.0 s");
}
