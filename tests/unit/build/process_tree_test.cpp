// Reading the build's processes from /proc: fixture trees with well-formed,
// hostile and truncated stat lines, then the live processes of a real child
// (its own session, a job in a process group of its own, a stopped one, a
// memory hog whose resident size must show), and the available memory.
#include "build/process_tree.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <thread>

#include "../temp_dir.hpp"

extern char** environ;

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;

const std::uint64_t kPage = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// A stat line as the kernel writes it: 52 fields, those the reader uses set.
std::string stat_line(int pid, const std::string& comm, char state, int ppid, int pgrp, int session,
                      std::uint64_t start, std::uint64_t rss_pages) {
  std::string line = std::to_string(pid) + " (" + comm + ") " + state + " " + std::to_string(ppid) +
                     " " + std::to_string(pgrp) + " " + std::to_string(session);
  // Fields 7..21: tty, tpgid, flags, faults, times, priority, nice, threads, itreal.
  line += " 0 -1 4194560 120 0 0 0 3 1 0 0 20 0 1 0";
  line += " " + std::to_string(start) + " 12345678 " + std::to_string(rss_pages);
  for (int field = 25; field <= 52; ++field) line += " 0";
  return line + "\n";
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

const ProcessSample* find(const std::vector<ProcessSample>& samples, int pid) {
  for (const auto& s : samples)
    if (s.pid == pid) return &s;
  return nullptr;
}

TEST(ProcessTree, ReadsTheBuildFromAFixtureTree) {
  test::TempDir proc("proc");
  const fs::path p = proc.path();
  // The build: root 500 leads session 500; ninja's job 520 has its own group.
  write_file(p / "500/stat", stat_line(500, "python3", 'S', 10, 500, 500, 1000, 2560));
  write_file(p / "510/stat", stat_line(510, "ninja", 'S', 500, 500, 500, 1100, 100));
  write_file(p / "520/stat", stat_line(520, "sh", 'S', 510, 520, 500, 1200, 50));
  // A comm with spaces and parentheses, as a process may name itself.
  write_file(p / "521/stat", stat_line(521, "cc1plus) (x y", 'T', 520, 520, 500, 1300, 262144));
  write_file(p / "522/stat", stat_line(522, ")", 'R', 520, 520, 500, 1301, 1));
  write_file(p / "523/stat", stat_line(523, "", 'D', 520, 520, 500, 1302, 0));
  // Not part of it: a zombie, another session, a daemon that left with setsid.
  write_file(p / "530/stat", stat_line(530, "cicc", 'Z', 520, 520, 500, 1400, 0));
  write_file(p / "600/stat", stat_line(600, "bash", 'S', 1, 600, 600, 10, 900));
  write_file(p / "601/stat", stat_line(601, "daemon", 'S', 1, 601, 601, 1500, 900));
  // Odd entries: not a pid, a pid directory without stat, a stat directory.
  write_file(p / "self/stat", stat_line(500, "python3", 'S', 10, 500, 500, 1000, 2560));
  write_file(p / "meminfo", "MemTotal: 1 kB\n");
  fs::create_directories(p / "700");
  fs::create_directories(p / "701/stat");

  auto samples = sample_process_group(500, p);
  std::sort(samples.begin(), samples.end(),
            [](const auto& a, const auto& b) { return a.pid < b.pid; });
  ASSERT_EQ(samples.size(), 6u);
  EXPECT_EQ(samples[0].pid, 500);
  EXPECT_EQ(samples[0].ppid, 10);
  EXPECT_EQ(samples[0].pgrp, 500);
  EXPECT_EQ(samples[0].session, 500);
  EXPECT_EQ(samples[0].start_ticks, 1000u);
  EXPECT_EQ(samples[0].rss_bytes, 2560 * kPage);
  EXPECT_EQ(samples[0].state, 'S');
  EXPECT_EQ(samples[0].comm, "python3");
  const auto* weird = find(samples, 521);
  ASSERT_NE(weird, nullptr);
  EXPECT_EQ(weird->comm, "cc1plus) (x y");
  EXPECT_EQ(weird->state, 'T');
  EXPECT_EQ(weird->ppid, 520);
  EXPECT_EQ(weird->pgrp, 520);
  EXPECT_EQ(weird->rss_bytes, 262144 * kPage);
  ASSERT_NE(find(samples, 522), nullptr);
  EXPECT_EQ(find(samples, 522)->comm, ")");
  ASSERT_NE(find(samples, 523), nullptr);
  EXPECT_EQ(find(samples, 523)->comm, "");
  EXPECT_EQ(find(samples, 530), nullptr);

  // Job 520's own group alone, when the root does not lead a session.
  EXPECT_EQ(sample_process_group(520, p).size(), 4u);
  // The daemon's own session holds it alone; nothing matches pid 0 or below.
  EXPECT_EQ(sample_process_group(601, p).size(), 1u);
  EXPECT_TRUE(sample_process_group(0, p).empty());
  EXPECT_TRUE(sample_process_group(-500, p).empty());
  // A proc root that is not there is an empty sample, not a failure.
  EXPECT_TRUE(sample_process_group(500, p / "missing").empty());

  // The orphans a subreaper must reap: children of 520 in the build, zombies too.
  auto children = build_children_of(500, 520, p);
  std::sort(children.begin(), children.end());
  EXPECT_EQ(children, (std::vector<int>{521, 522, 523, 530}));
}

TEST(ProcessTree, SkipsGarbledAndTruncatedStatLines) {
  test::TempDir proc("proc");
  const fs::path p = proc.path();
  write_file(p / "500/stat", stat_line(500, "python3", 'S', 10, 500, 500, 1000, 10));
  const std::string good = stat_line(501, "cicc", 'R', 500, 500, 500, 2000, 10);
  // Cut inside the fields the reader needs, and just before the rss.
  write_file(p / "501/stat", good.substr(0, good.find(" 2000 ")));
  write_file(p / "502/stat",
             "502 (cicc) R 500 500 500 0 -1 4194560 120 0 0 0 3 1 0 0 20 0 1 0 2000 123");
  write_file(p / "503/stat", "");                               // empty
  write_file(p / "504/stat", "garbage without parentheses\n");  // no comm
  write_file(p / "505/stat", "505 (cicc R 500 500 500\n");      // no closing parenthesis
  write_file(p / "506/stat", ") 506 (cicc\n");                  // parentheses backwards
  write_file(p / "507/stat", stat_line(507, "cicc", 'R', 500, 500, 500, 2000, 10)
                                 .replace(0, 3, "abc"));  // pid not a number
  std::string bad_rss = stat_line(508, "cicc", 'R', 500, 500, 500, 2000, 10);
  bad_rss.replace(bad_rss.find(" 12345678 10 ") + 10, 2, "1x");
  write_file(p / "508/stat", bad_rss);  // rss not a number
  std::string bad_state = stat_line(509, "cicc", 'R', 500, 500, 500, 2000, 10);
  bad_state.replace(bad_state.find(") R ") + 2, 1, "RR");
  write_file(p / "509/stat", bad_state);  // two-letter state
  write_file(p / "510/stat", stat_line(510, "cicc", 'R', 500, 500, 500, 99, 18446744073709551615u));
  write_file(p / "511/stat", std::string(8192, '9'));  // far too long for a stat line
  write_file(p / "512/stat", stat_line(512, std::string(1000, 'x'), 'R', 500, 500, 500, 1, 1));
  write_file(p / "513/stat", stat_line(513, "cicc", 'R', -7, 500, 500, 1, 1));  // odd but parsable

  const auto samples = sample_process_group(500, p);
  std::vector<int> pids;
  for (const auto& s : samples) pids.push_back(s.pid);
  std::sort(pids.begin(), pids.end());
  EXPECT_EQ(pids, (std::vector<int>{500, 512, 513}));
}

// A child leading its own session, as the supervisor starts builds.
pid_t spawn_session(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, argv[0], nullptr, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  return rc == 0 ? pid : -1;
}

// Samples until `done` holds (at most ~20 s: the machine may be loaded).
std::vector<ProcessSample> sample_until(
    int pgid, const std::function<bool(const std::vector<ProcessSample>&)>& done) {
  std::vector<ProcessSample> samples;
  for (int i = 0; i < 2000; ++i) {
    samples = sample_process_group(pgid);
    if (done(samples)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return samples;
}

TEST(ProcessTree, SamplesTheLiveProcessesOfARealChild) {
  test::TempDir dir("proc");
  const std::string pidfile = (dir.path() / "hog.pid").string();
  // sh leads the session; a job in a process group of its own (as ninja makes
  // them) holds a 48 MiB hog; a sleep stops itself.
  const std::string script = std::string("perl -e 'setpgrp(0, 0); exec @ARGV' ") +
                             FLASHFIT_FIXTURE_MEMHOG + " 48 0 60000 " + pidfile +
                             " >/dev/null & sleep 60 & kill -STOP $!; wait";
  const pid_t root = spawn_session({"/bin/sh", "-c", script});
  ASSERT_GT(root, 0);
  const auto samples = sample_until(root, [](const std::vector<ProcessSample>& s) {
    std::size_t stopped = 0;
    bool hog_full = false;
    for (const auto& p : s) {
      if (p.state == 'T') ++stopped;
      if (p.comm == "memhog" && p.rss_bytes >= 48 * kMiB) hog_full = true;
    }
    return s.size() >= 3 && stopped >= 1 && hog_full;
  });
  ::kill(-root, SIGKILL);
  for (const auto& p : samples) ::kill(-p.pgrp, SIGKILL);
  for (const auto& p : samples) ::kill(p.pid, SIGKILL);
  ::waitpid(root, nullptr, 0);

  const ProcessSample* sh = find(samples, root);
  ASSERT_NE(sh, nullptr);
  EXPECT_EQ(sh->comm, "sh");
  EXPECT_EQ(sh->pgrp, root);
  EXPECT_EQ(sh->session, root);
  EXPECT_GT(sh->start_ticks, 0u);
  const ProcessSample* hog = nullptr;
  const ProcessSample* sleeper = nullptr;
  for (const auto& p : samples) {
    if (p.comm == "memhog") hog = &p;
    if (p.state == 'T') sleeper = &p;  // stopped maybe before its exec: comm "sh" or "sleep"
  }
  ASSERT_NE(hog, nullptr);
  ASSERT_NE(sleeper, nullptr);
  EXPECT_EQ(hog->ppid, root);
  EXPECT_NE(hog->pgrp, root);  // its own group: found through the session
  EXPECT_EQ(hog->session, root);
  EXPECT_GE(hog->rss_bytes, 48 * kMiB);
  EXPECT_LT(hog->rss_bytes, 64 * kMiB);
  EXPECT_GE(hog->start_ticks, sh->start_ticks);
  EXPECT_EQ(sleeper->ppid, root);
  EXPECT_EQ(sleeper->pgrp, root);
  std::ifstream in(pidfile);
  int written = 0;
  in >> written;
  EXPECT_EQ(written, hog->pid);
  // This test process is in none of it.
  EXPECT_EQ(find(samples, static_cast<int>(::getpid())), nullptr);
}

TEST(ProcessTree, AvailableMemoryIsMemAvailableCappedByTheCgroup) {
  test::TempDir root("mem");
  const fs::path r = root.path();
  write_file(r / "proc/meminfo",
             "MemTotal:  8000000 kB\nMemFree:  10 kB\nMemAvailable:    4000000 kB\n");
  EXPECT_EQ(sample_available_memory(r), std::uint64_t{4000000} * 1024);

  // A cgroup v2 limit of 1 GiB with 256 MiB used: 768 MiB is what is left.
  write_file(r / "proc/self/cgroup", "0::/build\n");
  write_file(r / "sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  write_file(r / "sys/fs/cgroup/build/memory.max", "1073741824\n");
  write_file(r / "sys/fs/cgroup/build/memory.current", "268435456\n");
  EXPECT_EQ(sample_available_memory(r), 768 * kMiB);

  // Garbled meminfo: the cgroup's figure alone.
  write_file(r / "proc/meminfo", "MemAvailable: lots\n");
  EXPECT_EQ(sample_available_memory(r), 768 * kMiB);
  write_file(r / "proc/meminfo", "XMemAvailable: 5 kB\n");
  EXPECT_EQ(sample_available_memory(r), 768 * kMiB);
  write_file(r / "proc/meminfo", "MemAvailable: 99999999999999999999999 kB\n");
  EXPECT_EQ(sample_available_memory(r), 768 * kMiB);

  // Neither: unknown.
  test::TempDir empty("mem");
  EXPECT_FALSE(sample_available_memory(empty.path()));
  write_file(empty.path() / "proc/meminfo", "MemTotal: 1 kB\n");
  EXPECT_FALSE(sample_available_memory(empty.path()));

  // This machine has some.
  const auto here = sample_available_memory("/");
  ASSERT_TRUE(here);
  EXPECT_GT(*here, 0u);
}

}  // namespace
}  // namespace flashfit::build
