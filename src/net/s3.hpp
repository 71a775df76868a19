#pragma once
// A small S3 client for `flashfit publish --to s3://BUCKET/PREFIX`: PUT, GET
// and ListObjectsV2 over libcurl, signed with libcurl's built-in SigV4
// (CURLOPT_AWS_SIGV4, no new dependency). Path-style addressing
// (<endpoint>/<bucket>/<key>), which every S3-compatible server accepts.
// Transient failures (5xx, connection refused, timeouts) are retried a bounded
// number of times; each PUT is atomic for readers on S3 (old or new object).
// A file larger than one part goes up as a multipart upload: memory holds one
// part, and objects past S3's 5 GB single-PUT limit can be published.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace flashfit::net {

// S3's multipart limits (AWS's documented quotas; S3-compatible servers
// follow them): parts of 5 MiB to 5 GiB, the last one smaller, at most 10,000.
inline constexpr std::uint64_t kMinPartSize = std::uint64_t{5} << 20;
inline constexpr std::uint64_t kMaxPartSize = std::uint64_t{5} << 30;
inline constexpr std::uint64_t kMaxParts = 10000;
inline constexpr std::uint64_t kDefaultPartSize = std::uint64_t{64} << 20;

// The part size for a file of `size` bytes: `wanted`, raised (in whole MiB)
// when 10,000 parts of it would not hold the file.
std::uint64_t part_size_for(std::uint64_t size, std::uint64_t wanted);
// CompleteMultipartUpload's body naming parts 1..N by the ETags S3 gave them.
std::string complete_multipart_body(const std::vector<std::string>& etags);

struct S3Config {
  std::string endpoint;  // "https://s3.us-east-1.amazonaws.com" or "http://127.0.0.1:4568"
  std::string bucket;
  std::string prefix;  // without leading or trailing '/'; may be empty
  std::string region;
  std::string access_key;
  std::string secret_key;
  std::string session_token;                   // may be empty
  int attempts = 4;                            // per request, transient failures only
  std::uint64_t part_size = kDefaultPartSize;  // FLASHFIT_S3_PART_MIB
};

// Pure: "s3://BUCKET/PREFIX" plus the endpoint and the AWS_* values as given
// (the caller reads the environment). Missing credentials: a usage error
// (exit 2) naming the variables.
struct S3Environment {
  std::optional<std::string> endpoint_url;  // --endpoint-url, else AWS_ENDPOINT_URL
  std::optional<std::string> access_key, secret_key, session_token, region, default_region;
  std::optional<std::string> part_mib;  // FLASHFIT_S3_PART_MIB: 5..5120
};
util::Result<S3Config> parse_s3_target(std::string_view target, const S3Environment& env);

// The AWS_* variables of this process.
S3Environment s3_environment(const std::optional<std::string>& endpoint_url);

class S3Client {
 public:
  explicit S3Client(S3Config config) : config_(std::move(config)) {}
  const S3Config& config() const { return config_; }
  // `key` is relative to the prefix. Bytes larger than one part go up as a
  // multipart upload (S3 refuses a single PUT over 5 GB).
  util::Result<void> put(std::string_view key, std::string_view bytes,
                         std::string_view content_type);
  // The file at `source`: one PUT when it fits in one part, else a multipart
  // upload (initiate, parts read and sent one at a time, complete). `check`
  // gets the sha256 of every byte sent before the object becomes visible; an
  // error from it (the file changed since it was inspected) aborts the upload,
  // as any failure after the initiation does: nothing appears under `key`.
  using SentCheck = std::function<util::Result<void>(const std::string& sha256)>;
  util::Result<void> put_file(std::string_view key, const std::filesystem::path& source,
                              std::string_view content_type, const SentCheck& check);
  util::Result<std::optional<std::string>> get(std::string_view key);
  // Keys (relative to prefix + dir + "/") of objects directly under `dir`.
  util::Result<std::vector<std::string>> list(std::string_view dir);

 private:
  struct ObjectFacts {
    std::uint64_t size = 0;
    std::string etag;  // as S3 gives it, quotes kept
  };
  // The object's size and ETag, or nullopt when it is not there.
  util::Result<std::optional<ObjectFacts>> object_facts(std::string_view key);
  // The next `length` bytes of what is uploaded (a file's, read into a
  // buffer, or a slice of bytes held); an empty result means a read failed.
  using NextPart = std::function<std::optional<std::string_view>(std::uint64_t length)>;
  util::Result<void> put_parts(std::string_view key, std::uint64_t size,
                               std::string_view content_type, const NextPart& next,
                               const SentCheck* check);
  S3Config config_;
};

}  // namespace flashfit::net
