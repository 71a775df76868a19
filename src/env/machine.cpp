#include "env/machine.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "env/cgroup.hpp"
#include "util/strings.hpp"

#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

namespace flashfit::env {
namespace {

using detail::parse_u64;
using detail::read_small_file;
using detail::under_root;

// os-release values are shell-quoted: PRETTY_NAME="Debian GNU/Linux 12 (bookworm)".
std::string unquote(std::string_view value) {
  value = util::trim(value);
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front()) {
    const bool double_quoted = value.front() == '"';
    value = value.substr(1, value.size() - 2);
    std::string out;
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (double_quoted && value[i] == '\\' && i + 1 < value.size()) ++i;
      out += value[i];
    }
    return out;
  }
  return std::string(value);
}

Fact<std::string> probe_os(const std::filesystem::path& root) {
  // /usr/lib/os-release is the documented fallback when /etc has none.
  for (const char* logical : {"/etc/os-release", "/usr/lib/os-release"}) {
    const auto text = read_small_file(under_root(root, logical));
    if (!text) continue;
    std::string name, version;
    for (auto line : util::split(*text, '\n')) {
      const auto eq = line.find('=');
      if (eq == std::string_view::npos) continue;
      const auto key = util::trim(line.substr(0, eq));
      if (key == "PRETTY_NAME") {
        auto pretty = unquote(line.substr(eq + 1));
        if (!pretty.empty())
          return Fact<std::string>::of(pretty, std::string(logical) + " PRETTY_NAME");
      } else if (key == "NAME") {
        name = unquote(line.substr(eq + 1));
      } else if (key == "VERSION_ID") {
        version = unquote(line.substr(eq + 1));
      }
    }
    if (!name.empty()) {
      if (!version.empty()) name += ' ' + version;
      return Fact<std::string>::of(name, std::string(logical) + " NAME, VERSION_ID");
    }
    return Fact<std::string>::unknown("no PRETTY_NAME or NAME in it", logical);
  }
  return Fact<std::string>::unknown("no /etc/os-release or /usr/lib/os-release");
}

void probe_uname(const MachineProbeOptions& options, MachineFacts& facts) {
  UnameFacts u;
  std::string source = "uname(2)";
  if (options.uname) {
    u = *options.uname;
    source = "injected uname";
  } else {
    struct utsname buf {};
    if (::uname(&buf) != 0) {
      facts.kernel = Fact<std::string>::unknown("uname(2) failed", "uname(2)");
      facts.arch = facts.kernel;
      return;
    }
    u = {buf.sysname, buf.release, buf.machine};
  }
  facts.kernel = u.release.empty() ? Fact<std::string>::unknown("empty kernel release", source)
                                   : Fact<std::string>::of(u.release, source);
  facts.arch = u.machine.empty() ? Fact<std::string>::unknown("empty machine name", source)
                                 : Fact<std::string>::of(u.machine, source);
}

Fact<LibcInfo> probe_libc(const MachineProbeOptions& options) {
  if (options.libc) return Fact<LibcInfo>::of(*options.libc, "injected libc");
#ifdef __GLIBC__
  return Fact<LibcInfo>::of({"glibc", gnu_get_libc_version()}, "gnu_get_libc_version()");
#else
  // musl defines no identifying macro and has no version query; on Linux a
  // libc that is not glibc is musl in practice.
  return Fact<LibcInfo>::of({"musl", ""}, "not built against glibc");
#endif
}

std::optional<unsigned> sched_affinity_count() {
  // cpu_set_t holds 1024 CPUs; grow for bigger machines, where the call fails with EINVAL.
  for (int cpus = 1024; cpus <= (1 << 16); cpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(static_cast<std::size_t>(cpus));
    if (set == nullptr) return std::nullopt;
    const std::size_t size = CPU_ALLOC_SIZE(static_cast<std::size_t>(cpus));
    CPU_ZERO_S(size, set);
    const bool ok = ::sched_getaffinity(0, size, set) == 0;
    const int count = ok ? CPU_COUNT_S(size, set) : 0;
    CPU_FREE(set);
    if (ok) return count > 0 ? std::optional<unsigned>(static_cast<unsigned>(count)) : std::nullopt;
    if (errno != EINVAL) return std::nullopt;
  }
  return std::nullopt;
}

struct Candidate {
  std::optional<unsigned> value;
  std::string source;
};

void probe_cpus(const MachineProbeOptions& options, const CgroupLimits& cgroup,
                MachineFacts& facts) {
  std::vector<Candidate> candidates;
  const char* online_file = "/sys/devices/system/cpu/online";
  std::optional<unsigned> online;
  if (const auto text = read_small_file(under_root(options.root, online_file))) {
    online = parse_cpu_list(*text);
    if (!online)
      facts.warnings.push_back(fmt::format("ignored garbled {} ({})", online_file,
                                           util::printable(util::trim(*text), 40)));
  }
  if (online) {
    candidates.push_back({online, online_file});
  } else if (const auto text = read_small_file(under_root(options.root, "/proc/cpuinfo"))) {
    // Without sysfs, count /proc/cpuinfo's "processor" lines.
    unsigned count = 0;
    for (auto line : util::split(*text, '\n'))
      if (util::starts_with(line, "processor")) ++count;
    if (count > 0) candidates.push_back({count, "/proc/cpuinfo"});
  }
  if (options.affinity_cpus) {
    candidates.push_back({*options.affinity_cpus, "injected CPU affinity"});
  } else {
    candidates.push_back({sched_affinity_count(), "sched_getaffinity"});
  }
  candidates.push_back({cgroup.cpu_quota_cpus, cgroup.cpu_source});
  for (const auto& c : candidates) {
    if (c.value && *c.value > 0 && (!facts.cpu_count.known() || *c.value < *facts.cpu_count))
      facts.cpu_count = Fact<unsigned>::of(*c.value, c.source);
  }
  if (!facts.cpu_count.known())
    facts.cpu_count = Fact<unsigned>::unknown(
        "no readable /sys/devices/system/cpu/online, /proc/cpuinfo, affinity or cgroup quota");
}

// "MemTotal:       24684092 kB" -> bytes.
std::optional<std::uint64_t> meminfo_field(std::string_view text, std::string_view key) {
  for (auto line : util::split(text, '\n')) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || line.substr(0, colon) != key) continue;
    auto rest = util::trim(line.substr(colon + 1));
    std::uint64_t scale = 1;
    if (util::ends_with(rest, "kB")) {
      scale = 1024;
      rest = util::trim(rest.substr(0, rest.size() - 2));
    }
    const auto value = parse_u64(rest);
    if (!value || *value > UINT64_MAX / scale) return std::nullopt;
    return *value * scale;
  }
  return std::nullopt;
}

Fact<std::uint64_t> capped(std::optional<std::uint64_t> value, std::string source,
                           std::optional<std::uint64_t> cap, const std::string& cap_source,
                           std::string unknown_reason) {
  if (value && (!cap || *value <= *cap)) return Fact<std::uint64_t>::of(*value, std::move(source));
  if (cap) return Fact<std::uint64_t>::of(*cap, cap_source);
  return Fact<std::uint64_t>::unknown(std::move(unknown_reason), std::move(source));
}

void probe_memory(const MachineProbeOptions& options, const CgroupLimits& cgroup,
                  MachineFacts& facts) {
  const auto text = read_small_file(under_root(options.root, "/proc/meminfo"));
  std::optional<std::uint64_t> total, available;
  if (text) {
    total = meminfo_field(*text, "MemTotal");
    available = meminfo_field(*text, "MemAvailable");
    if (!total) facts.warnings.push_back("no readable MemTotal in /proc/meminfo");
  }
  const std::string why = text ? "no readable {} in /proc/meminfo and no cgroup limit"
                               : "cannot read /proc/meminfo and no cgroup limit";
  facts.memory_total_bytes =
      capped(total, "/proc/meminfo MemTotal", cgroup.memory_limit_bytes, cgroup.memory_limit_source,
             fmt::format(fmt::runtime(why), "MemTotal"));
  facts.memory_available_bytes =
      capped(available, "/proc/meminfo MemAvailable", cgroup.memory_headroom_bytes,
             cgroup.memory_headroom_source, fmt::format(fmt::runtime(why), "MemAvailable"));
  // A cgroup whose usage could not be read still bounds what is available.
  const auto& total_fact = facts.memory_total_bytes;
  auto& available_fact = facts.memory_available_bytes;
  if (total_fact.known() && available_fact.known() && *available_fact > *total_fact)
    available_fact = Fact<std::uint64_t>::of(*total_fact, total_fact.source);
}

Fact<DiskSpace> probe_disk(const std::filesystem::path& dir) {
  if (dir.empty()) return Fact<DiskSpace>::unknown("empty directory name");
  std::error_code ec;
  std::filesystem::path at = std::filesystem::absolute(dir, ec).lexically_normal();
  if (ec) return Fact<DiskSpace>::unknown("cannot make the path absolute: " + ec.message());
  // The cache dir may not exist yet; what matters is the file system it will be created on.
  while (!std::filesystem::exists(at, ec) && at.has_relative_path()) at = at.parent_path();
  struct statvfs buf {};
  if (::statvfs(at.c_str(), &buf) != 0)
    return Fact<DiskSpace>::unknown(fmt::format("statvfs failed: {}", std::strerror(errno)),
                                    "statvfs " + at.string());
  DiskSpace space;
  space.measured_at = at;
  space.free_bytes = static_cast<std::uint64_t>(buf.f_bavail) * buf.f_frsize;
  space.total_bytes = static_cast<std::uint64_t>(buf.f_blocks) * buf.f_frsize;
  return Fact<DiskSpace>::of(space, "statvfs " + at.string());
}

}  // namespace

std::optional<unsigned> parse_cpu_list(std::string_view text) {
  text = util::trim(text);
  if (text.empty()) return std::nullopt;
  unsigned count = 0;
  for (auto range : util::split(text, ',')) {
    const auto dash = range.find('-');
    const auto first = parse_u64(range.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : parse_u64(range.substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first >= (1u << 20)) return std::nullopt;
    count += static_cast<unsigned>(*last - *first + 1);
  }
  return count;
}

MachineFacts probe_machine(const MachineProbeOptions& options) {
  MachineFacts facts;
  facts.os = probe_os(options.root);
  probe_uname(options, facts);
  facts.libc = probe_libc(options);
  CgroupLimits cgroup = read_cgroup_limits(options.root);
  facts.warnings = std::move(cgroup.warnings);
  probe_cpus(options, cgroup, facts);
  probe_memory(options, cgroup, facts);
  for (const auto& dir : options.disk_dirs) facts.disks.push_back({dir, probe_disk(dir)});
  return facts;
}

}  // namespace flashfit::env
