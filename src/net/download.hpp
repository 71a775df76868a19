#pragma once
// Downloads to a file through libcurl: resume with Range after an
// interruption, retries with backoff on transient failures only, connect and
// stall timeouts, proxies from the environment, sha256 always computed and
// checked when expected, progress on a TTY (a bar with size, speed and ETA)
// or a few plain lines otherwise. The file appears at `destination` only when
// complete and verified (written to `destination.part`, fdatasynced, renamed), so
// a partial file never takes its place; a `.part` left by a killed run is
// resumed by the next.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "util/error.hpp"

namespace flashfit::net {

struct DownloadProgress {
  std::uint64_t received = 0;          // bytes of the file so far (resumed bytes included)
  std::optional<std::uint64_t> total;  // from Content-Length / Content-Range
  double bytes_per_second = 0;
};

struct DownloadRequest {
  std::string url;                    // http(s)://, or file:// / an absolute path (copied, hashed)
  std::filesystem::path destination;  // the final file; its directory must exist
  std::optional<std::string> expected_sha256;  // lower-case hex
  int max_attempts = 5;  // transient failures only: refused, reset, timeout, 5xx, 429, short body
  std::chrono::milliseconds first_backoff{500};  // doubles per attempt, capped at 8 s
  std::chrono::seconds connect_timeout{15};
  std::chrono::seconds stall_timeout{30};  // below 1 KiB/s for this long
  std::uint64_t max_bytes = std::uint64_t{8}
                            << 30;  // a larger (declared or actual) body is refused
  std::string label;                // shown in progress lines ("flash_attn-2.8.3...whl")
  // Progress sink; when empty, the default renderer draws on stderr (a bar
  // on a TTY unless NO_COLOR/TERM=dumb, else a line every 25%).
  std::function<void(const DownloadProgress&)> progress;
  bool quiet = false;  // no default progress output
  // Whether the rename into `destination` is made durable too (its directory
  // fsynced). The bytes are on disk before the rename either way; a caller
  // that moves the file on at once (the cache, into its entry) syncs the
  // directory where the file ends instead.
  bool durable_name = true;
};

struct DownloadResult {
  std::string sha256;  // of the whole file, lower-case hex
  std::uint64_t bytes = 0;
  int attempts = 0;
  bool resumed = false;  // some bytes came from an earlier partial file
};

// A wrong sha256 is ErrorKind::input ("refused"): the .part is deleted and
// nothing appears at `destination`. HTTP 4xx (but 408/429) fail at once with
// the status. Ctrl-C is ErrorKind::interrupted and keeps the .part for a resume.
util::Result<DownloadResult> download_file(const DownloadRequest& request);

}  // namespace flashfit::net
