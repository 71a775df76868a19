// The bump heap (util/bump_heap.hpp): the process's replacement of the global
// operator new and delete, which carve from one reserved region while this
// thread is inside a BumpHeapScope and are malloc and free otherwise.
#include "util/bump_heap.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define FLASHFIT_BUMP_HEAP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FLASHFIT_BUMP_HEAP 0
#endif
#endif
#ifndef FLASHFIT_BUMP_HEAP
#define FLASHFIT_BUMP_HEAP 1
#endif

namespace flashfit::util {
namespace {

// Virtual space only (MAP_NORESERVE, touched as carved): five times what a
// resolve over the full catalog carves.
constexpr std::size_t kRegionBytes = std::size_t{64} << 20;

std::atomic<char*> region{nullptr};
std::atomic<std::size_t> carved{0};
thread_local int scope_depth = 0;

void reserve_region() {
  static std::once_flag once;
  std::call_once(once, [] {
    void* p = mmap(nullptr, kRegionBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return;  // allocation stays malloc's
    // One fault per 2 MiB on first touch where the kernel has THP (util/heap_pages.hpp).
    (void)madvise(p, kRegionBytes, MADV_HUGEPAGE);
    region.store(static_cast<char*>(p), std::memory_order_release);
  });
}

#if FLASHFIT_BUMP_HEAP
// nullptr: not carved here (outside a scope, too large, no region, spent).
void* carve(std::size_t bytes) {
  constexpr std::size_t kAlign = __STDCPP_DEFAULT_NEW_ALIGNMENT__;
  if (scope_depth == 0 || bytes > kBumpMaxBytes) return nullptr;
  char* base = region.load(std::memory_order_acquire);
  if (base == nullptr) return nullptr;
  const std::size_t size = bytes == 0 ? kAlign : (bytes + kAlign - 1) & ~(kAlign - 1);
  const std::size_t at = carved.fetch_add(size, std::memory_order_relaxed);
  if (at + size > kRegionBytes) return nullptr;  // spent: malloc from now on
  return base + at;
}

// operator new's contract: retry through the new-handler, else bad_alloc.
void* malloc_or_throw(std::size_t bytes) {
  for (;;) {
    if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}
#endif

}  // namespace

BumpHeapScope::BumpHeapScope() {
  if (FLASHFIT_BUMP_HEAP) reserve_region();
  ++scope_depth;
}

BumpHeapScope::~BumpHeapScope() {
  --scope_depth;
}

bool bump_heap_owns(const void* p) {
  const char* base = region.load(std::memory_order_relaxed);
  if (base == nullptr) return false;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const auto start = reinterpret_cast<std::uintptr_t>(base);
  return at >= start && at - start < kRegionBytes;
}

BumpHeapStats bump_heap_stats() {
  BumpHeapStats stats;
  stats.enabled = FLASHFIT_BUMP_HEAP != 0;
  if (region.load(std::memory_order_acquire) != nullptr) stats.reserved = kRegionBytes;
  const std::size_t used = carved.load(std::memory_order_relaxed);
  stats.carved = used < stats.reserved ? used : stats.reserved;
  return stats;
}

}  // namespace flashfit::util

#if FLASHFIT_BUMP_HEAP
// The replaceable global forms ([new.delete.single]); the array, nothrow and
// sized forms of the C++ library call these. Aligned forms stay the library's.
void* operator new(std::size_t bytes) {
  if (void* p = flashfit::util::carve(bytes)) return p;
  return flashfit::util::malloc_or_throw(bytes);
}

void operator delete(void* p) noexcept {
  if (p == nullptr || flashfit::util::bump_heap_owns(p)) return;
  std::free(p);
}

void operator delete(void* p, std::size_t) noexcept {
  ::operator delete(p);
}
#endif
