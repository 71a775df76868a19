#pragma once
// The machine facts that decide how a build is planned and whether a wheel's
// platform tag fits: OS, kernel, arch, libc, and the CPUs, memory and disk
// this process may really use (affinity and cgroup limits applied).
// A pure probe: reads files and syscalls, prints nothing, never fails; what it
// cannot learn is an unknown Fact with the reason.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "env/fact.hpp"

namespace flashfit::env {

struct UnameFacts {
  std::string sysname;  // "Linux"
  std::string release;  // kernel release, "6.1.0-18-amd64"
  std::string machine;  // arch, "x86_64"
};

struct LibcInfo {
  std::string name;     // "glibc" or "musl"
  std::string version;  // "2.36"; empty when unknown (musl has no runtime query)
};

struct DiskSpace {
  std::filesystem::path measured_at;  // the nearest existing ancestor of the directory asked for
  std::uint64_t free_bytes = 0;       // available to an unprivileged user
  std::uint64_t total_bytes = 0;
};

struct DiskFact {
  std::filesystem::path dir;  // as asked for
  Fact<DiskSpace> space;
};

struct MachineProbeOptions {
  std::filesystem::path root = "/";       // prefix for /proc, /sys and /etc (tests: a fixture tree)
  std::optional<unsigned> affinity_cpus;  // nullopt: sched_getaffinity of this process
  std::vector<std::filesystem::path> disk_dirs;  // e.g. the cache dir and the temp dir
  std::optional<UnameFacts> uname;               // nullopt: uname(2)
  std::optional<LibcInfo> libc;                  // nullopt: the libc this process runs on
};

struct MachineFacts {
  Fact<std::string> os;      // /etc/os-release PRETTY_NAME
  Fact<std::string> kernel;  // uname release
  Fact<std::string> arch;    // uname machine
  Fact<LibcInfo> libc;
  Fact<unsigned> cpu_count;                // min(online CPUs, affinity, cgroup quota rounded up)
  Fact<std::uint64_t> memory_total_bytes;  // MemTotal capped by the cgroup limit
  Fact<std::uint64_t> memory_available_bytes;  // MemAvailable capped by cgroup headroom
  std::vector<DiskFact> disks;                 // one per MachineProbeOptions::disk_dirs entry
  std::vector<std::string> warnings;           // garbled inputs that were ignored
};

MachineFacts probe_machine(const MachineProbeOptions& options = {});

// "0-3,8,10-11" (the kernel's CPU list format) -> 7; nullopt when garbled.
std::optional<unsigned> parse_cpu_list(std::string_view text);

}  // namespace flashfit::env
