// net::parse_s3_target: the s3:// URL, endpoint, region and credentials
// (pure, from given values; the transfers are tested against s3rver in
// tests/integration/test_publish_s3.sh).
#include "net/s3.hpp"

#include <gtest/gtest.h>

namespace flashfit::net {
namespace {

S3Environment with_keys() {
  S3Environment e;
  e.access_key = "AK";
  e.secret_key = "SK";
  return e;
}

TEST(S3Target, BucketPrefixAndDefaults) {
  auto c = parse_s3_target("s3://wheels/team/cu128/", with_keys());
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->bucket, "wheels");
  EXPECT_EQ(c->prefix, "team/cu128");
  EXPECT_EQ(c->region, "us-east-1");
  EXPECT_EQ(c->endpoint, "https://s3.us-east-1.amazonaws.com");
  EXPECT_EQ(c->access_key, "AK");
  EXPECT_TRUE(c->session_token.empty());
}

TEST(S3Target, EndpointRegionAndToken) {
  auto e = with_keys();
  e.endpoint_url = "http://127.0.0.1:4568/";
  e.default_region = "eu-west-1";
  e.session_token = "TOKEN";
  auto c = parse_s3_target("s3://wheels", e);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->prefix, "");
  EXPECT_EQ(c->endpoint, "http://127.0.0.1:4568");
  EXPECT_EQ(c->region, "eu-west-1");
  EXPECT_EQ(c->session_token, "TOKEN");
  e.region = "ap-south-1";  // AWS_REGION wins over AWS_DEFAULT_REGION
  EXPECT_EQ(parse_s3_target("s3://wheels", e)->region, "ap-south-1");
}

TEST(S3Target, BadInputIsAUsageError) {
  for (const char* bad : {"s3://", "s3:///prefix", "s3://b%20x/p", "file:///x"}) {
    auto c = parse_s3_target(bad, with_keys());
    ASSERT_FALSE(c) << bad;
    EXPECT_EQ(c.error().kind, util::ErrorKind::usage) << bad;
  }
  S3Environment none;
  auto c = parse_s3_target("s3://wheels/p", none);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().kind, util::ErrorKind::usage);  // exit 2
  EXPECT_NE(c.error().hint.find("AWS_ACCESS_KEY_ID"), std::string::npos);
  auto e = with_keys();
  e.endpoint_url = "ftp://host";
  EXPECT_FALSE(parse_s3_target("s3://wheels", e));
}

TEST(S3Target, DotDotAndEmptyPrefixSegmentsAreUsageErrors) {
  for (const char* bad : {"s3://wheels/../other", "s3://wheels/a/../../other", "s3://wheels/./a",
                          "s3://wheels/a//b", "s3://wheels/a/.", "s3://wheels//a"}) {
    auto c = parse_s3_target(bad, with_keys());
    ASSERT_FALSE(c) << bad;
    EXPECT_EQ(c.error().kind, util::ErrorKind::usage) << bad;
    EXPECT_NE(c.error().message.find("'..'"), std::string::npos) << bad;
  }
  EXPECT_EQ(parse_s3_target("s3://wheels/a..b/.c/", with_keys())->prefix, "a..b/.c");
}

TEST(S3Target, PartSizeFromTheEnvironment) {
  auto e = with_keys();
  EXPECT_EQ(parse_s3_target("s3://wheels", e)->part_size, kDefaultPartSize);
  e.part_mib = "5";
  EXPECT_EQ(parse_s3_target("s3://wheels", e)->part_size, std::uint64_t{5} << 20);
  e.part_mib = "5120";
  EXPECT_EQ(parse_s3_target("s3://wheels", e)->part_size, std::uint64_t{5} << 30);
  // Outside S3's part sizes, or not a number: a usage error naming the variable.
  for (const char* bad : {"4", "5121", "0", "-8", "8MiB", " 8", "8.5", "99999999999999999999999"}) {
    e.part_mib = bad;
    auto c = parse_s3_target("s3://wheels", e);
    ASSERT_FALSE(c) << bad;
    EXPECT_EQ(c.error().kind, util::ErrorKind::usage) << bad;
    EXPECT_NE(c.error().message.find("FLASHFIT_S3_PART_MIB"), std::string::npos) << bad;
  }
}

TEST(S3Multipart, PartSizeKeepsWithinTenThousandParts) {
  constexpr std::uint64_t mib = std::uint64_t{1} << 20;
  EXPECT_EQ(part_size_for(100 * mib, 64 * mib), 64 * mib);
  EXPECT_EQ(part_size_for(kMaxParts * 64 * mib, 64 * mib), 64 * mib);  // exactly 10,000 parts
  // One byte more needs a bigger part: raised to whole MiB, the file then fits.
  const std::uint64_t big = kMaxParts * 64 * mib + 1;
  const std::uint64_t part = part_size_for(big, 64 * mib);
  EXPECT_EQ(part, 65 * mib);
  EXPECT_LE((big + part - 1) / part, kMaxParts);
  const std::uint64_t huge = std::uint64_t{5} << 40;  // 5 TiB, S3's largest object
  const std::uint64_t huge_part = part_size_for(huge, 5 * mib);
  EXPECT_LE((huge + huge_part - 1) / huge_part, kMaxParts);
  EXPECT_LE(huge_part, kMaxPartSize);
}

TEST(S3Multipart, CompleteBodyNumbersThePartsAndEscapesTheirNames) {
  EXPECT_EQ(complete_multipart_body({"\"a1\"", "\"b<2>&\""}),
            "<CompleteMultipartUpload>"
            "<Part><PartNumber>1</PartNumber><ETag>\"a1\"</ETag></Part>"
            "<Part><PartNumber>2</PartNumber><ETag>\"b&lt;2&gt;&amp;\"</ETag></Part>"
            "</CompleteMultipartUpload>");
}

}  // namespace
}  // namespace flashfit::net
