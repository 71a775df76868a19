#include "env/cgroup.hpp"

#include <fmt/format.h>

#include <charconv>
#include <iterator>
#include <map>

#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace flashfit::env {
namespace detail {

std::optional<std::string> read_small_file(const std::filesystem::path& path) {
  // util's reader (read(2) to EOF, as procfs needs; a directory is EISDIR,
  // nullopt) with this layer's bound: no cgroup or /proc file is near 1 MiB.
  return util::read_small_file(path, std::size_t{1} << 20);
}

std::filesystem::path under_root(const std::filesystem::path& root, std::string_view logical) {
  while (!logical.empty() && logical.front() == '/') logical.remove_prefix(1);
  return root / std::string(logical);
}

std::optional<std::uint64_t> parse_u64(std::string_view text) {
  text = util::trim(text);
  std::uint64_t value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

}  // namespace detail

namespace {

using detail::parse_u64;
using detail::read_small_file;
using detail::under_root;

// cgroup v1 reports "no limit" as a huge page-aligned number
// (9223372036854771712 with 4 KiB pages, other values with other page sizes).
constexpr std::uint64_t kV1Unlimited = std::uint64_t{1} << 62;

struct V1Entry {
  std::string hierarchy;  // "cpu,cpuacct": also the mount directory's usual name
  std::string path;
};

struct ProcCgroup {
  std::optional<std::string> v2_path;
  std::map<std::string, V1Entry> v1;  // controller -> entry
};

// A cgroup path from /proc/self/cgroup is joined under /sys; refuse anything
// that could climb out of it, and "." components, which the kernel never
// writes (the path would name a file by two spellings, one unnormalised in
// what flashfit reports; found by the cgroup fuzzer).
bool safe_cgroup_path(std::string_view path) {
  if (path.empty() || path.front() != '/') return false;
  for (auto part : util::split(path, '/'))
    if (part == ".." || part == ".") return false;
  return true;
}

ProcCgroup parse_proc_cgroup(const std::string& text, std::vector<std::string>& warnings) {
  ProcCgroup result;
  for (auto raw : util::split(text, '\n')) {
    const auto line = util::trim(raw);
    if (line.empty()) continue;
    const auto c1 = line.find(':');
    const auto c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    const auto id = c1 == std::string_view::npos ? std::nullopt : parse_u64(line.substr(0, c1));
    if (c2 == std::string_view::npos || !id || !safe_cgroup_path(line.substr(c2 + 1))) {
      warnings.push_back("ignored garbled line in /proc/self/cgroup: " + util::printable(line, 80));
      continue;
    }
    const auto controllers = line.substr(c1 + 1, c2 - c1 - 1);
    const std::string path(line.substr(c2 + 1));
    if (*id == 0 && controllers.empty()) {
      result.v2_path = path;
      continue;
    }
    for (auto controller : util::split(controllers, ','))
      if (!controller.empty())
        result.v1[std::string(controller)] = {std::string(controllers), path};
  }
  return result;
}

// "/a/b" -> "/a/b", "/a", "/": the cgroup and its ancestors, innermost first.
std::vector<std::string> levels(const std::string& path) {
  std::vector<std::string> out;
  std::string current = path;
  while (current.size() > 1 && current.back() == '/') current.pop_back();
  while (true) {
    out.push_back(current.empty() ? "/" : current);
    const auto slash = current.rfind('/');
    if (current.size() <= 1 || slash == std::string::npos) break;
    current = slash == 0 ? "/" : current.substr(0, slash);
  }
  return out;
}

std::string join_logical(const std::string& base, const std::string& level, const char* file) {
  return level == "/" ? fmt::format("{}/{}", base, file)
                      : fmt::format("{}{}/{}", base, level, file);
}

// Where a controller's hierarchy is mounted: "" when none was found.
struct Hierarchy {
  bool v2 = false;
  std::string base;  // logical mount point, e.g. "/sys/fs/cgroup/memory"
  std::string path;  // the process's cgroup within it
};

std::optional<Hierarchy> locate(const std::filesystem::path& root, const ProcCgroup& cg,
                                const std::string& controller) {
  std::error_code ec;
  // A controller listed on a v1 line is bound to v1 even when a v2 line exists
  // (hybrid mode, where the unified tree has no controllers).
  if (auto it = cg.v1.find(controller); it != cg.v1.end()) {
    for (const std::string& name : {it->second.hierarchy, controller}) {
      const std::string base = "/sys/fs/cgroup/" + name;
      if (std::filesystem::is_directory(under_root(root, base), ec))
        return Hierarchy{false, base, it->second.path};
    }
    return std::nullopt;
  }
  if (!cg.v2_path) return std::nullopt;
  for (const std::string base : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
    if (std::filesystem::exists(under_root(root, base + "/cgroup.controllers"), ec))
      return Hierarchy{true, base, *cg.v2_path};
  }
  return std::nullopt;
}

const char* label(const Hierarchy& h) {
  return h.v2 ? "cgroup v2" : "cgroup v1";
}

// Page cache charged to the cgroup is reclaimed before the OOM killer runs,
// so it does not count against what a build can still use.
std::uint64_t inactive_file(const std::filesystem::path& stat_file, bool v2) {
  const auto text = read_small_file(stat_file);
  if (!text) return 0;
  const std::string_view key = v2 ? "inactive_file" : "total_inactive_file";
  for (auto line : util::split(*text, '\n')) {
    const auto space = line.find(' ');
    if (space != std::string_view::npos && line.substr(0, space) == key)
      return parse_u64(line.substr(space + 1)).value_or(0);
  }
  return 0;
}

void read_memory(const std::filesystem::path& root, const Hierarchy& h, CgroupLimits& out) {
  const char* limit_name = h.v2 ? "memory.max" : "memory.limit_in_bytes";
  const char* usage_name = h.v2 ? "memory.current" : "memory.usage_in_bytes";
  for (const auto& level : levels(h.path)) {
    const std::string limit_file = join_logical(h.base, level, limit_name);
    const auto text = read_small_file(under_root(root, limit_file));
    if (!text) continue;  // this level has no limit file (the root cgroup, or not mounted)
    const auto trimmed = util::trim(*text);
    if (h.v2 && trimmed == "max") continue;
    const auto limit = parse_u64(trimmed);
    if (!limit) {
      out.warnings.push_back(
          fmt::format("ignored garbled {} ({})", limit_file, util::printable(trimmed, 40)));
      continue;
    }
    if (!h.v2 && *limit >= kV1Unlimited) continue;
    const std::string source = fmt::format("{} {}", label(h), limit_file);
    if (!out.memory_limit_bytes || *limit < *out.memory_limit_bytes) {
      out.memory_limit_bytes = *limit;
      out.memory_limit_source = source;
    }
    const std::string usage_file = join_logical(h.base, level, usage_name);
    const auto usage_text = read_small_file(under_root(root, usage_file));
    const auto usage = usage_text ? parse_u64(*usage_text) : std::nullopt;
    if (!usage) {
      out.warnings.push_back(
          fmt::format("could not read {}; headroom under {} unknown", usage_file, limit_file));
      continue;
    }
    const std::uint64_t cache =
        inactive_file(under_root(root, join_logical(h.base, level, "memory.stat")), h.v2);
    const std::uint64_t used = *usage > cache ? *usage - cache : 0;
    const std::uint64_t headroom = *limit > used ? *limit - used : 0;
    if (!out.memory_headroom_bytes || headroom < *out.memory_headroom_bytes) {
      out.memory_headroom_bytes = headroom;
      out.memory_headroom_source = fmt::format("{} {} - {}", label(h), limit_file, usage_name);
    }
  }
}

// Quota over period, rounded up: 1.5 CPUs of quota can keep two jobs busy.
std::optional<unsigned> quota_cpus(std::uint64_t quota, std::uint64_t period) {
  if (quota == 0 || period == 0) return std::nullopt;
  return static_cast<unsigned>((quota + period - 1) / period);
}

void consider_cpu(unsigned cpus, const std::string& source, CgroupLimits& out) {
  if (!out.cpu_quota_cpus || cpus < *out.cpu_quota_cpus) {
    out.cpu_quota_cpus = cpus;
    out.cpu_source = source;
  }
}

void read_cpu(const std::filesystem::path& root, const Hierarchy& h, CgroupLimits& out) {
  for (const auto& level : levels(h.path)) {
    if (h.v2) {
      const std::string file = join_logical(h.base, level, "cpu.max");
      const auto text = read_small_file(under_root(root, file));
      if (!text) continue;
      const auto fields = util::split(util::trim(*text), ' ');
      if (fields.size() == 2 && fields[0] == "max" && parse_u64(fields[1])) continue;
      const auto quota = fields.size() == 2 ? parse_u64(fields[0]) : std::nullopt;
      const auto period = fields.size() == 2 ? parse_u64(fields[1]) : std::nullopt;
      const auto cpus = quota && period ? quota_cpus(*quota, *period) : std::nullopt;
      if (!cpus) {
        out.warnings.push_back(
            fmt::format("ignored garbled {} ({})", file, util::printable(util::trim(*text), 40)));
        continue;
      }
      consider_cpu(*cpus, fmt::format("cgroup v2 {}", file), out);
    } else {
      const std::string quota_file = join_logical(h.base, level, "cpu.cfs_quota_us");
      const std::string period_file = join_logical(h.base, level, "cpu.cfs_period_us");
      const auto quota_text = read_small_file(under_root(root, quota_file));
      if (!quota_text) continue;
      if (util::trim(*quota_text) == "-1") continue;  // v1's "no quota"
      const auto period_text = read_small_file(under_root(root, period_file));
      const auto quota = parse_u64(*quota_text);
      const auto period = period_text ? parse_u64(*period_text) : std::nullopt;
      const auto cpus = quota && period ? quota_cpus(*quota, *period) : std::nullopt;
      if (!cpus) {
        out.warnings.push_back(fmt::format("ignored garbled {} or {}", quota_file, period_file));
        continue;
      }
      consider_cpu(*cpus, fmt::format("cgroup v1 {}", quota_file), out);
    }
  }
}

}  // namespace

CgroupLimits read_cgroup_limits(const std::filesystem::path& root) {
  CgroupLimits out;
  const auto text = read_small_file(under_root(root, "/proc/self/cgroup"));
  if (!text) return out;  // not Linux, or /proc not mounted: no cgroup limits to honour
  const ProcCgroup cg = parse_proc_cgroup(*text, out.warnings);
  if (auto h = locate(root, cg, "memory")) read_memory(root, *h, out);
  if (auto h = locate(root, cg, "cpu")) read_cpu(root, *h, out);
  return out;
}

}  // namespace flashfit::env
