#include "build/diagnose.hpp"

#include <algorithm>
#include <array>

#include "util/strings.hpp"

namespace flashfit::build {
namespace {

bool contains(const std::string& line, std::string_view needle) {
  return line.find(needle) != std::string::npos;
}

struct Pattern {
  const char* id;
  std::vector<const char*> needles;  // any of them marks a line
  const char* summary;
  const char* fix;
};

// Most specific first: an OOM kill also prints "subcommand failed", a
// compiler rejected by nvcc also prints "error".
const std::vector<Pattern>& patterns() {
  static const std::vector<Pattern> table = {
      {"oom-killed",
       {"Killed signal terminated program", "died due to signal 9", "signal 9 (Kill signal)",
        "Killed", "std::bad_alloc", "virtual memory exhausted", "out of memory allocating"},
       "a compiler was killed for lack of memory (the kernel's OOM killer)",
       "build narrower: fewer jobs (--jobs 1) and nvcc threads (--threads 1), only this machine's "
       "GPUs (--archs), or "
       "a smaller --memory-budget so the governor pauses compilers earlier"},
      {"host-compiler",
       {"unsupported GNU version", "unsupported clang version", "-allow-unsupported-compiler"},
       "nvcc refused the host compiler: it is newer than this CUDA toolkit accepts",
       "install an older g++ (see `flashfit doctor`) and point the build at it: export "
       "CUDAHOSTCXX=/usr/bin/g++-N "
       "CC=gcc-N CXX=g++-N"},
      {"cuda-mismatch",
       {"mismatches the version that was used to compile", "The detected CUDA version"},
       "nvcc's CUDA major differs from the CUDA torch was built with",
       "install the CUDA toolkit of torch's CUDA major and set CUDA_HOME to it, or install the "
       "torch build for this "
       "toolkit (https://download.pytorch.org/whl/cuXYZ)"},
      {"python-headers",
       {"Python.h: No such file or directory", "fatal error: Python.h"},
       "the Python development headers are missing",
       "install them: apt install python3-dev (or python3.X-dev for this interpreter's version)"},
      {"torch-missing",
       {"No module named 'torch'", "No module named torch"},
       "the build could not import torch",
       "install torch into the interpreter the build uses; flashfit builds without isolation, so "
       "build dependencies "
       "must already be installed there"},
      {"arch-token",
       {"Unsupported gpu architecture", "Unknown CUDA arch", "is not a valid architecture",
        "Unsupported CUDA arch"},
       "nvcc or torch does not know a requested GPU architecture",
       "pass --archs with tokens this toolkit supports (flashfit plan shows them), or use a newer "
       "CUDA toolkit"},
      {"nvcc-missing",
       // (torch prints "No CUDA runtime is found, using CUDA_HOME=..." in every CPU build: not a
       // failure.)
       {"nvcc: not found", "nvcc not found", "CUDA_HOME environment variable is not set"},
       "the build could not find nvcc",
       "install the CUDA toolkit matching torch's CUDA version and set CUDA_HOME (e.g. "
       "/usr/local/cuda)"},
      {"disk-full",
       {"No space left on device"},
       "the disk filled up during the build",
       "free space where the build runs (TMPDIR and the flashfit cache dir), or set TMPDIR to a "
       "larger disk"},
      {"compile-error",
       {"error:", "Error:", "error :", "fatal error", "FAILED:"},
       "the compiler reported an error",
       "read the lines above; the full log is kept (path shown) and `flashfit doctor` checks the "
       "toolchain"},
  };
  return table;
}

}  // namespace

std::optional<Diagnosis> diagnose_build_failure(const std::deque<std::string>& lines,
                                                int term_signal) {
  for (const Pattern& p : patterns()) {
    std::vector<std::string> evidence;
    for (const std::string& line : lines) {
      bool hit = std::any_of(p.needles.begin(), p.needles.end(),
                             [&](const char* n) { return contains(line, n); });
      // A lone "Killed" is the shell's report of SIGKILL; inside a word it is not.
      if (hit && std::string_view(p.id) == "oom-killed" && !contains(line, "Killed signal") &&
          !contains(line, "signal 9") && !contains(line, "bad_alloc") &&
          !contains(line, "exhausted") && !contains(line, "out of memory")) {
        std::string_view t = util::trim(line);
        hit = t == "Killed" || util::ends_with(t, ": Killed") || util::starts_with(t, "Killed ");
      }
      if (hit) {
        std::string shown = util::printable(line, 300);
        if (std::find(evidence.begin(), evidence.end(), shown) == evidence.end())
          evidence.push_back(std::move(shown));
      }
    }
    if (evidence.empty() && std::string_view(p.id) == "oom-killed" && term_signal == 9) {
      evidence.push_back("the build command was killed by signal 9 (SIGKILL)");
    }
    if (evidence.empty()) continue;
    if (evidence.size() > 3) evidence.erase(evidence.begin(), evidence.end() - 3);
    return Diagnosis{p.id, p.summary, p.fix, std::move(evidence)};
  }
  return std::nullopt;
}

std::vector<std::string> relevant_lines(const std::deque<std::string>& lines, std::size_t max) {
  std::vector<std::size_t> marks;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    // Not a bare "error": every compile line carries -Werror=format-security.
    if (contains(l, "error:") || contains(l, "Error:") || contains(l, "error :") ||
        contains(l, "Killed") || contains(l, "FAILED:") || contains(l, "fatal")) {
      marks.push_back(i);
    }
  }
  std::vector<std::string> out;
  if (marks.empty()) {
    std::size_t from = lines.size() > max ? lines.size() - max : 0;
    for (std::size_t i = from; i < lines.size(); ++i) out.push_back(util::printable(lines[i], 300));
    return out;
  }
  // The first error and what follows it carry the cause; later lines are echoes.
  std::size_t from = marks.front() > 1 ? marks.front() - 1 : 0;
  for (std::size_t i = from; i < lines.size() && out.size() < max; ++i)
    out.push_back(util::printable(lines[i], 300));
  return out;
}

}  // namespace flashfit::build
