#include "util/heap_pages.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace flashfit::util {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

char* heap_end() {
  void* end = sbrk(0);
  // sbrk's failure value is (void*)-1.
  return reinterpret_cast<std::uintptr_t>(end) == UINTPTR_MAX ? nullptr : static_cast<char*>(end);
}

// How far `at` is past the last 2 MiB boundary.
std::size_t past_boundary(const char* at) {
  return static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(at) % kHugePage);
}

}  // namespace

HeapPreparation prepare_heap(std::size_t bytes) {
  HeapPreparation done;
  constexpr std::size_t kMaxFromHeap = std::size_t{32} << 20;  // glibc's largest mmap threshold
  constexpr int kDefaultTopPad = 128 * 1024;                   // mallopt(3)'s M_TOP_PAD default
  char* before = heap_end();
  if (before == nullptr || bytes == 0 || bytes > (std::size_t{1} << 30)) return done;
  // Grow it now, while its new end can still be advised: ask for more than
  // all the free memory the heap holds (mallinfo2's fordblks, so that no free
  // chunk can serve it), from the heap, not from mmap, with `bytes` of padding
  // (M_TOP_PAD) for this one growth only; then give it back, kept at the top
  // (the trim threshold raised above it). Later growths are glibc's usual size
  // again: a process near its memory limit is never asked for the pad twice.
  // The mmap threshold stays raised, so that the resolver's large vectors (the
  // candidates, the judged wheels: a few MB each) come from the huge pages
  // too (1 ms more per resolve when it was put back); a command's freed memory
  // then stays with it until it ends.
  const std::size_t ask = mallinfo2().fordblks + 4096;
  if (ask >= kMaxFromHeap) return done;
  if (mallopt(M_TOP_PAD, static_cast<int>(bytes)) != 1) return done;
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMaxFromHeap));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(bytes + ask + kHugePage));
  void* grow = std::malloc(ask);
  // Kept from the optimiser, which may drop a malloc whose block is never used.
  asm volatile("" : : "r"(grow) : "memory");
  mallopt(M_TOP_PAD, kDefaultTopPad);
  std::free(grow);
  char* after = heap_end();
  if (after == nullptr || after <= before) return done;
  done.grown = static_cast<std::size_t>(after - before);
  // Only whole 2 MiB pages can be huge; the pages below `before` are in use
  // and keep their small pages.
  const std::size_t up = past_boundary(before) == 0 ? 0 : kHugePage - past_boundary(before);
  if (done.grown <= up) return done;
  char* first = before + up;
  char* last = after - past_boundary(after);
  if (last <= first) return done;
  const auto length = static_cast<std::size_t>(last - first);
  if (madvise(first, length, MADV_HUGEPAGE) == 0) {
    done.advised = length;
    done.advised_at = first;
  }
  return done;
}

}  // namespace flashfit::util
