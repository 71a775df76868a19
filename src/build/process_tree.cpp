// Reads the build's processes from /proc for the memory governor and the
// supervisor. It runs several times a second over every process of the
// machine (membership is only known from each process's stat line: process
// group and session), so it reads one small file per process with plain
// read(2) and tolerates processes vanishing mid-read and lines it cannot
// parse: a sample is a best effort, never an error.
#include "build/process_tree.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "env/cgroup.hpp"

namespace flashfit::build {
namespace {

// A /proc/<pid>/stat line is a few hundred bytes; anything larger is not one.
constexpr std::size_t kStatMax = 4096;

// The first max_bytes of a /proc file (it has no size to stat); nullopt when
// it cannot be opened (the process is gone).
std::optional<std::string> read_proc_prefix(const std::filesystem::path& path,
                                            std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text(max_bytes, '\0');
  std::size_t used = 0;
  while (used < text.size()) {
    const ssize_t n = ::read(fd, text.data() + used, text.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(used);
  return text;
}

std::optional<std::string> read_proc_file(const std::filesystem::path& path) {
  auto text = read_proc_prefix(path, kStatMax);
  if (!text || text->empty() || text->size() >= kStatMax) return std::nullopt;
  return text;
}

template <class T>
bool parse_number(std::string_view text, T& out) {
  if (text.empty()) return false;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc{} && ptr == end;
}

std::uint64_t page_size() {
  static const std::uint64_t size = [] {
    const long value = ::sysconf(_SC_PAGESIZE);
    return value > 0 ? static_cast<std::uint64_t>(value) : std::uint64_t{4096};
  }();
  return size;
}

struct StatLine {
  ProcessSample sample;
};

// "1234 (comm) S ppid pgrp ... starttime(22) vsize(23) rss(24) ...". The comm
// may hold spaces and parentheses, so it ends at the *last* ')'.
std::optional<StatLine> parse_stat(std::string_view text) {
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  StatLine out;
  auto pid_text = text.substr(0, open);
  while (!pid_text.empty() && pid_text.back() == ' ') pid_text.remove_suffix(1);
  if (!parse_number(pid_text, out.sample.pid) || out.sample.pid <= 0) return std::nullopt;
  out.sample.comm = std::string(text.substr(open + 1, close - open - 1));

  // Fields after the comm, numbered as in proc(5): the state is field 3.
  std::string_view rest = text.substr(close + 1);
  std::string_view fields[22];
  std::size_t count = 0;
  while (count < 22) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\n')) rest.remove_prefix(1);
    if (rest.empty()) break;
    const auto end = rest.find_first_of(" \n");
    fields[count++] = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
  }
  if (count < 22) return std::nullopt;  // truncated: no rss
  if (fields[0].size() != 1) return std::nullopt;
  out.sample.state = fields[0][0];
  std::uint64_t rss_pages = 0;
  if (!parse_number(fields[1], out.sample.ppid) || !parse_number(fields[2], out.sample.pgrp) ||
      !parse_number(fields[3], out.sample.session) ||
      !parse_number(fields[19], out.sample.start_ticks) || !parse_number(fields[21], rss_pages)) {
    return std::nullopt;
  }
  if (rss_pages > UINT64_MAX / page_size()) return std::nullopt;
  out.sample.rss_bytes = rss_pages * page_size();
  return out;
}

bool all_digits(const char* name) {
  if (*name == '\0') return false;
  for (; *name; ++name)
    if (*name < '0' || *name > '9') return false;
  return true;
}

// "MemAvailable:   123456 kB" -> bytes.
std::optional<std::uint64_t> mem_available(std::string_view text) {
  constexpr std::string_view key = "MemAvailable:";
  const auto at = text.find(key);
  if (at == std::string_view::npos || (at > 0 && text[at - 1] != '\n')) return std::nullopt;
  auto rest = text.substr(at + key.size());
  rest = rest.substr(0, rest.find('\n'));
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  std::uint64_t scale = 1;
  if (rest.size() >= 2 && rest.substr(rest.size() - 2) == "kB") {
    scale = 1024;
    rest.remove_suffix(2);
  }
  while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
  std::uint64_t value = 0;
  if (!parse_number(rest, value) || value > UINT64_MAX / scale) return std::nullopt;
  return value * scale;
}

// Calls `take` with every parsable stat line of the build rooted at `pgid`,
// zombies included.
template <class Take>
void scan_build(int pgid, const std::filesystem::path& proc_root, Take take) {
  if (pgid <= 0) return;
  DIR* dir = ::opendir(proc_root.c_str());
  if (dir == nullptr) return;
  while (const dirent* entry = ::readdir(dir)) {
    if (!all_digits(entry->d_name)) continue;
    const auto text = read_proc_file(proc_root / entry->d_name / "stat");
    if (!text) continue;  // exited since readdir, or not a stat file
    auto line = parse_stat(*text);
    if (!line || (line->sample.pgrp != pgid && line->sample.session != pgid)) continue;
    take(std::move(line->sample));
  }
  ::closedir(dir);
}

}  // namespace

namespace detail {
std::optional<ProcessSample> parse_proc_stat(std::string_view line) {
  auto parsed = parse_stat(line);
  if (!parsed) return std::nullopt;
  return std::move(parsed->sample);
}
}  // namespace detail

std::vector<ProcessSample> sample_process_group(int pgid, const std::filesystem::path& proc_root) {
  std::vector<ProcessSample> out;
  scan_build(pgid, proc_root, [&](ProcessSample sample) {
    if (sample.state != 'Z' && sample.state != 'X') out.push_back(std::move(sample));
  });
  return out;
}

std::vector<int> build_children_of(int pgid, int parent_pid,
                                   const std::filesystem::path& proc_root) {
  std::vector<int> out;
  scan_build(pgid, proc_root, [&](const ProcessSample& sample) {
    if (sample.ppid == parent_pid) out.push_back(sample.pid);
  });
  return out;
}

std::optional<std::uint64_t> sample_available_memory(const std::filesystem::path& root) {
  std::optional<std::uint64_t> available;
  if (const auto text =
          env::detail::read_small_file(env::detail::under_root(root, "/proc/meminfo"))) {
    available = mem_available(*text);
  }
  const auto cgroup = env::read_cgroup_limits(root);
  if (cgroup.memory_headroom_bytes && (!available || *cgroup.memory_headroom_bytes < *available)) {
    available = cgroup.memory_headroom_bytes;
  }
  return available;
}

}  // namespace flashfit::build

namespace flashfit::build {

std::vector<std::string> read_process_args(int pid, const std::filesystem::path& proc_root) {
  // cicc's command line runs to a few KiB; the first 64 KiB hold the file names.
  constexpr std::size_t kArgsMax = std::size_t{64} << 10;
  std::vector<std::string> args;
  const std::string text =
      read_proc_prefix(proc_root / std::to_string(pid) / "cmdline", kArgsMax).value_or("");
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) args.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return args;
}

}  // namespace flashfit::build
