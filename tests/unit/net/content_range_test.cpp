// The Content-Range header, as a resumed download and lock's tail read see it.
#include "net/content_range.hpp"

#include <gtest/gtest.h>

namespace flashfit::net {
namespace {

TEST(ContentRange, FormsAServerSends) {
  ContentRange r = parse_content_range("bytes 100-199/200");
  EXPECT_EQ(r.start, 100u);
  EXPECT_EQ(r.end, 199u);
  EXPECT_EQ(r.total, 200u);
  r = parse_content_range("  Bytes 0-0/1 ");
  EXPECT_EQ(r.start, 0u);
  EXPECT_EQ(r.end, 0u);
  EXPECT_EQ(r.total, 1u);
  r = parse_content_range("bytes */200");  // a 416's
  EXPECT_FALSE(r.start);
  EXPECT_FALSE(r.end);
  EXPECT_EQ(r.total, 200u);
  r = parse_content_range("bytes 0-9/*");  // size unknown to the server
  EXPECT_EQ(r.start, 0u);
  EXPECT_EQ(r.end, 9u);
  EXPECT_FALSE(r.total);
}

TEST(ContentRange, GarbleIsNothingKnown) {
  for (const char* bad :
       {"", "bytes", "bytes ", "items 0-9/10", "bytes 0-9", "bytes -/10", "bytes a-b/10",
        "bytes 9-0/10", "bytes 0-10/10", "bytes 0-9/ten", "bytes 0-9/99999999999999999999",
        "bytes +0-9/10", "bytes 0--9/10", "bytes 0-9/10/11", "bytes\t0-9/10", "bytes 0 - 9/10x"}) {
    const ContentRange r = parse_content_range(bad);
    EXPECT_FALSE(r.start && r.end && r.total) << bad;
  }
  EXPECT_FALSE(parse_u64(""));
  EXPECT_FALSE(parse_u64("-1"));
  EXPECT_FALSE(parse_u64("18446744073709551616"));
  EXPECT_EQ(parse_u64(" 18446744073709551615 "), 18446744073709551615u);
}

}  // namespace
}  // namespace flashfit::net
