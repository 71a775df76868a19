#include "workflow/tail_metadata.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "binary/wheel.hpp"
#include "net/content_range.hpp"
#include "net/http.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"
#include "util/unique_fd.hpp"
#include "workflow/core_metadata.hpp"

namespace flashfit::workflow {
namespace {

std::string size_words(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 20) && bytes % (std::uint64_t{1} << 20) == 0)
    return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} bytes", bytes);
}

struct Fetched {
  RangePiece piece;
  std::string bytes;
  std::string validator;  // ETag or Last-Modified, for If-Range on the next request
};

// One range request. Interruption is an error; any other failure is a
// refused piece (the whole download then says what is wrong, if anything).
// `if_range`: the first answer's validator, so that a file replaced between
// two requests is answered whole (200, refused), never spliced.
util::Result<Fetched> fetch_range(const std::string& url, const RangeAsked& asked,
                                  const std::string& if_range = "") {
  net::HttpRequest request;
  request.url = url;
  request.range = asked.start ? fmt::format("{}-{}", *asked.start, *asked.start + asked.length - 1)
                              : fmt::format("-{}", asked.length);
  request.max_bytes = asked.length;
  if (!if_range.empty()) request.headers.push_back("If-Range: " + if_range);
  auto response = net::http_get(request);
  if (util::interrupted()) {
    return util::fail(util::ErrorKind::interrupted, "interrupted while reading " + url);
  }
  if (!response)
    return Fetched{{0, 0, "its range request failed: " + response.error().message}, {}, {}};
  Fetched out;
  out.piece = judge_range_answer(asked, response->status, response->header("content-range"),
                                 response->body.size());
  // Asked without content coding; coded bytes are not the file's.
  const std::string coding = util::ascii_lower(response->header("content-encoding"));
  if (out.piece.refused.empty() && !coding.empty() && coding != "identity")
    out.piece.refused =
        "its server sent the range with Content-Encoding " + util::printable(coding);
  if (!out.piece.refused.empty()) return out;
  out.bytes = std::move(response->body);
  // A strong ETag, else Last-Modified (RFC 9110 §13.1.5: a weak ETag is no validator here).
  const std::string etag = response->header("etag");
  out.validator =
      !etag.empty() && !util::starts_with(etag, "W/") ? etag : response->header("last-modified");
  return out;
}

util::Result<void> write_at(int fd, const std::string& bytes, std::uint64_t offset,
                            const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n =
        ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return util::fail(util::ErrorKind::failed, "cannot write " + path.string(),
                        n < 0 ? std::strerror(errno) : "no progress");
    }
    done += static_cast<std::size_t>(n);
  }
  return {};
}

}  // namespace

RangePiece judge_range_answer(const RangeAsked& asked, long status, std::string_view content_range,
                              std::uint64_t body_size) {
  RangePiece out;
  if (status != 206) {
    out.refused = status == 200
                      ? "its server does not answer range requests (HTTP 200)"
                      : fmt::format("its server answered a range request with HTTP {}", status);
    return out;
  }
  const net::ContentRange range = net::parse_content_range(content_range);
  if (!range.start || !range.end || !range.total) {
    out.refused =
        fmt::format("its server's Content-Range is not a byte range of a known size: '{}'",
                    util::printable(content_range, 80));
    return out;
  }
  if (*range.end - *range.start + 1 != body_size) {
    out.refused = fmt::format("its server's Content-Range names {} bytes and {} came",
                              *range.end - *range.start + 1, body_size);
    return out;
  }
  if (*range.total > kMaxWheelBytes) {
    out.refused =
        fmt::format("the file is {} bytes, more than a wheel flashfit reads", *range.total);
    return out;
  }
  // A suffix range ends at the file's end and is at most what was asked (the
  // whole file when it is smaller); an explicit one is exactly what was asked.
  const bool as_asked = asked.start
                            ? (*range.start == *asked.start && body_size == asked.length)
                            : (*range.end + 1 == *range.total && body_size <= asked.length &&
                               (body_size == asked.length || *range.start == 0));
  if (!as_asked) {
    out.refused = fmt::format("its server sent bytes {}-{} of {}, not the range asked for",
                              *range.start, *range.end, *range.total);
    return out;
  }
  out.start = *range.start;
  out.total = *range.total;
  return out;
}

util::Result<TailRead> tail_requires_dist(const resolve::Candidate& pick,
                                          const std::filesystem::path& dir) {
  TailRead out;
  auto first = fetch_range(pick.url, {std::nullopt, kFirstTailBytes});
  if (!first) return tl::unexpected(std::move(first.error()));
  if (!first->piece.refused.empty()) {
    out.why_not = std::move(first->piece.refused);
    return out;
  }
  out.fetched = first->bytes.size();
  const std::uint64_t total = first->piece.total;
  std::uint64_t have_from = first->piece.start;

  // The bytes at their offsets in a file of the wheel's size: the zip reader
  // finds the central directory and the dist-info members where they are;
  // the rest is a hole (zeros, no disk).
  const std::filesystem::path path = dir / pick.filename;
  util::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!fd || ::ftruncate(fd.get(), static_cast<off_t>(total)) != 0)
    return util::fail(util::ErrorKind::failed, "cannot create " + path.string(),
                      std::strerror(errno));
  if (auto wrote = write_at(fd.get(), first->bytes, have_from, path); !wrote)
    return tl::unexpected(std::move(wrote.error()));

  std::string last_error;
  for (;;) {
    auto wheel = binary::open_wheel_dist_info(path);
    if (wheel) {
      auto required = requires_dist_of_pick(pick, wheel->metadata(),
                                            "the METADATA in its last bytes", pick.url);
      if (!required) return tl::unexpected(std::move(required.error()));
      out.requires_dist = std::move(*required);
      return out;
    }
    if (util::interrupted()) {
      return util::fail(util::ErrorKind::interrupted, "interrupted while reading " + path.string());
    }
    last_error = wheel.error().message;
    const std::uint64_t want_from = total > kLastTailBytes ? total - kLastTailBytes : 0;
    if (have_from <= want_from) break;  // already as far back as it reads
    auto more = fetch_range(pick.url, {want_from, have_from - want_from}, first->validator);
    if (!more) return tl::unexpected(std::move(more.error()));
    if (!more->piece.refused.empty()) {
      out.why_not = "its second range request was refused: " + more->piece.refused;
      return out;
    }
    if (more->piece.total != total) {
      out.why_not = fmt::format("the file changed size between two requests ({} then {} bytes)",
                                total, more->piece.total);
      return out;
    }
    if (auto wrote = write_at(fd.get(), more->bytes, want_from, path); !wrote)
      return tl::unexpected(std::move(wrote.error()));
    out.fetched += more->bytes.size();
    have_from = want_from;
  }
  out.why_not = fmt::format("its dist-info is not readable from its last {} ({})",
                            size_words(total - have_from), last_error);
  return out;
}

}  // namespace flashfit::workflow
