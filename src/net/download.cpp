// download_file over HTTP(S): a loop of attempts, each one GET that resumes
// the .part file with a Range request. What happens after each attempt is
// decided in one place (`judge`), from libcurl's code and the status.
#include "net/download.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "net/body_writer.hpp"
#include "net/content_range.hpp"
#include "net/curl_common.hpp"
#include "net/download_internal.hpp"
#include "net/http.hpp"
#include "net/progress.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"
#include "util/verbosity.hpp"

namespace flashfit::net {
namespace {

using detail::UniqueFd;
using Clock = std::chrono::steady_clock;

constexpr auto kMaxBackoff = std::chrono::milliseconds(8000);

// The state of the .part file across attempts: its bytes are exactly what
// `hasher` has seen.
struct Part {
  std::filesystem::path path;
  UniqueFd fd;
  util::Sha256 hasher;
  std::uint64_t size = 0;

  // Truncates to empty: the server sent the whole file, or the bytes are unusable.
  bool truncate() {
    hasher = util::Sha256();
    size = 0;
    return ::ftruncate(fd.get(), 0) == 0;
  }
};

// What one attempt's callbacks see and decide.
struct Attempt {
  CURL* curl = nullptr;
  Part* part = nullptr;
  DownloadReporter* reporter = nullptr;
  std::uint64_t offset = 0;  // the Range asked for (0: none)
  std::uint64_t max_bytes = 0;
  bool decided = false;
  bool writing = false;  // a 2xx body goes to the part; an error page is dropped
  bool resumed = false;  // a 206 continued the part
  // Writes and hashes the body on its own thread, from the decision on.
  std::optional<detail::BodyWriter> writer;
  std::optional<std::uint64_t> total;
  enum class Abort { none, too_large, write_failed, bad_range } abort = Abort::none;
  int write_errno = 0;
  std::string content_range;  // the final response's headers we use
  std::string retry_after;
};

// Decides, at the first body byte (or after an empty body), what the
// response means for the part file.
void decide(Attempt& a) {
  a.decided = true;
  long status = 0;
  detail::api().easy_getinfo(a.curl, CURLINFO_RESPONSE_CODE, &status);
  if (status == 206) {
    const ContentRange range = parse_content_range(a.content_range);
    if (!range.start || *range.start != a.part->size) {
      a.abort = Attempt::Abort::bad_range;
      return;
    }
    a.total = range.total;
    a.resumed = a.part->size > 0;
    a.writing = true;
  } else if (status == 200) {
    if (a.part->size > 0 && !a.part->truncate()) {
      a.abort = Attempt::Abort::write_failed;
      a.write_errno = errno;
      return;
    }
    curl_off_t length = -1;
    detail::api().easy_getinfo(a.curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    if (length >= 0) a.total = static_cast<std::uint64_t>(length);
    a.writing = true;
  }
  if (a.writing && a.total && *a.total > a.max_bytes) a.abort = Attempt::Abort::too_large;
  if (a.writing && a.abort == Attempt::Abort::none) {
    a.writer.emplace(a.part->fd.get(), a.part->hasher, a.part->size);
  }
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto& a = *static_cast<Attempt*>(user);
  const std::size_t n = size * count;
  if (!a.decided) decide(a);
  if (a.abort != Attempt::Abort::none) return 0;  // anything but n aborts the transfer
  if (!a.writing) return n;
  if (n > a.max_bytes - std::min(a.max_bytes, a.part->size)) {
    a.abort = Attempt::Abort::too_large;
    return 0;
  }
  if (!a.writer->append(data, n)) {
    a.abort = Attempt::Abort::write_failed;
    a.write_errno = a.writer->error_number();
    return 0;
  }
  a.part->size += n;
  a.reporter->tick(a.part->size, a.total);
  return n;
}

// Every response's header lines, redirects included: a status line starts
// a new response, so the last one's values survive.
std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto& a = *static_cast<Attempt*>(user);
  const std::size_t n = size * count;
  const std::string_view line(data, n);
  if (util::starts_with(line, "HTTP/")) {
    a.content_range.clear();
    a.retry_after.clear();
    return n;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  const std::string name = util::ascii_lower(util::trim(line.substr(0, colon)));
  const std::string value(util::trim(line.substr(colon + 1)));
  if (name == "content-range") a.content_range = value;
  if (name == "retry-after") a.retry_after = value;
  return n;
}

bool transient_code(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:     // refused
    case CURLE_OPERATION_TIMEDOUT:  // connect timeout or stall
    case CURLE_PARTIAL_FILE:        // short body: the connection closed early
    case CURLE_RECV_ERROR:          // reset
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

bool transient_status(long status) {
  return status == 408 || status == 429 || (status >= 500 && status <= 599);
}

// The outcome of one attempt.
struct Verdict {
  enum class Kind { done, retry, restart, fail } kind = Kind::fail;
  std::string cause;  // retry: why, for the note and the final error
  std::optional<util::Error> error;
  std::chrono::milliseconds retry_after{0};
};

Verdict judge(Attempt& a, CURLcode code, const char* error_text, const std::string& where) {
  Verdict v;
  auto fail = [&](util::ErrorKind kind, std::string message, std::string hint = {}) {
    v.kind = Verdict::Kind::fail;
    v.error = util::Error{kind, std::move(message), {}, std::move(hint)};
    return v;
  };
  if (code == CURLE_ABORTED_BY_CALLBACK && util::interrupted()) {
    return fail(util::ErrorKind::interrupted,
                fmt::format("interrupted while downloading {}", where),
                "the partial file is kept; the next download of this URL resumes it");
  }
  switch (a.abort) {
    case Attempt::Abort::too_large:
      return fail(util::ErrorKind::failed,
                  fmt::format("cannot download {}: larger than {} bytes", where, a.max_bytes),
                  "the server sent far more than such a file should hold: check the URL");
    case Attempt::Abort::write_failed:
      return fail(
          util::ErrorKind::failed,
          fmt::format("cannot write {}: {}", a.part->path.string(), std::strerror(a.write_errno)),
          "check the free space and permissions of the cache directory");
    case Attempt::Abort::bad_range:
      v.kind = Verdict::Kind::restart;
      v.cause = "the server answered the resume with the wrong range";
      return v;
    case Attempt::Abort::none:
      break;
  }
  if (code != CURLE_OK) {
    if (transient_code(code)) {
      v.kind = Verdict::Kind::retry;
      v.cause = detail::curl_cause(code, error_text);
      return v;
    }
    return fail(util::ErrorKind::failed,
                fmt::format("cannot download {}: {}", where, detail::curl_cause(code, error_text)),
                detail::kNetworkHint);
  }
  long status = 0;
  detail::api().easy_getinfo(a.curl, CURLINFO_RESPONSE_CODE, &status);
  if (status == 200 || status == 206) {
    if (!a.decided) decide(a);  // an empty body never reached on_body
    if (a.abort != Attempt::Abort::none) return judge(a, code, error_text, where);
    v.kind = Verdict::Kind::done;
    return v;
  }
  if (status == 416) {
    // Asked for bytes past the end: the part may already be the whole file.
    const ContentRange range = parse_content_range(a.content_range);
    if (a.offset > 0 && range.total && *range.total == a.part->size) {
      a.resumed = true;
      v.kind = Verdict::Kind::done;
      return v;
    }
    v.kind = Verdict::Kind::restart;
    v.cause = "the server refused the resume range (HTTP 416)";
    return v;
  }
  if (transient_status(status)) {
    v.kind = Verdict::Kind::retry;
    v.cause = fmt::format("HTTP {}", status);
    if (auto seconds = parse_u64(a.retry_after)) {
      v.retry_after = std::chrono::milliseconds(std::min<std::uint64_t>(*seconds, 8) * 1000);
    }
    return v;
  }
  return fail(util::ErrorKind::failed, fmt::format("cannot download {}: HTTP {}", where, status),
              status == 404 || status == 410 ? "the server does not have this file: check the URL"
              : status == 401 || status == 403
                  ? "the server refused access: check the URL and any credentials"
                  : std::string());
}

// Sleeps in small slices so that Ctrl-C is seen at once; false when interrupted.
bool backoff_sleep(std::chrono::milliseconds delay) {
  const auto until = Clock::now() + delay;
  while (Clock::now() < until) {
    if (util::interrupted()) return false;
    std::this_thread::sleep_for(
        std::min<Clock::duration>(std::chrono::milliseconds(50), until - Clock::now()));
  }
  return !util::interrupted();
}

// Opens (or creates) the part for appending and hashes what it holds: a
// .part left by an earlier run is resumed from its end.
util::Result<void> open_part(Part& part, std::uint64_t max_bytes) {
  part.fd.reset(::open(part.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!part.fd) {
    return util::fail(
        util::ErrorKind::failed,
        fmt::format("cannot create {}: {}", part.path.string(), std::strerror(errno)));
  }
  part.hasher = util::Sha256();
  part.size = 0;
  UniqueFd in(::open(part.path.c_str(), O_RDONLY | O_CLOEXEC));
  std::vector<char> buffer(std::size_t{1} << 20);
  while (in) {
    const ssize_t n = ::read(in.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    part.hasher.update(buffer.data(), static_cast<std::size_t>(n));
    part.size += static_cast<std::uint64_t>(n);
  }
  struct stat info {};
  // Unreadable or over the cap: start afresh rather than trust it.
  if (!in || ::fstat(part.fd.get(), &info) != 0 ||
      static_cast<std::uint64_t>(info.st_size) != part.size || part.size > max_bytes) {
    if (!part.truncate()) {
      return util::fail(
          util::ErrorKind::failed,
          fmt::format("cannot truncate {}: {}", part.path.string(), std::strerror(errno)));
    }
  }
  return {};
}

}  // namespace

static util::Result<DownloadResult> download_once(const DownloadRequest& request);

util::Result<DownloadResult> download_file(const DownloadRequest& request) {
  // --verbose: each download, its size, attempts and time.
  util::TraceSpan span("download " + detail::shown_url(request.url));
  auto result = download_once(request);
  span.set_outcome(result
                       ? fmt::format("{} bytes in {} attempt(s)", result->bytes, result->attempts)
                       : result.error().message);
  return result;
}

static util::Result<DownloadResult> download_once(const DownloadRequest& request) {
  if (is_local_source(request.url)) return detail::copy_local(request);
  const std::string where = detail::shown_url(request.url);
  if (util::interrupted()) {
    return util::fail(util::ErrorKind::interrupted,
                      fmt::format("interrupted before downloading {}", where));
  }
  if (auto init = detail::global_init(); !init) return tl::unexpected(init.error());

  Part part;
  part.path = detail::part_path(request.destination);
  if (auto opened = open_part(part, request.max_bytes); !opened)
    return tl::unexpected(opened.error());

  auto drop_part = [&part] {
    part.fd.reset();
    std::error_code ec;
    std::filesystem::remove(part.path, ec);
  };
  DownloadReporter reporter(request);
  DownloadResult result;
  const int budget = std::max(1, request.max_attempts);
  int failures = 0;  // attempts in a row that brought no new bytes
  std::string last_cause;
  while (true) {
    std::unique_ptr<CURL, detail::EasyDeleter> handle(detail::api().easy_init());
    if (!handle) return util::fail(util::ErrorKind::internal, "cannot create a libcurl handle");
    CURL* curl = handle.get();
    char error_text[CURL_ERROR_SIZE] = {};
    detail::CommonOptions common;
    common.connect_timeout = request.connect_timeout;
    common.stall_timeout = request.stall_timeout;
    common.low_speed_bytes = 1024;  // below 1 KiB/s for stall_timeout: stalled (download.hpp)
    if (auto set = detail::set_common_options(curl, request.url, common, error_text); !set) {
      return tl::unexpected(set.error());
    }
    Attempt a;
    a.curl = curl;
    a.part = &part;
    a.reporter = &reporter;
    a.offset = part.size;
    a.max_bytes = request.max_bytes;
    const std::string range = fmt::format("{}-", part.size);
    if (part.size > 0) detail::api().easy_setopt(curl, CURLOPT_RANGE, range.c_str());
    detail::api().easy_setopt(curl, CURLOPT_BUFFERSIZE,
                              512L * 1024);  // fewer, larger writes and hash updates
    detail::api().easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    detail::api().easy_setopt(curl, CURLOPT_WRITEDATA, &a);
    detail::api().easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    detail::api().easy_setopt(curl, CURLOPT_HEADERDATA, &a);

    ++result.attempts;
    const std::uint64_t before = part.size;
    reporter.attempt_started(part.size);
    const CURLcode code = detail::api().easy_perform(curl);
    // Every byte taken into the file and the hash before anything is judged.
    if (a.writer && !a.writer->finish() && a.abort == Attempt::Abort::none) {
      a.abort = Attempt::Abort::write_failed;
      a.write_errno = a.writer->error_number();
    }
    Verdict verdict = judge(a, code, error_text, where);

    if (verdict.kind == Verdict::Kind::done) {
      result.resumed = a.resumed;
      result.bytes = part.size;
      auto digest =
          detail::commit_part(std::move(part.fd), part.path, request.destination, part.hasher,
                              request.expected_sha256, where, request.durable_name);
      reporter.finish(result.bytes, digest.has_value());
      if (!digest) return tl::unexpected(digest.error());
      result.sha256 = std::move(*digest);
      return result;
    }
    if (verdict.kind == Verdict::Kind::fail) {
      reporter.finish(part.size, false);
      // Unusable bytes are not kept for a resume, nor an empty part; an
      // interrupted or failed transfer keeps what it got (download.hpp).
      if (a.abort == Attempt::Abort::too_large || part.size == 0) drop_part();
      util::Error error = std::move(*verdict.error);
      if (error.kind != util::ErrorKind::interrupted && result.attempts > 1 &&
          !last_cause.empty()) {
        error.message +=
            fmt::format(" (after {} attempts; before that: {})", result.attempts, last_cause);
      }
      return tl::unexpected(std::move(error));
    }

    // retry or restart
    if (verdict.kind == Verdict::Kind::restart && !part.truncate()) {
      return util::fail(
          util::ErrorKind::failed,
          fmt::format("cannot truncate {}: {}", part.path.string(), std::strerror(errno)));
    }
    last_cause = verdict.cause;
    failures = part.size > before ? 1 : failures + 1;
    // A connection that keeps dropping after some bytes would otherwise never end.
    if (failures >= budget || result.attempts >= budget * 4) {
      reporter.finish(part.size, false);
      if (part.size == 0) drop_part();
      return util::fail(util::ErrorKind::failed,
                        fmt::format("cannot download {}: {} (gave up after {} attempts)", where,
                                    verdict.cause, result.attempts),
                        {}, detail::kNetworkHint);
    }
    auto delay = std::min<std::chrono::milliseconds>(
        kMaxBackoff, request.first_backoff * (std::int64_t{1} << std::min(failures - 1, 20)));
    if (verdict.kind == Verdict::Kind::restart) delay = std::chrono::milliseconds(0);
    delay = std::max(delay, verdict.retry_after);
    reporter.note(
        fmt::format("{}: {}; retrying in {:.1f} s{}", where, verdict.cause,
                    std::chrono::duration<double>(delay).count(),
                    part.size > 0 ? fmt::format(" from byte {}", part.size) : std::string()));
    if (!backoff_sleep(delay)) {
      reporter.finish(part.size, false);
      if (part.size == 0) drop_part();
      return util::fail(util::ErrorKind::interrupted,
                        fmt::format("interrupted while downloading {}", where), {},
                        "the partial file is kept; the next download of this URL resumes it");
    }
  }
}

}  // namespace flashfit::net
