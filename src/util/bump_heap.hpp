#pragma once
// A scope in which this thread's small C++ allocations (operator new of at
// most kBumpMaxBytes) are carved one after another from a region reserved once
// per process, and their deletes cost nothing: for a command that builds tens
// of thousands of small records and keeps them until it exits. A resolve over
// the full catalog makes about 49,000 allocations (12 MB) and frees under
// 1 MB of them before it ends; glibc's malloc took about 150 instructions for
// each (none come from its thread cache: nothing was freed to serve them), the
// frees about 90, together 15% of the resolve (bench/README.md).
//
// What is carved stays until the process ends: a delete inside or after the
// scope is a no-op, so the scope suits only work whose small allocations live
// about as long as the command. Larger blocks, other threads, and everything
// outside a scope are malloc's as always. When the region is spent (or could
// not be reserved, e.g. under a tight `ulimit -v`) allocation falls back to
// malloc. Under AddressSanitizer the scope does nothing, so that every block
// stays checked.
#include <cstddef>

namespace flashfit::util {

// The largest request carved from the region: the resolver's strings and
// small vectors; a growing buffer's old copies above it go back to malloc.
inline constexpr std::size_t kBumpMaxBytes = 4096;

class BumpHeapScope {
 public:
  BumpHeapScope();
  ~BumpHeapScope();
  BumpHeapScope(const BumpHeapScope&) = delete;
  BumpHeapScope& operator=(const BumpHeapScope&) = delete;
};

// For tests and -v: whether this build carves at all, the region's size, and
// how much of it has been carved.
struct BumpHeapStats {
  bool enabled = false;  // false under AddressSanitizer
  std::size_t reserved = 0;
  std::size_t carved = 0;
};
BumpHeapStats bump_heap_stats();

// Whether `p` was carved from the region (delete leaves it there).
bool bump_heap_owns(const void* p);

}  // namespace flashfit::util
