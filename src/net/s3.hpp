#pragma once
// A small S3 client for `flashfit publish --to s3://BUCKET/PREFIX`: PUT, GET
// and ListObjectsV2 over libcurl, signed with libcurl's built-in SigV4
// (CURLOPT_AWS_SIGV4, no new dependency). Path-style addressing
// (<endpoint>/<bucket>/<key>), which every S3-compatible server accepts.
// Transient failures (5xx, connection refused, timeouts) are retried a bounded
// number of times; each PUT is atomic for readers on S3 (old or new object).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace flashfit::net {

struct S3Config {
  std::string endpoint;  // "https://s3.us-east-1.amazonaws.com" or "http://127.0.0.1:4568"
  std::string bucket;
  std::string prefix;  // without leading or trailing '/'; may be empty
  std::string region;
  std::string access_key;
  std::string secret_key;
  std::string session_token;  // may be empty
  int attempts = 4;           // per request, transient failures only
};

// Pure: "s3://BUCKET/PREFIX" plus the endpoint and the AWS_* values as given
// (the caller reads the environment). Missing credentials: a usage error
// (exit 2) naming the variables.
struct S3Environment {
  std::optional<std::string> endpoint_url;  // --endpoint-url, else AWS_ENDPOINT_URL
  std::optional<std::string> access_key, secret_key, session_token, region, default_region;
};
util::Result<S3Config> parse_s3_target(std::string_view target, const S3Environment& env);

// The AWS_* variables of this process.
S3Environment s3_environment(const std::optional<std::string>& endpoint_url);

class S3Client {
 public:
  explicit S3Client(S3Config config) : config_(std::move(config)) {}
  const S3Config& config() const { return config_; }
  // `key` is relative to the prefix.
  util::Result<void> put(std::string_view key, std::string_view bytes,
                         std::string_view content_type);
  util::Result<std::optional<std::string>> get(std::string_view key);
  // Keys (relative to prefix + dir + "/") of objects directly under `dir`.
  util::Result<std::vector<std::string>> list(std::string_view dir);

 private:
  S3Config config_;
};

}  // namespace flashfit::net
