#include "util/process.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <csignal>
#include <memory>
#include <string_view>

#include "util/child.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"
#include "util/verbosity.hpp"

namespace flashfit::util {
namespace {

using Clock = std::chrono::steady_clock;

void append_capped(std::string& sink, std::string_view data, std::size_t cap, bool& truncated) {
  const std::size_t room = sink.size() < cap ? cap - sink.size() : 0;
  if (data.size() > room) truncated = true;
  sink.append(data.data(), std::min(data.size(), room));
}

Result<Child> spawn(const ProcessSpec& spec, bool stdin_pipe) {
  if (spec.argv.empty() || spec.argv[0].empty()) {
    return fail(ErrorKind::internal, "run_process called without a program");
  }
  ChildSpec child_spec;
  child_spec.argv = spec.argv;
  child_spec.cwd = spec.cwd;
  child_spec.set_env = spec.set_env;
  child_spec.unset_env = spec.unset_env;
  child_spec.stdin_pipe = stdin_pipe;
  child_spec.output_to_files = spec.output_to_files;
  return Child::spawn(child_spec);
}

// Waits for `child` to end (spec's timeout counted from now), collecting its output.
Result<ProcessResult> wait_for(Child& child, const ProcessSpec& spec) {
  RunClock clock(spec.timeout, spec.grace);
  ProcessResult result;
  bool killed = false;
  Clock::time_point exited_at{};
  const Child::Sink sink = [&](ChildStream stream, std::string_view data) {
    append_capped(stream == ChildStream::out ? result.out : result.err, data, spec.max_output,
                  result.output_truncated);
  };

  while (true) {
    // Short slices so the interrupt flag and the deadline are seen promptly.
    child.wait(std::chrono::milliseconds(100), sink);
    const bool exited = child.try_reap();
    if (exited && !child.output_open()) break;
    const auto now = Clock::now();
    // A child that exited but left a descendant holding the pipes open (a
    // daemon): collect output for one grace period more, then stop waiting.
    if (exited) {
      if (exited_at == Clock::time_point{}) exited_at = now;
      if (clock.stopping() || now - exited_at >= spec.grace) break;
    }
    if (!clock.stopping()) {
      if (const auto cause = clock.due(now); cause != RunClock::Cause::none) {
        result.timed_out = cause == RunClock::Cause::timed_out;
        ::kill(-child.pid(), SIGTERM);
        clock.begin_stop(cause, now);
      }
    } else if (!killed && clock.grace_over(now)) {
      ::kill(-child.pid(), SIGKILL);
      killed = true;
    }
  }

  child.read_output_files(sink);
  result.elapsed = clock.elapsed();
  const int status = child.status();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  if (clock.stopping()) ::kill(-child.pid(), SIGKILL);  // whatever is left of the group
  if (interrupted()) {
    return fail(ErrorKind::interrupted, "interrupted while running '" + spec.argv[0] + "'");
  }
  return result;
}

}  // namespace

std::string ProcessResult::describe() const {
  return describe_exit(exit_code, term_signal, timed_out, elapsed);
}

short reset_child_signals(posix_spawnattr_t& attr) {
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  return POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
}

Result<ProcessResult> run_process(const ProcessSpec& spec) {
  // --verbose: each child's command line, outcome and time.
  std::string line = "run:";
  for (const auto& arg : spec.argv) line += " " + printable(arg, 120);
  TraceSpan span(std::move(line));
  auto result = [&]() -> Result<ProcessResult> {
    auto child = spawn(spec, spec.stdin_data.has_value());
    if (!child) return tl::unexpected(child.error());
    if (spec.stdin_data) child->set_stdin(*spec.stdin_data);
    return wait_for(*child, spec);
  }();
  span.set_outcome(result ? result->describe() : result.error().message);
  return result;
}

Result<StartedProcess> StartedProcess::start(ProcessSpec spec) {
  auto child = spawn(spec, true);
  if (!child) return tl::unexpected(child.error());
  return StartedProcess(std::move(spec), std::move(*child));
}

StartedProcess::StartedProcess(ProcessSpec spec, Child child)
    : spec_(std::move(spec)), child_(std::make_unique<Child>(std::move(child))) {}
StartedProcess::StartedProcess(StartedProcess&&) noexcept = default;
StartedProcess& StartedProcess::operator=(StartedProcess&&) noexcept = default;
StartedProcess::~StartedProcess() = default;

Result<ProcessResult> StartedProcess::finish(std::string input,
                                             std::optional<std::chrono::milliseconds> timeout) {
  if (!child_) return fail(ErrorKind::internal, "a started process was finished twice");
  std::string line = "run (started earlier):";
  for (const auto& arg : spec_.argv) line += " " + printable(arg, 120);
  TraceSpan span(std::move(line));
  child_->set_stdin(std::move(input));
  if (timeout) spec_.timeout = *timeout;
  auto result = wait_for(*child_, spec_);
  child_.reset();
  span.set_outcome(result ? result->describe() : result.error().message);
  return result;
}

}  // namespace flashfit::util
