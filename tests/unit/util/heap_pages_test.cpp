#include "util/heap_pages.hpp"

#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../in_child.hpp"

using flashfit::util::prepare_heap;

namespace {

using flashfit::test::in_child;

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
    // (The kernel takes the advice even where THP is off: only its absence
    // where THP is offered is wrong.)
    if (thp && done.advised == 0) return 11;
    if (done.advised > done.grown || done.advised % (std::size_t{2} << 20) != 0) return 12;
    if (done.advised > 0) {
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
  EXPECT_EQ(code, 0) << "10: not grown, 11: no THP advice where THP is offered"
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

// A free chunk inside the heap (a buffer freed below live data) cannot serve
// the growing request: the heap still grows.
TEST(HeapPages, AHoleInTheHeapDoesNotStopTheGrowth) {
  if (kSanitizedHeap) GTEST_SKIP() << "ASan's allocator, not glibc's brk heap, serves malloc here";
  const int code = in_child([] {
    // A buffer from the heap (as glibc's dynamic mmap threshold allows after a
    // first one is freed), larger than the free space at the top.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    void* buffer = std::malloc(mallinfo2().fordblks + (std::size_t{2} << 20));
    // Live data above it, from the top too (larger than any free chunk).
    void* after = std::malloc(mallinfo2().fordblks + 4096);
    asm volatile("" : : "r"(buffer), "r"(after) : "memory");
    std::free(buffer);
    const auto done = prepare_heap(std::size_t{16} << 20);
    return done.grown > 0 && mallinfo2().keepcost >= (std::size_t{16} << 20) ? 0 : 1;
  });
  EXPECT_EQ(code, 0);
}

// Only the one growth is padded: a process near its address-space limit can
// still grow the heap by what it needs once the pad is used up.
TEST(HeapPages, LaterGrowthsAreNotPadded) {
  if (kSanitizedHeap) GTEST_SKIP() << "ASan's shadow memory does not fit an address-space limit";
  const int code = in_child([] {
    constexpr std::size_t kPad = std::size_t{16} << 20;
    if (prepare_heap(kPad).grown == 0) return 10;
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0;
    if (!(statm >> pages)) return 11;
    const auto size = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE));
    const rlimit limit{size + (rlim_t{12} << 20), size + (rlim_t{12} << 20)};
    if (setrlimit(RLIMIT_AS, &limit) != 0) return 12;
    // The pad, then 8 MiB more in 64 KiB blocks: past the pad the heap grows
    // by what each block needs, within the 12 MiB left.
    std::vector<void*> blocks;
    for (std::size_t got = 0; got < kPad + (std::size_t{8} << 20); got += 64 << 10) {
      void* block = std::malloc(64 << 10);
      if (block == nullptr) return 13;
      blocks.push_back(block);
    }
    return 0;
  });
  EXPECT_EQ(code, 0) << "10: not grown, 11/12: no limit set, 13: an allocation failed past the pad";
}
