#include "env/machine.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "temp_tree.hpp"

using flashfit::env::LibcInfo;
using flashfit::env::MachineFacts;
using flashfit::env::MachineProbeOptions;
using flashfit::env::parse_cpu_list;
using flashfit::env::probe_machine;
using flashfit::env::UnameFacts;
using flashfit::env::testing::TempTree;

namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// A machine with 16 GiB (12 available) and 8 online CPUs, no cgroup yet.
class MachineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tree.write("proc/meminfo",
               "MemTotal:       16777216 kB\nMemFree:         1000000 kB\n"
               "MemAvailable:   12582912 kB\nBuffers:           1000 kB\n");
    tree.write("sys/devices/system/cpu/online", "0-7\n");
    tree.write("etc/os-release",
               "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n"
               "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n");
    options.root = tree.root();
    options.affinity_cpus = 8;
    options.uname = UnameFacts{"Linux", "6.1.0-18-amd64", "x86_64"};
  }

  void cgroup_v2(const std::string& path) {
    tree.write("proc/self/cgroup", "0::" + path + "\n");
    tree.write("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
  }

  MachineFacts probe() const { return probe_machine(options); }

  TempTree tree;
  MachineProbeOptions options;
};

bool mentions(const std::vector<std::string>& warnings, const std::string& needle) {
  for (const auto& w : warnings)
    if (w.find(needle) != std::string::npos) return true;
  return false;
}

TEST_F(MachineTest, NoCgroupUsesProcAndSysValues) {
  const auto f = probe();
  ASSERT_TRUE(f.memory_total_bytes.known());
  EXPECT_EQ(*f.memory_total_bytes, 16 * kGiB);
  EXPECT_EQ(f.memory_total_bytes.source, "/proc/meminfo MemTotal");
  ASSERT_TRUE(f.memory_available_bytes.known());
  EXPECT_EQ(*f.memory_available_bytes, 12 * kGiB);
  EXPECT_EQ(f.memory_available_bytes.source, "/proc/meminfo MemAvailable");
  ASSERT_TRUE(f.cpu_count.known());
  EXPECT_EQ(*f.cpu_count, 8u);
  EXPECT_EQ(f.cpu_count.source, "/sys/devices/system/cpu/online");
  EXPECT_TRUE(f.warnings.empty());
}

TEST_F(MachineTest, CgroupV2LimitsCapMemoryAndCpus) {
  cgroup_v2("/user.slice/job");
  tree.write("sys/fs/cgroup/user.slice/job/memory.max", "4294967296\n");
  tree.write("sys/fs/cgroup/user.slice/job/memory.current", "1073741824\n");
  tree.write("sys/fs/cgroup/user.slice/job/cpu.max", "150000 100000\n");
  const auto f = probe();
  EXPECT_EQ(*f.memory_total_bytes, 4 * kGiB);
  EXPECT_EQ(f.memory_total_bytes.source, "cgroup v2 /sys/fs/cgroup/user.slice/job/memory.max");
  EXPECT_EQ(*f.memory_available_bytes, 3 * kGiB);
  EXPECT_NE(f.memory_available_bytes.source.find("memory.current"), std::string::npos);
  EXPECT_EQ(*f.cpu_count, 2u);  // 1.5 CPUs of quota, rounded up
  EXPECT_EQ(f.cpu_count.source, "cgroup v2 /sys/fs/cgroup/user.slice/job/cpu.max");
}

TEST_F(MachineTest, CgroupV2ReclaimableCacheIsNotCountedAsUsed) {
  cgroup_v2("/job");
  tree.write("sys/fs/cgroup/job/memory.max", "4294967296\n");
  tree.write("sys/fs/cgroup/job/memory.current", "2147483648\n");
  tree.write("sys/fs/cgroup/job/memory.stat", "anon 1073741824\ninactive_file 536870912\n");
  EXPECT_EQ(*probe().memory_available_bytes, 2 * kGiB + 512 * kMiB);
}

TEST_F(MachineTest, CgroupV2MaxMeansUnlimited) {
  cgroup_v2("/job");
  tree.write("sys/fs/cgroup/job/memory.max", "max\n");
  tree.write("sys/fs/cgroup/job/memory.current", "1073741824\n");
  tree.write("sys/fs/cgroup/job/cpu.max", "max 100000\n");
  const auto f = probe();
  EXPECT_EQ(*f.memory_total_bytes, 16 * kGiB);
  EXPECT_EQ(*f.memory_available_bytes, 12 * kGiB);
  EXPECT_EQ(*f.cpu_count, 8u);
  EXPECT_EQ(f.cpu_count.source, "/sys/devices/system/cpu/online");
  EXPECT_TRUE(f.warnings.empty());
}

TEST_F(MachineTest, NestedCgroupV2TakesTighterParent) {
  cgroup_v2("/outer/inner");
  tree.write("sys/fs/cgroup/outer/memory.max", "2147483648\n");
  tree.write("sys/fs/cgroup/outer/memory.current", "1610612736\n");
  tree.write("sys/fs/cgroup/outer/cpu.max", "100000 100000\n");
  tree.write("sys/fs/cgroup/outer/inner/memory.max", "8589934592\n");
  tree.write("sys/fs/cgroup/outer/inner/memory.current", "1073741824\n");
  tree.write("sys/fs/cgroup/outer/inner/cpu.max", "400000 100000\n");
  const auto f = probe();
  EXPECT_EQ(*f.memory_total_bytes, 2 * kGiB);
  EXPECT_EQ(f.memory_total_bytes.source, "cgroup v2 /sys/fs/cgroup/outer/memory.max");
  EXPECT_EQ(*f.memory_available_bytes, 512 * kMiB);  // the parent's headroom is smaller
  EXPECT_EQ(*f.cpu_count, 1u);
  EXPECT_EQ(f.cpu_count.source, "cgroup v2 /sys/fs/cgroup/outer/cpu.max");
}

TEST_F(MachineTest, NestedCgroupV2TakesTighterChild) {
  cgroup_v2("/outer/inner");
  tree.write("sys/fs/cgroup/outer/memory.max", "8589934592\n");
  tree.write("sys/fs/cgroup/outer/memory.current", "0\n");
  tree.write("sys/fs/cgroup/outer/inner/memory.max", "3221225472\n");
  tree.write("sys/fs/cgroup/outer/inner/memory.current", "0\n");
  const auto f = probe();
  EXPECT_EQ(*f.memory_total_bytes, 3 * kGiB);
  EXPECT_EQ(f.memory_total_bytes.source, "cgroup v2 /sys/fs/cgroup/outer/inner/memory.max");
}

TEST_F(MachineTest, CgroupV1MemoryAndCpuQuota) {
  tree.write("proc/self/cgroup",
             "12:pids:/docker/abc\n4:memory:/docker/abc\n"
             "3:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n");
  tree.write("sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "2147483648\n");
  tree.write("sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes", "1073741824\n");
  tree.write("sys/fs/cgroup/memory/docker/abc/memory.stat",
             "cache 100\ninactive_file 1\ntotal_inactive_file 268435456\n");
  tree.write("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "250000\n");
  tree.write("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
  const auto f = probe();
  EXPECT_EQ(*f.memory_total_bytes, 2 * kGiB);
  EXPECT_EQ(f.memory_total_bytes.source,
            "cgroup v1 /sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes");
  EXPECT_EQ(*f.memory_available_bytes, 1 * kGiB + 256 * kMiB);
  EXPECT_EQ(*f.cpu_count, 3u);
  EXPECT_EQ(f.cpu_count.source, "cgroup v1 /sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us");
}

TEST_F(MachineTest, CgroupV1UnlimitedSentinelIsNoLimit) {
  tree.write("proc/self/cgroup", "4:memory:/job\n2:cpu:/job\n");
  tree.write("sys/fs/cgroup/memory/job/memory.limit_in_bytes", "9223372036854771712\n");
  tree.write("sys/fs/cgroup/memory/job/memory.usage_in_bytes", "1073741824\n");
  tree.write("sys/fs/cgroup/cpu/job/cpu.cfs_quota_us", "-1\n");
  tree.write("sys/fs/cgroup/cpu/job/cpu.cfs_period_us", "100000\n");
  const auto f = probe();
  EXPECT_EQ(*f.memory_total_bytes, 16 * kGiB);
  EXPECT_EQ(f.memory_total_bytes.source, "/proc/meminfo MemTotal");
  EXPECT_EQ(*f.memory_available_bytes, 12 * kGiB);
  EXPECT_EQ(*f.cpu_count, 8u);
  EXPECT_TRUE(f.warnings.empty());
}

TEST_F(MachineTest, CgroupV1SentinelIsNotAMemorySizeWhenMeminfoIsUnreadable) {
  tree.write("proc/meminfo", "garbled\n");
  tree.write("proc/self/cgroup", "4:memory:/job\n");
  tree.write("sys/fs/cgroup/memory/job/memory.limit_in_bytes", "9223372036854771712\n");
  tree.write("sys/fs/cgroup/memory/job/memory.usage_in_bytes", "0\n");
  const auto f = probe();
  EXPECT_FALSE(f.memory_total_bytes.known());
  EXPECT_FALSE(f.memory_available_bytes.known());
}

// Docker without a cgroup namespace: /proc/self/cgroup names the host path,
// but the container's own cgroup is mounted at the hierarchy's root.
TEST_F(MachineTest, CgroupV1PathMissingFallsBackToMountRoot) {
  tree.write("proc/self/cgroup", "4:memory:/docker/0123abcd\n");
  tree.write("sys/fs/cgroup/memory/memory.limit_in_bytes", "1073741824\n");
  tree.write("sys/fs/cgroup/memory/memory.usage_in_bytes", "0\n");
  const auto f = probe();
  EXPECT_EQ(*f.memory_total_bytes, 1 * kGiB);
  EXPECT_EQ(f.memory_total_bytes.source, "cgroup v1 /sys/fs/cgroup/memory/memory.limit_in_bytes");
}

// Hybrid mode (as on this project's CI VM): a "0::/" line for the unified tree,
// but the memory controller is bound to v1.
TEST_F(MachineTest, HybridCgroupReadsMemoryFromV1) {
  tree.write("proc/self/cgroup", "4:memory:/job\n1:cpu:/\n0::/\n");
  tree.write("sys/fs/cgroup/unified/cgroup.controllers", "");
  tree.write("sys/fs/cgroup/memory/job/memory.limit_in_bytes", "6442450944\n");
  tree.write("sys/fs/cgroup/memory/job/memory.usage_in_bytes", "0\n");
  tree.write("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");
  const auto f = probe();
  EXPECT_EQ(*f.memory_total_bytes, 6 * kGiB);
  EXPECT_EQ(*f.cpu_count, 8u);
}

TEST_F(MachineTest, GarbledMeminfoWithoutCgroupIsUnknownWithReason) {
  tree.write("proc/meminfo", "MemTotal: lots kB\nMemAvailable: \n");
  const auto f = probe();
  EXPECT_FALSE(f.memory_total_bytes.known());
  EXPECT_NE(f.memory_total_bytes.unknown_reason.find("MemTotal"), std::string::npos);
  EXPECT_FALSE(f.memory_available_bytes.known());
  EXPECT_TRUE(mentions(f.warnings, "MemTotal"));
}

TEST_F(MachineTest, GarbledMeminfoFallsBackToCgroupLimit) {
  tree.write("proc/meminfo", "\x01\x02garbage");
  cgroup_v2("/job");
  tree.write("sys/fs/cgroup/job/memory.max", "1073741824\n");
  tree.write("sys/fs/cgroup/job/memory.current", "268435456\n");
  const auto f = probe();
  EXPECT_EQ(*f.memory_total_bytes, 1 * kGiB);
  EXPECT_EQ(*f.memory_available_bytes, 768 * kMiB);
}

TEST_F(MachineTest, GarbledCgroupLimitFilesAreIgnoredWithWarning) {
  cgroup_v2("/job");
  tree.write("sys/fs/cgroup/job/cpu.max", "banana\n");
  tree.write("sys/fs/cgroup/job/memory.max", "-5\n");
  const auto f = probe();
  EXPECT_EQ(*f.cpu_count, 8u);
  EXPECT_EQ(*f.memory_total_bytes, 16 * kGiB);
  EXPECT_TRUE(mentions(f.warnings, "/sys/fs/cgroup/job/cpu.max"));
  EXPECT_TRUE(mentions(f.warnings, "/sys/fs/cgroup/job/memory.max"));
}

TEST_F(MachineTest, UnreadableUsageStillBoundsAvailableByTheLimit) {
  cgroup_v2("/job");
  tree.write("sys/fs/cgroup/job/memory.max", "2147483648\n");
  tree.write("sys/fs/cgroup/job/memory.current", "lots\n");
  const auto f = probe();
  EXPECT_EQ(*f.memory_total_bytes, 2 * kGiB);
  EXPECT_EQ(*f.memory_available_bytes, 2 * kGiB);
  EXPECT_EQ(f.memory_available_bytes.source, "cgroup v2 /sys/fs/cgroup/job/memory.max");
  EXPECT_TRUE(mentions(f.warnings, "memory.current"));
}

TEST_F(MachineTest, CpuMaxWithZeroPeriodIsGarbled) {
  cgroup_v2("/job");
  tree.write("sys/fs/cgroup/job/cpu.max", "100000 0\n");
  const auto f = probe();
  EXPECT_EQ(*f.cpu_count, 8u);
  EXPECT_TRUE(mentions(f.warnings, "cpu.max"));
}

TEST_F(MachineTest, GarbledProcSelfCgroupIsIgnored) {
  tree.write("proc/self/cgroup", "garbage without colons\nx:memory:/job\n0::/../../etc\n");
  tree.write("sys/fs/cgroup/cgroup.controllers", "memory\n");
  tree.write("etc/memory.max", "1\n");  // what a path climbing out of /sys would read
  const auto f = probe();
  EXPECT_EQ(*f.memory_total_bytes, 16 * kGiB);
  EXPECT_EQ(f.warnings.size(), 3u);
}

TEST_F(MachineTest, DotComponentsInProcSelfCgroupAreGarbled) {
  // The kernel writes normalised paths: "/." would name the root's files by a
  // second, unnormalised spelling in the facts' sources (found by the cgroup
  // fuzzer: tests/fuzz/corpus/cgroup/dot-component).
  tree.write("proc/self/cgroup", "0::/.\n");
  tree.write("sys/fs/cgroup/cgroup.controllers", "memory\n");
  tree.write("sys/fs/cgroup/memory.max", "4294967296\n");
  const auto f = probe();
  EXPECT_EQ(*f.memory_total_bytes, 16 * kGiB);
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_TRUE(mentions(f.warnings, "ignored garbled line in /proc/self/cgroup: 0::/."));
}

TEST_F(MachineTest, MissingProcAndSysFilesLeaveFactsUnknownOrFallBack) {
  TempTree empty;
  options.root = empty.root();
  const auto f = probe();
  EXPECT_FALSE(f.memory_total_bytes.known());
  EXPECT_NE(f.memory_total_bytes.unknown_reason.find("/proc/meminfo"), std::string::npos);
  EXPECT_FALSE(f.memory_available_bytes.known());
  ASSERT_TRUE(f.cpu_count.known());
  EXPECT_EQ(*f.cpu_count, 8u);
  EXPECT_EQ(f.cpu_count.source, "injected CPU affinity");
  EXPECT_FALSE(f.os.known());
  EXPECT_FALSE(f.os.unknown_reason.empty());
}

TEST_F(MachineTest, AffinityBelowOnlineDecidesCpuCount) {
  options.affinity_cpus = 3;
  const auto f = probe();
  EXPECT_EQ(*f.cpu_count, 3u);
  EXPECT_EQ(f.cpu_count.source, "injected CPU affinity");
}

TEST_F(MachineTest, CpuinfoCountsWhenSysfsIsMissingOrGarbled) {
  tree.write("sys/devices/system/cpu/online", "zero-seven\n");
  tree.write("proc/cpuinfo", "processor\t: 0\nmodel name\t: x\n\nprocessor\t: 1\n\n");
  const auto f = probe();
  EXPECT_EQ(*f.cpu_count, 2u);
  EXPECT_EQ(f.cpu_count.source, "/proc/cpuinfo");
  EXPECT_TRUE(mentions(f.warnings, "/sys/devices/system/cpu/online"));
}

TEST_F(MachineTest, OsReleasePrettyNameAndFallbacks) {
  EXPECT_EQ(*probe().os, "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(probe().os.source, "/etc/os-release PRETTY_NAME");
  tree.write("etc/os-release", "NAME='Alpine Linux'\nVERSION_ID=3.19.1\n");
  EXPECT_EQ(*probe().os, "Alpine Linux 3.19.1");
  std::filesystem::remove(tree.root() / "etc/os-release");
  tree.write("usr/lib/os-release", "PRETTY_NAME=\"Fedora \\\"40\\\"\"\n");
  EXPECT_EQ(*probe().os, "Fedora \"40\"");
  EXPECT_EQ(probe().os.source, "/usr/lib/os-release PRETTY_NAME");
}

TEST_F(MachineTest, InjectedUnameAndLibc) {
  options.libc = LibcInfo{"musl", ""};
  const auto f = probe();
  EXPECT_EQ(*f.kernel, "6.1.0-18-amd64");
  EXPECT_EQ(*f.arch, "x86_64");
  EXPECT_EQ(f.libc->name, "musl");
}

TEST_F(MachineTest, DiskFreeWalksUpToExistingParent) {
  const auto existing = tree.mkdir("cache");
  options.disk_dirs = {existing, existing / "not/yet/created", ""};
  const auto f = probe();
  ASSERT_EQ(f.disks.size(), 3u);
  ASSERT_TRUE(f.disks[0].space.known());
  EXPECT_EQ(f.disks[0].space->measured_at, existing);
  EXPECT_GT(f.disks[0].space->total_bytes, 0u);
  EXPECT_LE(f.disks[0].space->free_bytes, f.disks[0].space->total_bytes);
  ASSERT_TRUE(f.disks[1].space.known());
  EXPECT_EQ(f.disks[1].space->measured_at, existing);
  EXPECT_EQ(f.disks[1].dir, existing / "not/yet/created");
  EXPECT_EQ(f.disks[1].space.source, "statvfs " + existing.string());
  EXPECT_FALSE(f.disks[2].space.known());
}

TEST(MachineReal, RealMachineFactsAreKnown) {
  MachineProbeOptions options;
  options.disk_dirs = {std::filesystem::temp_directory_path()};
  const auto f = probe_machine(options);
  ASSERT_TRUE(f.cpu_count.known()) << f.cpu_count.unknown_reason;
  EXPECT_GE(*f.cpu_count, 1u);
  EXPECT_LE(*f.cpu_count, static_cast<unsigned>(::sysconf(_SC_NPROCESSORS_CONF)));
  ASSERT_TRUE(f.memory_total_bytes.known()) << f.memory_total_bytes.unknown_reason;
  EXPECT_GT(*f.memory_total_bytes, 0u);
  ASSERT_TRUE(f.memory_available_bytes.known()) << f.memory_available_bytes.unknown_reason;
  EXPECT_GT(*f.memory_available_bytes, 0u);
  EXPECT_LE(*f.memory_available_bytes, *f.memory_total_bytes);
  EXPECT_TRUE(f.os.known()) << f.os.unknown_reason;
  EXPECT_TRUE(f.kernel.known());
  EXPECT_TRUE(f.arch.known());
  ASSERT_TRUE(f.libc.known());
  EXPECT_EQ(f.libc->name, "glibc");
  EXPECT_FALSE(f.libc->version.empty());
  ASSERT_EQ(f.disks.size(), 1u);
  EXPECT_TRUE(f.disks[0].space.known());
}

TEST(MachineParseCpuList, KernelFormats) {
  EXPECT_EQ(parse_cpu_list("0"), 1u);
  EXPECT_EQ(parse_cpu_list("0-3\n"), 4u);
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), 7u);
  EXPECT_EQ(parse_cpu_list(""), std::nullopt);
  EXPECT_EQ(parse_cpu_list("3-1"), std::nullopt);
  EXPECT_EQ(parse_cpu_list("0-"), std::nullopt);
  EXPECT_EQ(parse_cpu_list("a-b"), std::nullopt);
  EXPECT_EQ(parse_cpu_list("0,,1"), std::nullopt);
}

}  // namespace
