// workflow::apply_cache_entry and cache_entry_matches: a cache entry's
// variant facts (a build's record) laid over what a wheel's bytes said.
#include "workflow/publish_cache.hpp"

#include <gtest/gtest.h>

namespace flashfit::workflow {
namespace {

store::CacheEntry built_entry() {
  store::CacheEntry e;
  e.package = "ffext-abi1";
  e.version = "0.1.0";
  e.origin = store::EntryOrigin::built();
  e.record.torch = pkg::Version::parse("2.9.1").value();
  e.record.cxx11_abi = true;
  return e;
}

PublishCandidate label_less_cpu_wheel() {
  PublishCandidate c;
  c.facts.filename = "ffext_abi1-0.1.0-cp311-cp311-linux_x86_64.whl";
  c.facts.project = "ffext-abi1";
  c.facts.source = "file";
  return c;
}

TEST(PublishCache, BuildRecordGivesTorchAndPage) {
  auto c = label_less_cpu_wheel();
  apply_cache_entry(built_entry(), c);
  EXPECT_EQ(c.facts.source, "build");
  ASSERT_TRUE(c.facts.torch_major);
  EXPECT_EQ(*c.facts.torch_major, 2);
  EXPECT_EQ(*c.facts.torch_minor, 9);
  ASSERT_TRUE(c.facts.cxx11_abi);
  EXPECT_TRUE(*c.facts.cxx11_abi);
  ASSERT_EQ(c.facts.for_torch.size(), 1u);
  EXPECT_EQ(c.facts.for_torch.front().page_name(), "torch-2.9.1.html");
}

TEST(PublishCache, TheBytesWinOverTheRecord) {
  auto c = label_less_cpu_wheel();
  c.facts.cxx11_abi = false;  // its symbols say pre-C++11 ABI
  apply_cache_entry(built_entry(), c);
  EXPECT_FALSE(*c.facts.cxx11_abi);
  EXPECT_TRUE(c.facts.for_torch.empty());  // the record's torch page contradicts the bytes
}

TEST(PublishCache, DownloadedEntryPlacesNothing) {
  auto c = label_less_cpu_wheel();
  auto e = built_entry();
  e.origin = store::EntryOrigin::fetched_from("index");
  apply_cache_entry(e, c);
  EXPECT_EQ(c.facts.source, "cache");
  EXPECT_TRUE(c.facts.for_torch.empty());
}

TEST(PublishCache, RefusedStaysRefused) {
  auto c = label_less_cpu_wheel();
  c.refusal = "RECORD hash mismatch";
  apply_cache_entry(built_entry(), c);
  EXPECT_FALSE(c.facts.torch_major);
  EXPECT_TRUE(c.facts.for_torch.empty());
}

TEST(PublishCache, SpecMatching) {
  const auto e = built_entry();
  EXPECT_TRUE(cache_entry_matches(e, ""));
  EXPECT_TRUE(cache_entry_matches(e, "ffext_abi1"));
  EXPECT_TRUE(cache_entry_matches(e, "FFEXT.abi1==0.1.0"));
  EXPECT_FALSE(cache_entry_matches(e, "ffext-abi1==0.2"));
  EXPECT_FALSE(cache_entry_matches(e, "other"));
}

}  // namespace
}  // namespace flashfit::workflow
