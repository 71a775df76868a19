#include "util/heap_pages.hpp"

#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using flashfit::util::prepare_heap;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizedHeap = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitizedHeap = true;
#else
constexpr bool kSanitizedHeap = false;
#endif
#else
constexpr bool kSanitizedHeap = false;
#endif

// Whether the kernel offers transparent huge pages to a region that asks (madvise or always).
bool thp_offered() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  return std::getline(in, line) && line.find("[never]") == std::string::npos;
}

// The VmFlags line of the mapping in /proc/self/smaps that holds `address`.
std::string vm_flags_at(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    unsigned long start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &start, &end) == 2 && line.find(' ') != 0) {
      inside = start <= at && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

// Runs `body` in a child process (the heap's settings are the process's own,
// so the test binary's other tests keep glibc's defaults); returns its exit code.
template <class Body>
int in_child(Body body) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

}  // namespace

TEST(HeapPages, NothingAskedNothingDone) {
  const auto done = prepare_heap(0);
  EXPECT_EQ(done.grown, 0u);
  EXPECT_EQ(done.advised, 0u);
  EXPECT_EQ(done.advised_at, nullptr);
}

TEST(HeapPages, GrowsTheHeapOnceAdvisesItAndServesWhatFollowsFromIt) {
  if (kSanitizedHeap) GTEST_SKIP() << "ASan's allocator, not glibc's brk heap, serves malloc here";
  constexpr std::size_t kPad = std::size_t{64} << 20;
  const bool thp = thp_offered();
  const int code = in_child([&] {
    const auto done = prepare_heap(kPad);
    // The heap grew, and its free top now holds the pad at least.
    if (done.grown == 0 || mallinfo2().keepcost < kPad) return 10;
    if (thp != (done.advised > 0)) return 11;
    if (done.advised > done.grown || done.advised % (std::size_t{2} << 20) != 0) return 12;
    if (thp) {
      // The kernel records the advice on the mapping: "hg" in its VmFlags.
      if (vm_flags_at(done.advised_at).find(" hg") == std::string::npos) return 13;
    }
    // 32 MB of small records later, the heap has not grown again: they came from the pad.
    void* end = sbrk(0);
    std::vector<std::string> records;
    records.reserve(1 << 19);
    for (int i = 0; i < (1 << 19); ++i) records.emplace_back(40, static_cast<char>('a' + i % 26));
    if (records[1000][0] != 'a' + 1000 % 26) return 14;
    if (sbrk(0) != end) return 15;
    return 0;
  });
  EXPECT_EQ(code, 0) << "10: not grown, 11: THP advice " << (thp ? "missing" : "given without THP")
                     << ", 12: advised range, 13: no hg flag, 14: allocation, 15: grew again";
}

TEST(HeapPages, ASecondCallIsHarmless) {
  const int code = in_child([] {
    prepare_heap(std::size_t{8} << 20);
    prepare_heap(std::size_t{8} << 20);
    std::vector<char> block(std::size_t{1} << 20, 'x');
    return block[12345] == 'x' ? 0 : 1;
  });
  EXPECT_EQ(code, 0);
}
