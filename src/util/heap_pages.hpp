#pragma once
// A hint to the C library's heap for a command about to allocate many small
// records (the resolver's thousands of candidates and judged wheels): grow the
// heap once by `bytes` and let the kernel back it with transparent huge pages,
// so that first touch costs one fault per 2 MiB instead of one per 4 KiB (about
// a quarter of `resolve`'s time over the full catalog was page faults;
// bench/README.md). What glibc's `glibc.malloc.hugetlb=1` and
// `glibc.malloc.top_pad` tunables do, which can only be set from the
// environment before the process starts.
#include <cstddef>

namespace flashfit::util {

// What was done, for tests and -v: how many bytes the heap grew by, and how
// many of them were advised for huge pages (0 where the kernel has no THP,
// or the heap is not the brk heap, as under ASan).
struct HeapPreparation {
  std::size_t grown = 0;
  std::size_t advised = 0;
  const void* advised_at = nullptr;  // the first advised byte (2 MiB aligned)
};

// Best effort: a refusal leaves allocation working as always, and only this
// one growth is padded (later ones are glibc's usual size). What stays: the
// mmap threshold at 32 MiB and the trim threshold above the pad, so the
// command keeps up to `bytes` of freed memory until it ends. Call once, early
// in a command.
HeapPreparation prepare_heap(std::size_t bytes);

}  // namespace flashfit::util
