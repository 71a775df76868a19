// The s3:// publish target: net::S3Client under the PublishTarget interface.
// S3 has no lock: publishers converge instead, because publish_to rebuilds
// the pages from a fresh listing after its files are up (relist_pages()).
#include <fmt/core.h>

#include "net/s3.hpp"
#include "util/strings.hpp"
#include "workflow/publish_target.hpp"

namespace flashfit::workflow {
namespace {

class NoLock : public TargetLock {};

std::string_view content_type(std::string_view path) {
  if (util::ends_with(path, ".html")) return "text/html";
  if (util::ends_with(path, ".json")) return "application/json";
  if (util::ends_with(path, ".whl")) return "application/octet-stream";
  return "text/plain";
}

class S3Target : public PublishTarget {
 public:
  explicit S3Target(net::S3Config config) : client_(std::move(config)) {}

  std::string describe() const override {
    const auto& c = client_.config();
    return c.prefix.empty() ? fmt::format("s3://{}", c.bucket)
                            : fmt::format("s3://{}/{}", c.bucket, c.prefix);
  }
  bool relist_pages() const override { return true; }

  util::Result<std::unique_ptr<TargetLock>> lock() override {
    // No lock on S3; an unusable bucket or credentials fail here, before
    // minutes of inspection, through a listing.
    auto probe = client_.list("files");
    if (!probe) return tl::unexpected(probe.error());
    return std::unique_ptr<TargetLock>(std::make_unique<NoLock>());
  }
  util::Result<void> check_usable() override {
    auto probe = lock();
    if (!probe) return tl::unexpected(probe.error());
    return {};
  }
  util::Result<std::vector<std::string>> list(std::string_view dir) override {
    return client_.list(dir);
  }
  util::Result<std::optional<std::string>> read(std::string_view path) override {
    return client_.get(path);
  }
  // The bytes are read once, hashed as they are sent; a file that is not
  // the one inspected never becomes visible (the upload is aborted).
  util::Result<void> put_file(std::string_view path, const std::filesystem::path& source,
                              std::string_view sha256) override {
    return client_.put_file(
        path, source, content_type(path), [&](const std::string& sent) -> util::Result<void> {
          if (sent != sha256) return tl::unexpected(changed_since_inspected(source, sha256, sent));
          return {};
        });
  }
  util::Result<void> put_bytes(std::string_view path, std::string_view content) override {
    return client_.put(path, content, content_type(path));
  }

 private:
  net::S3Client client_;
};

}  // namespace

util::Result<std::unique_ptr<PublishTarget>> s3_target(
    std::string_view target, const std::optional<std::string>& endpoint_url) {
  auto config = net::parse_s3_target(target, net::s3_environment(endpoint_url));
  if (!config) return tl::unexpected(config.error());
  return std::unique_ptr<PublishTarget>(std::make_unique<S3Target>(std::move(*config)));
}

}  // namespace flashfit::workflow
