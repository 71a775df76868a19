#include "build/sentinel.hpp"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <string_view>
#include <utility>

#include "build/process_tree.hpp"
#include "build/supervisor.hpp"

namespace flashfit::build {
namespace {

constexpr long long kMaxGraceMs = 600'000;

std::optional<long long> whole_number(std::string_view text) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

util::Error usage(std::string message) {
  return internal_command_usage(kSentinelCommand, std::move(message));
}

std::optional<std::filesystem::path>& registered() {
  static std::optional<std::filesystem::path> executable;
  return executable;
}

}  // namespace

util::Error internal_command_usage(const char* command, std::string message) {
  return util::Error{util::ErrorKind::usage, std::move(message), command,
                     "flashfit starts it itself; it is not meant to be run by hand"};
}

util::Result<SentinelCall> parse_sentinel_call(const std::vector<std::string>& words) {
  if (words.size() != 2) return tl::unexpected(usage("expected ROOT_PID GRACE_MS"));
  const auto root = whole_number(words[0]);
  if (!root || *root <= 1 || *root > 4'194'304)  // pid_max's ceiling on Linux
    return tl::unexpected(usage("ROOT_PID must be a process id above 1, not '" + words[0] + "'"));
  const auto grace = whole_number(words[1]);
  if (!grace || *grace < 0 || *grace > kMaxGraceMs)
    return tl::unexpected(usage("GRACE_MS must be 0 to 600000, not '" + words[1] + "'"));
  return SentinelCall{static_cast<int>(*root), std::chrono::milliseconds{*grace}};
}

std::vector<std::string> sentinel_argv(const std::filesystem::path& executable, int root,
                                       std::chrono::milliseconds grace) {
  return {executable.string(), kSentinelCommand, std::to_string(root),
          std::to_string(grace.count())};
}

void register_sentinel_executable(std::filesystem::path executable) {
  if (executable.empty()) {
    registered().reset();
  } else {
    registered() = std::move(executable);
  }
}

std::optional<std::filesystem::path> sentinel_executable() {
  return registered();
}

int run_sentinel(const std::vector<std::string>& words) {
  const auto call = parse_sentinel_call(words);
  if (!call) {
    std::fprintf(stderr, "flashfit %s: %s\n", kSentinelCommand, call.error().message.c_str());
    return 2;
  }
  // Ctrl-C, a closing terminal and a plain kill are for flashfit, which then
  // stops the build (and this sentinel) itself; only its end matters here.
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) std::signal(sig, SIG_IGN);
  char buffer[256];
  while (true) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0 && errno != EINTR) break;  // stdin is not the pipe: nothing to wait for
  }
  // Only a build: its root leads a session of its own (the supervisor starts
  // it so), and what is left of it still carries that session id.
  bool build_left = false;
  for (const ProcessSample& p : sample_process_group(call->root))
    build_left |= p.session == call->root;
  if (build_left) stop_process_group(call->root, call->grace);
  return 0;
}

}  // namespace flashfit::build
