// cgroup v1, v2 and hybrid files (/proc/self/cgroup, memory.max / current /
// stat, cpu.max, cpu.cfs_quota_us / period_us), written into a fixture tree
// from the input's "\n--\n"-separated parts: garbled files become warnings,
// never crashes; every decision names a file inside the cgroup mounts; the
// headroom never exceeds the limit; a CPU quota is at least one CPU.
#include <optional>

#include "env/cgroup.hpp"
#include "fuzz_common.hpp"

namespace {
namespace fs = std::filesystem;

// Which part goes into which files (v2 and v1 spellings of the same value).
const std::vector<std::vector<const char*>> kLayout = {
    {"proc/self/cgroup"},
    {"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes",
     "sys/fs/cgroup/a/memory.max", "sys/fs/cgroup/memory/a/memory.limit_in_bytes"},
    {"sys/fs/cgroup/memory.current", "sys/fs/cgroup/memory/memory.usage_in_bytes",
     "sys/fs/cgroup/a/memory.current", "sys/fs/cgroup/memory/a/memory.usage_in_bytes"},
    {"sys/fs/cgroup/memory.stat", "sys/fs/cgroup/memory/memory.stat", "sys/fs/cgroup/a/memory.stat",
     "sys/fs/cgroup/memory/a/memory.stat"},
    {"sys/fs/cgroup/cpu.max", "sys/fs/cgroup/a/cpu.max"},
    {"sys/fs/cgroup/cpu/cpu.cfs_quota_us", "sys/fs/cgroup/cpu/a/cpu.cfs_quota_us"},
    {"sys/fs/cgroup/cpu/cpu.cfs_period_us", "sys/fs/cgroup/cpu/a/cpu.cfs_period_us"},
};

bool names_a_mount_file(const std::string& source) {
  // "cgroup v2 /sys/fs/cgroup/a/memory.max" or "... - memory.current".
  const auto at = source.find(" /sys/fs/cgroup/");
  if (at == std::string::npos) return false;
  const std::string path = source.substr(at + 1, source.find(' ', at + 1) - at - 1);
  return path.find("/../") == std::string::npos && path.find("/./") == std::string::npos;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path root = flashfit::fuzz::scratch() / "root";
  static const bool made = [&] {
    for (const char* dir : {"proc/self", "sys/fs/cgroup/a", "sys/fs/cgroup/memory/a",
                            "sys/fs/cgroup/cpu/a", "sys/fs/cgroup/unified"}) {
      fs::create_directories(root / dir);
    }
    flashfit::fuzz::write_file(root / "sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
    return true;
  }();
  (void)made;
  const auto parts =
      flashfit::fuzz::split_parts(flashfit::fuzz::as_text(data, size), kLayout.size());
  // What each part's files hold now (nullopt: absent). Only the parts this
  // input changes are written: a mutation touches one or two, and writing all
  // twenty files every time was most of the harness's time.
  static std::vector<std::optional<std::string>> held(kLayout.size());
  for (std::size_t i = 0; i < kLayout.size(); ++i) {
    std::optional<std::string> want;
    if (i < parts.size()) want.emplace(parts[i]);
    if (want == held[i]) continue;
    for (const char* file : kLayout[i]) {
      std::error_code ec;
      if (want) {
        flashfit::fuzz::write_file(root / file, *want);
      } else {
        fs::remove(root / file, ec);
      }
    }
    held[i] = std::move(want);
  }
  const auto limits = flashfit::env::read_cgroup_limits(root);
  if (limits.cpu_quota_cpus) {
    FUZZ_CHECK(*limits.cpu_quota_cpus >= 1, "a quota of no CPU");
    FUZZ_CHECK(names_a_mount_file(limits.cpu_source), "cpu source: " + limits.cpu_source);
  }
  if (limits.memory_limit_bytes) {
    FUZZ_CHECK(names_a_mount_file(limits.memory_limit_source),
               "memory source: " + limits.memory_limit_source);
  }
  if (limits.memory_headroom_bytes) {
    FUZZ_CHECK(limits.memory_limit_bytes.has_value(), "headroom without a limit");
    FUZZ_CHECK(names_a_mount_file(limits.memory_headroom_source),
               "headroom source: " + limits.memory_headroom_source);
  }
  // The tightest limit bounds the tightest headroom (each level's headroom is
  // at most its own limit).
  if (limits.memory_headroom_bytes && limits.memory_limit_bytes) {
    FUZZ_CHECK(*limits.memory_headroom_bytes <= *limits.memory_limit_bytes,
               "headroom above the limit");
  }
  return 0;
}
