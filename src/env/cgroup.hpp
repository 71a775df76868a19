#pragma once
// The process's cgroup limits (v1, v2 or hybrid), read from files under a
// root prefix so tests can point it at fixture trees. Builds that trust
// /proc/meminfo and the CPU count inside a container overshoot and get
// OOM-killed (docs/background.md §11); these limits are what bounds them.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace flashfit::env {

struct CgroupLimits {
  // Each limit is the tightest over the process's cgroup and its ancestors;
  // each source names the file that decided it, as a path below the root.
  std::optional<unsigned> cpu_quota_cpus;  // quota / period, rounded up
  std::string cpu_source;
  std::optional<std::uint64_t> memory_limit_bytes;
  std::string memory_limit_source;
  std::optional<std::uint64_t> memory_headroom_bytes;  // limit - usage (less reclaimable cache)
  std::string memory_headroom_source;
  std::vector<std::string> warnings;  // garbled files that were ignored
};

CgroupLimits read_cgroup_limits(const std::filesystem::path& root);

namespace detail {

// The whole of a small text file (procfs reports size 0, so read to EOF);
// nullopt when it cannot be opened or is implausibly large.
std::optional<std::string> read_small_file(const std::filesystem::path& path);

// `logical` ("/proc/meminfo") below `root` ("/tmp/fixture").
std::filesystem::path under_root(const std::filesystem::path& root, std::string_view logical);

std::optional<std::uint64_t> parse_u64(std::string_view text);

}  // namespace detail
}  // namespace flashfit::env
