#pragma once
// What the memory governor sees of a build: every process in the build's
// process group (pip, setup.py, ninja, nvcc, cicc, cc1plus, ...) with its
// resident memory and start time, and how much memory the machine (and the
// cgroup this process runs in) still has available. Read from /proc under a
// root prefix so tests can point it at fixture trees.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flashfit::build {

struct ProcessSample {
  int pid = 0;
  int ppid = 0;
  int pgrp = 0;  // process group (ninja gives each job its own)
  int session = 0;
  std::uint64_t start_ticks = 0;  // /proc/<pid>/stat field 22: larger = younger
  std::uint64_t rss_bytes = 0;    // resident set (stat field 24, pages, x page size)
  char state = '?';               // R, S, D, T (stopped), Z, ...
  std::string comm;               // "cicc", "cc1plus", "ninja"
};

// Every live (non-zombie) process of the build whose root is `pgid`: those in
// process group `pgid` and, when the root leads its own session (the
// supervisor starts it so), every process of that session, since ninja starts
// each job in a process group of its own. Read from <proc_root>/<pid>/stat
// alone; a process that exits while being read, or whose stat line cannot be
// parsed, is skipped; never fails.
std::vector<ProcessSample> sample_process_group(int pgid,
                                                const std::filesystem::path& proc_root = "/proc");

// Pids of the build's processes (as above, zombies included) whose parent is
// `parent_pid`: the orphans a child subreaper has to reap.
std::vector<int> build_children_of(int pgid, int parent_pid,
                                   const std::filesystem::path& proc_root = "/proc");

// A process's arguments from <proc_root>/<pid>/cmdline (the first 64 KiB);
// empty when it is gone or unreadable. The governor's unit classes read them.
std::vector<std::string> read_process_args(int pid,
                                           const std::filesystem::path& proc_root = "/proc");

// Bytes the machine can still give: MemAvailable from <root>/proc/meminfo,
// capped by the headroom of this process's cgroup (env::read_cgroup_limits).
// nullopt when neither can be read.
namespace detail {
// One /proc/<pid>/stat line; nullopt when it is not one (what the scans
// skip). Exposed for the fuzz harness proc_stat.
std::optional<ProcessSample> parse_proc_stat(std::string_view line);
}  // namespace detail

std::optional<std::uint64_t> sample_available_memory(const std::filesystem::path& root = "/");

}  // namespace flashfit::build
