#pragma once
// Why a build failed, from the end of its log and how it ended: the known
// failures of CUDA extension builds (docs/background.md §16) each with the
// fix, and the lines that show it. A pure function of text, so tests feed it
// the real messages of gcc, nvcc, torch's cpp_extension and the kernel.

#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace flashfit::build {

struct Diagnosis {
  std::string id;  // stable: "oom-killed", "host-compiler", "cuda-mismatch", "python-headers",
                   // "torch-missing", "arch-token", "nvcc-missing", "disk-full", "compile-error"
  std::string summary;                // one sentence
  std::string fix;                    // what to do, with the flag or command
  std::vector<std::string> evidence;  // the log lines that show it (at most a few)
};

// `lines` is the end of the log (oldest first); `term_signal` how the build
// command ended (9 when the kernel's OOM killer took the top process).
// nullopt when nothing known matches and no error line is found.
std::optional<Diagnosis> diagnose_build_failure(const std::deque<std::string>& lines,
                                                int term_signal);

// The last lines worth showing: error lines and their neighbours, else the
// last `max` lines.
std::vector<std::string> relevant_lines(const std::deque<std::string>& lines, std::size_t max = 15);

}  // namespace flashfit::build
