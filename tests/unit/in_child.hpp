#pragma once
// A test body run in a child process: for what changes the process itself
// (the heap's settings, a region used up), so the test binary's other tests
// keep theirs.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

namespace flashfit::test {

// Runs `body` (returning an exit code) in a forked child; its exit code, or
// -1 when it did not exit normally.
template <class Body>
int in_child(Body body) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

}  // namespace flashfit::test
