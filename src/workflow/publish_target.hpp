#pragma once
// Where `flashfit publish` writes: a small interface the executor acts
// through, so the plan is carried out the same way on every kind of storage.
// Each put is atomic for readers (a reader sees the old bytes or the new).

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace flashfit::workflow {

// Held while a publisher lists, plans and writes, so publishers take turns.
class TargetLock {
 public:
  virtual ~TargetLock() = default;
};

// One file of PublishTarget::put_all: a copy of `source` checked against
// `sha256` (put_file) when `source` is set, else `bytes` (put_bytes). The
// views must outlive the put_all call.
struct PutRequest {
  std::string path;  // under the target: "files/x.whl"
  std::string_view bytes;
  std::filesystem::path source;
  std::string_view sha256;
  std::string_view context;  // the wheel it is for (a failure's context), or empty
  // `source` is flashfit's own copy, hashed when it was written and not
  // needed after: a target may move it into place instead of copying it.
  bool movable = false;
};

class PublishTarget {
 public:
  virtual ~PublishTarget() = default;
  virtual std::string describe() const = 0;  // for messages: "/srv/wheels", "s3://b/p"
  virtual util::Result<std::unique_ptr<TargetLock>> lock() = 0;
  // Fails when the target could not be written (before minutes of
  // inspection); creates nothing (a run that writes nothing leaves no trace).
  virtual util::Result<void> check_usable() { return {}; }
  // Names (not paths) of the files directly under `dir` ("files"; "" is the
  // root); empty when absent.
  virtual util::Result<std::vector<std::string>> list(std::string_view dir) = 0;
  // A small file's bytes, nullopt when absent.
  virtual util::Result<std::optional<std::string>> read(std::string_view path) = 0;
  // Copies `source` to `path`, hashing the bytes it copies in the same pass:
  // when they are not `sha256` (hex, what inspection read and the plan
  // decided on), the file changed since; the put is refused and nothing is
  // left for it (changed_since_inspected).
  virtual util::Result<void> put_file(std::string_view path, const std::filesystem::path& source,
                                      std::string_view sha256) = 0;
  virtual util::Result<void> put_bytes(std::string_view path, std::string_view content) = 0;
  // Every put of `puts`; `started` (may be empty) hears each index as its put
  // begins. The first failure in their order is returned and the caller
  // stops: what the failing put and the ones after it wrote is never made
  // visible. flush() makes the rest visible in this order, so a wheel's
  // metadata file and record never appear before it. The default puts one
  // at a time; a directory puts on a few threads.
  virtual util::Result<void> put_all(std::span<const PutRequest> puts,
                                     const std::function<void(std::size_t)>& started = {});
  // Whether a file in `dir` can be moved into the target (a rename: the same
  // file system), so that inspection may stage its copies there.
  virtual bool can_move_from(const std::filesystem::path& /*dir*/) const { return false; }
  // True where the lock does not exclude other publishers (S3): the pages are
  // then rebuilt from a fresh listing after the files are up, so publishers converge.
  virtual bool relist_pages() const { return false; }
  // Makes every put so far durable (a directory target: one syncfs before its
  // renames and one after); publish_to calls it before the pages, so a
  // page never survives a crash that the files it names did not.
  virtual util::Result<void> flush() { return {}; }
};

// The refusal of a put whose copied bytes' sha256 (`copied`) is not the
// inspected one (`inspected`): `source` changed between inspection and copy.
util::Error changed_since_inspected(const std::filesystem::path& source, std::string_view inspected,
                                    std::string_view copied);

// A directory: temp files in the same directories, syncfs, renames; the lock is
// store::FileLock on <root>/.flashfit-publish.lock.
std::unique_ptr<PublishTarget> directory_target(std::filesystem::path root);

// s3://BUCKET/PREFIX (publish_s3.cpp): endpoint from `endpoint_url`, else
// AWS_ENDPOINT_URL, else AWS; credentials and region from the AWS_* variables.
util::Result<std::unique_ptr<PublishTarget>> s3_target(
    std::string_view target, const std::optional<std::string>& endpoint_url);

// TARGET as the user wrote it: a directory, file:///path or s3://BUCKET/PREFIX.
util::Result<std::unique_ptr<PublishTarget>> open_target(
    std::string_view target, const std::optional<std::string>& endpoint_url = std::nullopt);

}  // namespace flashfit::workflow
