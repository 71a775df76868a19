#pragma once
// The build gate: what makes the build sentinel (build/sentinel.hpp) cover a
// build from its first instruction.
//
// The sentinel needs the build's pid, so it can only start after the build
// has; a flashfit killed between the two spawns would leave a build that no
// one watches. So the supervisor does not spawn the build program itself but
// `flashfit build-gate PROGRAM -- ARGV...` (internal, like build-sentinel),
// in the build's session, cwd and environment, with a pipe only flashfit
// writes on its stdin. The gate reads one byte from it: the supervisor sends
// it once the sentinel runs, and the gate then puts /dev/null on its stdin
// (where the build's own stdin always was) and execs PROGRAM with ARGV (same
// pid, so the sentinel's root is the build's). If flashfit ends before that,
// the pipe reaches EOF and the gate exits without running anything: there is
// no moment at which the build runs and nothing would stop it.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace flashfit::build {

inline constexpr const char* kGateCommand = "build-gate";
inline constexpr char kGateOpen = 'g';       // the byte that lets the build run
inline constexpr int kGateClosedExit = 125;  // flashfit ended first: nothing ran

struct GateCall {
  std::filesystem::path program;  // absolute, or relative to the build's cwd
  std::vector<std::string> argv;  // as the build program gets it (argv[0] included)
};

// Pure. The argv of the gate for `executable` (flashfit) running `program`
// with `argv`, and the words after "build-gate" parsed back: PROGRAM, "--",
// then at least ARGV[0]. Errors: usage.
std::vector<std::string> gate_argv(const std::filesystem::path& executable,
                                   const std::filesystem::path& program,
                                   const std::vector<std::string>& argv);
util::Result<GateCall> parse_gate_call(const std::vector<std::string>& words);

// The file the build's argv[0] names, as posix_spawnp would find it: on PATH
// when it has no '/', else relative to `cwd` (the build's). nullopt when it
// is no executable file: the build is then spawned ungated, so that the spawn
// reports the missing program as it always has.
std::optional<std::filesystem::path> gate_program(const std::string& argv0,
                                                  const std::optional<std::filesystem::path>& cwd);

// The gate's process: waits for the byte, then execs; returns only when it
// does not (kGateClosedExit at EOF, 127 when the exec fails, 2 for bad
// words, said on stderr).
int run_gate(const std::vector<std::string>& words);

}  // namespace flashfit::build
