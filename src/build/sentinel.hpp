#pragma once
// The build sentinel: what stops a build whose flashfit was killed (kill -9,
// the OOM killer, a crash), where no handler of flashfit's own can run.
//
// A build runs in a session of its own, so it outlives a flashfit that dies
// without stopping it: pip, ninja and every compiler would go on, unwatched
// by the memory governor, for as long as the build has left (hours, tens of
// GiB for flash-attn). So right after it starts the build, the supervisor
// starts `flashfit build-sentinel ROOT GRACE_MS` (internal; in no command
// table, help, completion or man page), whose stdin is a pipe only flashfit
// writes (close-on-exec: the build cannot hold it open). The sentinel
// ignores the signals a terminal sends and blocks reading: when flashfit
// ends, however it ends, the pipe reaches EOF, and the sentinel stops what is
// left of the build (SIGTERM + SIGCONT to each of its process groups, SIGKILL
// after the grace: build::stop_process_group) and exits. When flashfit ends
// normally the build is already gone and flashfit stops the sentinel itself.
// The window between the build's start and the sentinel's (one spawn) is not
// covered.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace flashfit::build {

inline constexpr const char* kSentinelCommand = "build-sentinel";

// The usage error of an internal subcommand (build-sentinel, build-gate):
// flashfit writes their arguments itself, so a bad one names the command and
// says it is not for hand use.
util::Error internal_command_usage(const char* command, std::string message);

struct SentinelCall {
  int root = 0;  // the build's root: its process group and session id
  std::chrono::milliseconds grace{0};
};

// Pure. `words` follow "build-sentinel": ROOT (a pid > 1) and GRACE_MS (0 to
// 600000). Errors: usage.
util::Result<SentinelCall> parse_sentinel_call(const std::vector<std::string>& words);

// The argv that starts the sentinel for the build rooted at `root`.
std::vector<std::string> sentinel_argv(const std::filesystem::path& executable, int root,
                                       std::chrono::milliseconds grace);

// The executable that runs `build-sentinel`: the flashfit binary registers
// itself (/proc/self/exe) as it starts. Unset, as in tests of the library,
// builds run without a sentinel; an empty path unregisters.
void register_sentinel_executable(std::filesystem::path executable);
std::optional<std::filesystem::path> sentinel_executable();

// The sentinel's process: waits for EOF on stdin, stops what is left of the
// build, returns the exit status (0; 2 for bad words, said on stderr).
int run_sentinel(const std::vector<std::string>& words);

}  // namespace flashfit::build
