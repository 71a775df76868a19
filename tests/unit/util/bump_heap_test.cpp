#include "util/bump_heap.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../in_child.hpp"

using flashfit::util::bump_heap_owns;
using flashfit::util::bump_heap_stats;
using flashfit::util::BumpHeapScope;
using flashfit::util::kBumpMaxBytes;

namespace {

using flashfit::test::in_child;

// A heap block the optimiser cannot elide: its address escapes.
void* block(std::size_t bytes) {
  void* p = ::operator new(bytes);
  asm volatile("" : : "r"(p) : "memory");
  return p;
}

}  // namespace

TEST(BumpHeap, OutsideAScopeEveryBlockIsMallocs) {
  void* p = block(32);
  EXPECT_FALSE(bump_heap_owns(p));
  ::operator delete(p);
  auto text = std::make_unique<std::string>(200, 'x');
  EXPECT_FALSE(bump_heap_owns(text.get()));
}

TEST(BumpHeap, InsideAScopeSmallBlocksAreCarvedInOrderAndAligned) {
  if (!bump_heap_stats().enabled)
    GTEST_SKIP() << "AddressSanitizer build: the scope carves nothing";
  std::vector<void*> carved;
  carved.reserve(8);  // nothing but the blocks is allocated inside the scope
  {
    const BumpHeapScope scope;
    for (std::size_t bytes : {1, 16, 17, 100, 4096}) carved.push_back(block(bytes));
    for (void* p : carved) {
      EXPECT_TRUE(bump_heap_owns(p));
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % __STDCPP_DEFAULT_NEW_ALIGNMENT__, 0u);
    }
    // In sequence: each after the last, rounded up to the alignment.
    EXPECT_EQ(static_cast<char*>(carved[1]) - static_cast<char*>(carved[0]), 16);
    EXPECT_EQ(static_cast<char*>(carved[2]) - static_cast<char*>(carved[1]), 16);
    EXPECT_EQ(static_cast<char*>(carved[3]) - static_cast<char*>(carved[2]), 32);
    EXPECT_EQ(static_cast<char*>(carved[4]) - static_cast<char*>(carved[3]), 112);
    // Above the limit: malloc's, and its delete frees it.
    void* large = block(kBumpMaxBytes + 1);
    EXPECT_FALSE(bump_heap_owns(large));
    ::operator delete(large);
  }
  const auto stats = bump_heap_stats();
  EXPECT_GT(stats.reserved, 0u);
  EXPECT_GE(stats.carved, 16u + 16 + 32 + 112 + 4096);
  // Deleting carved blocks, after the scope too, leaves them where they are.
  for (void* p : carved) ::operator delete(p);
  EXPECT_TRUE(bump_heap_owns(carved[0]));
}

TEST(BumpHeap, WhatIsCarvedOutlivesTheScopeAndStaysWritable) {
  std::unique_ptr<std::vector<std::string>> kept;
  {
    const BumpHeapScope scope;
    kept = std::make_unique<std::vector<std::string>>();
    for (int i = 0; i < 1000; ++i)
      kept->push_back("a string longer than the small buffer " + std::to_string(i));
  }
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ((*kept)[static_cast<std::size_t>(i)],
              "a string longer than the small buffer " + std::to_string(i));
  kept->emplace_back(300, 'y');  // grows (and frees the old array) outside the scope
  EXPECT_EQ(kept->back(), std::string(300, 'y'));
  kept.reset();
}

TEST(BumpHeap, ScopesNestAndOtherThreadsKeepMalloc) {
  if (!bump_heap_stats().enabled)
    GTEST_SKIP() << "AddressSanitizer build: the scope carves nothing";
  const BumpHeapScope outer;
  {
    const BumpHeapScope inner;
    void* p = block(64);
    EXPECT_TRUE(bump_heap_owns(p));
  }
  void* still = block(64);
  EXPECT_TRUE(bump_heap_owns(still)) << "the outer scope is still open";
  bool other_owned = true;
  std::thread other([&] {
    void* q = block(64);
    other_owned = bump_heap_owns(q);
    ::operator delete(q);
  });
  other.join();
  EXPECT_FALSE(other_owned) << "a scope is its own thread's";
}

TEST(BumpHeap, ASpentRegionFallsBackToMalloc) {
  if (!bump_heap_stats().enabled)
    GTEST_SKIP() << "AddressSanitizer build: the scope carves nothing";
  // In a child: the parent's region keeps its room for the other tests.
  const int code = in_child([] {
    const BumpHeapScope scope;
    const std::size_t reserved = bump_heap_stats().reserved;
    if (reserved == 0) return 2;
    // Untouched blocks cost no memory: only the region's virtual space is used up.
    for (std::size_t n = 0; n <= reserved / kBumpMaxBytes; ++n) (void)block(kBumpMaxBytes);
    void* after = block(64);
    if (bump_heap_owns(after)) return 3;
    static_cast<char*>(after)[63] = 1;  // malloc's block, usable
    ::operator delete(after);
    return bump_heap_stats().carved == reserved ? 0 : 4;
  });
  EXPECT_EQ(code, 0);
}
