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

}  // namespace
}  // namespace flashfit::net
