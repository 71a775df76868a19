#include "build/gate.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "build/sentinel.hpp"
#include "util/files.hpp"

namespace flashfit::build {
namespace {

util::Error usage(std::string message) {
  return internal_command_usage(kGateCommand, std::move(message));
}

}  // namespace

std::vector<std::string> gate_argv(const std::filesystem::path& executable,
                                   const std::filesystem::path& program,
                                   const std::vector<std::string>& argv) {
  std::vector<std::string> out = {executable.string(), kGateCommand, program.string(), "--"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

util::Result<GateCall> parse_gate_call(const std::vector<std::string>& words) {
  if (words.size() < 3 || words[1] != "--")
    return tl::unexpected(usage("expected PROGRAM -- ARGV..."));
  if (words[0].empty()) return tl::unexpected(usage("PROGRAM must not be empty"));
  return GateCall{words[0], std::vector<std::string>(words.begin() + 2, words.end())};
}

std::optional<std::filesystem::path> gate_program(const std::string& argv0,
                                                  const std::optional<std::filesystem::path>& cwd) {
  if (argv0.empty()) return std::nullopt;
  if (argv0.find('/') == std::string::npos) {
    // posix_spawnp searches PATH as it is in flashfit's environment (util::Child).
    const char* path = std::getenv("PATH");
    auto found = util::find_on_path(argv0, path != nullptr ? path : "");
    // A relative PATH entry ("", ".", "bin") is found here from flashfit's
    // cwd, but posix_spawnp would look in the build's: such a program is
    // spawned as before, ungated (the sentinel still watches it once started).
    if (found && found->is_relative()) return std::nullopt;
    return found;
  }
  const std::filesystem::path program = argv0;
  const std::filesystem::path seen = program.is_relative() && cwd ? *cwd / program : program;
  if (!util::is_executable_file(seen)) return std::nullopt;
  return program;  // relative paths stay relative: the gate runs in the build's cwd
}

int run_gate(const std::vector<std::string>& words) {
  const auto call = parse_gate_call(words);
  if (!call) {
    std::fprintf(stderr, "flashfit %s: %s\n", kGateCommand, call.error().message.c_str());
    return 2;
  }
  char byte = 0;
  ssize_t n = 0;
  do {
    n = ::read(STDIN_FILENO, &byte, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1 || byte != kGateOpen) return kGateClosedExit;  // flashfit is gone: run nothing
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null < 0 || ::dup2(null, STDIN_FILENO) < 0) {
    std::fprintf(stderr, "flashfit %s: /dev/null: %s\n", kGateCommand, std::strerror(errno));
    return 127;
  }
  ::close(null);
  std::vector<std::string> words_left = call->argv;  // execv takes char*
  std::vector<char*> argv;
  argv.reserve(words_left.size() + 1);
  for (std::string& word : words_left) argv.push_back(word.data());
  argv.push_back(nullptr);
  ::execv(call->program.c_str(), argv.data());
  std::fprintf(stderr, "flashfit %s: cannot run '%s': %s\n", kGateCommand, call->program.c_str(),
               std::strerror(errno));
  return 127;
}

}  // namespace flashfit::build
