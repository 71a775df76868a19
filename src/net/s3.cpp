#include "net/s3.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>

#include "net/curl_common.hpp"
#include "net/http.hpp"
#include "util/env_vars.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

namespace flashfit::net {
namespace {

using detail::EasyDeleter;
using detail::ListDeleter;

std::string xml_unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const auto semi = s.find(';', i);
    if (semi == std::string_view::npos) {
      out += s[i];
      continue;
    }
    const auto entity = s.substr(i + 1, semi - i - 1);
    if (entity == "amp")
      out += '&';
    else if (entity == "lt")
      out += '<';
    else if (entity == "gt")
      out += '>';
    else if (entity == "quot")
      out += '"';
    else if (entity == "apos")
      out += '\'';
    else {
      out += s.substr(i, semi - i + 1);
    }
    i = semi;
  }
  return out;
}

// Every <tag>value</tag> in a ListObjectsV2 answer (flat: no nesting needed).
std::vector<std::string> xml_values(std::string_view xml, std::string_view tag) {
  std::vector<std::string> values;
  const std::string open = fmt::format("<{}>", tag), close = fmt::format("</{}>", tag);
  std::size_t at = 0;
  while ((at = xml.find(open, at)) != std::string_view::npos) {
    const auto start = at + open.size();
    const auto end = xml.find(close, start);
    if (end == std::string_view::npos) break;
    values.push_back(xml_unescape(xml.substr(start, end - start)));
    at = end + close.size();
  }
  return values;
}

struct Response {
  long status = 0;
  std::string body;
  std::string etag;       // the ETag header, quotes kept (an uploaded part's name)
  int tries = 1;          // how many times it was asked (a 5xx answer is asked again)
  int server_errors = 0;  // how many of those tries the server answered with a 5xx
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

// Keeps the ETag header: UploadPart answers with the part's name in it.
std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  const std::string_view line(data, size * count);
  const auto colon = line.find(':');
  if (colon != std::string_view::npos && util::ascii_lower(line.substr(0, colon)) == "etag")
    *static_cast<std::string*>(user) = std::string(util::trim(line.substr(colon + 1)));
  return size * count;
}

bool transient_code(CURLcode code) {
  return code == CURLE_COULDNT_CONNECT || code == CURLE_OPERATION_TIMEDOUT ||
         code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR || code == CURLE_GOT_NOTHING ||
         code == CURLE_PARTIAL_FILE;
}

// The S3 error code from an error body (<Code>AccessDenied</Code>), if any.
std::string s3_code(const std::string& body) {
  auto codes = xml_values(body, "Code");
  return codes.empty() ? std::string() : codes.front();
}

// What to check for the S3 error codes that name the request's signing
// rather than the bucket (AWS's codes; S3-compatible servers use the same).
std::string signing_hint(std::string_view code, const S3Config& c) {
  if (code == "SignatureDoesNotMatch")
    return "the signature was computed with another secret: check AWS_SECRET_ACCESS_KEY "
           "belongs to AWS_ACCESS_KEY_ID (and AWS_SESSION_TOKEN, for temporary keys)";
  if (code == "InvalidAccessKeyId")
    return c.session_token.empty()
               ? "the endpoint does not know AWS_ACCESS_KEY_ID (a temporary key also needs "
                 "AWS_SESSION_TOKEN)"
               : "the endpoint does not know AWS_ACCESS_KEY_ID";
  if (code == "InvalidToken" || code == "ExpiredToken")
    return "AWS_SESSION_TOKEN is not the one issued with AWS_ACCESS_KEY_ID, or has expired: "
           "get a fresh set of temporary credentials";
  if (code == "RequestTimeTooSkewed")
    return "this machine's clock is more than 15 minutes off: the signature carries the time";
  if (code == "AuthorizationHeaderMalformed")
    return fmt::format("the request was signed for region {}: set AWS_REGION to the bucket's",
                       c.region);
  return {};
}

util::Error status_error(const S3Config& c, const std::string& what, const Response& r) {
  const std::string code = s3_code(r.body);
  std::string hint = signing_hint(code, c);
  if (r.status >= 500) {
    return util::Error{
        util::ErrorKind::failed,
        fmt::format("S3 {} failed: the endpoint answered HTTP {}{} {}", what, r.status,
                    code.empty() ? "" : " (" + code + ")",
                    r.server_errors == r.tries
                        ? fmt::format("to each of {} tries", r.tries)
                        : fmt::format("to the last of {} tries ({} answered with a server error, "
                                      "the others failed before an answer)",
                                      r.tries, r.server_errors)),
        c.endpoint,
        "a failure of the server's own: publish again later (files go before the pages "
        "that name them, so what is there stays consistent)"};
  }
  if (r.status == 403) {
    return util::Error{util::ErrorKind::failed,
                       fmt::format("the S3 endpoint refused {} (HTTP 403{})", what,
                                   code.empty() ? "" : ", " + code),
                       c.endpoint,
                       hint.empty() ? "check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, the "
                                      "region and the bucket's permissions"
                                    : hint};
  }
  return util::Error{
      util::ErrorKind::failed,
      fmt::format("S3 {} failed (HTTP {}{})", what, r.status, code.empty() ? "" : ", " + code),
      c.endpoint, std::move(hint)};
}

// One signed request, retried with a growing pause while the failure is
// transient (5xx, connection refused, timeouts); at most `attempts` tries.
// A 5xx on the last try is returned as the answer (its status and tries say
// what happened); a connection failure on the last try is an error.
// `cleanup`: a request that must go out even after Ctrl-C (aborting a
// multipart upload whose parts S3 would otherwise keep): not interrupted,
// two tries, at most 15 s each.
util::Result<Response> request(const S3Config& c, const std::string& method, const std::string& url,
                               std::optional<std::string_view> body, std::string_view content_type,
                               bool cleanup = false) {
  if (auto init = detail::global_init(); !init) return tl::unexpected(init.error());
  std::string last_failure;
  std::optional<Response> last_answer;  // the last 5xx, while the tries last
  int server_errors = 0;
  const int attempts = cleanup ? std::min(2, c.attempts) : c.attempts;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    if (attempt > 1) std::this_thread::sleep_for(std::chrono::milliseconds(200 << (attempt - 2)));
    std::unique_ptr<CURL, EasyDeleter> curl(detail::api().easy_init());
    if (!curl) return util::fail(util::ErrorKind::internal, "libcurl could not make a handle");
    char error_text[CURL_ERROR_SIZE] = {};
    detail::CommonOptions common;
    common.max_redirects = 0;  // a signed request is not replayed elsewhere
    if (auto set = detail::set_common_options(curl.get(), url, common, error_text); !set)
      return tl::unexpected(set.error());
    const std::string sigv4 = fmt::format("aws:amz:{}:s3", c.region);
    const std::string userpwd = c.access_key + ":" + c.secret_key;
    detail::api().easy_setopt(curl.get(), CURLOPT_AWS_SIGV4, sigv4.c_str());
    detail::api().easy_setopt(curl.get(), CURLOPT_USERPWD, userpwd.c_str());
    detail::api().easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, method.c_str());
    if (cleanup) {
      detail::api().easy_setopt(curl.get(), CURLOPT_NOPROGRESS, 1L);
      detail::api().easy_setopt(curl.get(), CURLOPT_TIMEOUT, 15L);
    }
    curl_slist* raw = nullptr;
    const std::string payload_hash =
        "x-amz-content-sha256: " + util::sha256_hex(body.value_or(std::string_view{}));
    raw = detail::api().slist_append(raw, payload_hash.c_str());
    std::string token_header, type_header;
    if (!c.session_token.empty()) {
      token_header = "x-amz-security-token: " + c.session_token;
      raw = detail::api().slist_append(raw, token_header.c_str());
    }
    if (!content_type.empty()) {
      type_header = "Content-Type: " + std::string(content_type);
      raw = detail::api().slist_append(raw, type_header.c_str());
    }
    std::unique_ptr<curl_slist, ListDeleter> headers(raw);
    detail::api().easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
    if (body) {
      detail::api().easy_setopt(curl.get(), CURLOPT_POSTFIELDS, body->data());
      detail::api().easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE,
                                static_cast<curl_off_t>(body->size()));
    } else if (method == "GET") {
      detail::api().easy_setopt(curl.get(), CURLOPT_HTTPGET, 1L);
    }
    Response r;
    detail::api().easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, on_body);
    detail::api().easy_setopt(curl.get(), CURLOPT_WRITEDATA, &r.body);
    detail::api().easy_setopt(curl.get(), CURLOPT_HEADERFUNCTION, on_header);
    detail::api().easy_setopt(curl.get(), CURLOPT_HEADERDATA, &r.etag);
    const CURLcode code = detail::api().easy_perform(curl.get());
    if (code == CURLE_ABORTED_BY_CALLBACK)
      return util::fail(util::ErrorKind::interrupted, "interrupted");
    if (code != CURLE_OK) {
      last_failure = detail::curl_cause(code, error_text);
      last_answer.reset();
      if (transient_code(code)) continue;
      return util::fail(util::ErrorKind::failed,
                        fmt::format("cannot reach the S3 endpoint: {}", last_failure), c.endpoint,
                        "check --endpoint-url / AWS_ENDPOINT_URL and that the server is up");
    }
    detail::api().easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &r.status);
    r.tries = attempt;
    if (r.status >= 500) {
      r.server_errors = ++server_errors;
      last_answer = std::move(r);
      continue;
    }
    return r;
  }
  if (last_answer) return std::move(*last_answer);
  return util::fail(
      util::ErrorKind::failed,
      fmt::format("cannot reach the S3 endpoint after {} tries: {}", attempts, last_failure),
      c.endpoint, "check --endpoint-url / AWS_ENDPOINT_URL and that the server is up");
}

std::string full_key(const S3Config& c, std::string_view key) {
  return c.prefix.empty() ? std::string(key) : c.prefix + "/" + std::string(key);
}

std::string object_url(const S3Config& c, std::string_view key) {
  const std::string full = full_key(c, key);
  return fmt::format("{}/{}/{}", c.endpoint, percent_encode(c.bucket, false),
                     percent_encode(full, true));
}

struct FileCloser {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};

// Reads up to `size` bytes (fewer only at the end of the file).
bool read_part(std::FILE* file, std::string& buffer, std::uint64_t size) {
  buffer.resize(size);
  const std::size_t got = std::fread(buffer.data(), 1, buffer.size(), file);
  buffer.resize(got);
  return !std::ferror(file);
}

}  // namespace

std::uint64_t part_size_for(std::uint64_t size, std::uint64_t wanted) {
  const std::uint64_t fewest = (size + kMaxParts - 1) / kMaxParts;
  if (fewest <= wanted) return wanted;
  constexpr std::uint64_t kMib = std::uint64_t{1} << 20;
  return (fewest + kMib - 1) / kMib * kMib;
}

std::string complete_multipart_body(const std::vector<std::string>& etags) {
  std::string xml = "<CompleteMultipartUpload>";
  for (std::size_t i = 0; i < etags.size(); ++i) {
    std::string etag;
    for (const char ch : etags[i]) {
      if (ch == '&')
        etag += "&amp;";
      else if (ch == '<')
        etag += "&lt;";
      else if (ch == '>')
        etag += "&gt;";
      else
        etag += ch;
    }
    xml += fmt::format("<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>", i + 1, etag);
  }
  return xml + "</CompleteMultipartUpload>";
}

S3Environment s3_environment(const std::optional<std::string>& endpoint_url) {
  S3Environment e;
  e.endpoint_url = endpoint_url ? endpoint_url : util::getenv_nonempty("AWS_ENDPOINT_URL");
  e.access_key = util::getenv_nonempty("AWS_ACCESS_KEY_ID");
  e.secret_key = util::getenv_nonempty("AWS_SECRET_ACCESS_KEY");
  e.session_token = util::getenv_nonempty("AWS_SESSION_TOKEN");
  e.region = util::getenv_nonempty("AWS_REGION");
  e.default_region = util::getenv_nonempty("AWS_DEFAULT_REGION");
  e.part_mib = util::getenv_nonempty("FLASHFIT_S3_PART_MIB");
  return e;
}

util::Result<S3Config> parse_s3_target(std::string_view target, const S3Environment& e) {
  if (!util::starts_with(target, "s3://"))
    return util::fail(util::ErrorKind::usage, "not an s3:// URL", std::string(target));
  std::string_view rest = target.substr(5);
  const auto slash = rest.find('/');
  S3Config c;
  c.bucket = std::string(rest.substr(0, slash));
  std::string_view prefix = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
  while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  c.prefix = std::string(prefix);
  if (c.bucket.empty() || c.bucket.find_first_of("?#% ") != std::string::npos)
    return util::fail(util::ErrorKind::usage, "an s3:// target needs a bucket name",
                      std::string(target), "s3://BUCKET/PREFIX");
  // Keys are sent in the request path: "..", "." or "//" there would be
  // resolved by the server or a proxy into another prefix, or another bucket.
  for (std::size_t start = 0; !prefix.empty() && start <= prefix.size();) {
    const auto end = std::min(prefix.find('/', start), prefix.size());
    const std::string_view segment = prefix.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..")
      return util::fail(util::ErrorKind::usage,
                        "an s3:// prefix must not have '.', '..' or empty segments",
                        std::string(target), "write the prefix plainly: s3://BUCKET/team/cu128");
    start = end + 1;
  }
  if (!e.access_key || !e.secret_key)
    return util::fail(util::ErrorKind::usage, "no S3 credentials", std::string(target),
                      "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN "
                      "for temporary ones)");
  c.access_key = *e.access_key;
  c.secret_key = *e.secret_key;
  c.session_token = e.session_token.value_or("");
  c.region = e.region ? *e.region : e.default_region.value_or("us-east-1");
  if (e.part_mib) {
    std::uint64_t mib = 0;
    const std::string& text = *e.part_mib;
    const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), mib);
    if (err != std::errc() || end != text.data() + text.size() || mib < (kMinPartSize >> 20) ||
        mib > (kMaxPartSize >> 20))
      return util::fail(util::ErrorKind::usage,
                        "FLASHFIT_S3_PART_MIB must be a whole number of MiB from 5 to 5120 (S3's "
                        "part sizes)",
                        *e.part_mib, "unset it for the default, 64");
    c.part_size = mib << 20;
  }
  if (e.endpoint_url) {
    std::string ep = *e.endpoint_url;
    while (!ep.empty() && ep.back() == '/') ep.pop_back();
    if (!util::starts_with(ep, "http://") && !util::starts_with(ep, "https://"))
      return util::fail(util::ErrorKind::usage, "the S3 endpoint must be an http(s) URL", ep);
    c.endpoint = ep;
  } else {
    c.endpoint = fmt::format("https://s3.{}.amazonaws.com", c.region);
  }
  return c;
}

util::Result<void> S3Client::put(std::string_view key, std::string_view bytes,
                                 std::string_view content_type) {
  if (bytes.size() > config_.part_size) {
    std::uint64_t offset = 0;
    const NextPart slice = [&](std::uint64_t length) -> std::optional<std::string_view> {
      const auto part = bytes.substr(offset, length);
      offset += part.size();
      return part;
    };
    return put_parts(key, bytes.size(), content_type, slice, nullptr);
  }
  auto r = request(config_, "PUT", object_url(config_, key), bytes, content_type);
  if (!r) return tl::unexpected(std::move(r.error()).with_context(std::string(key)));
  if (r->status / 100 != 2)
    return tl::unexpected(status_error(config_, fmt::format("PUT {}", key), *r));
  return {};
}

util::Result<void> S3Client::put_file(std::string_view key, const std::filesystem::path& source,
                                      std::string_view content_type, const SentCheck& check) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(source.c_str(), "rbe"));
  std::error_code ec;
  const auto size = std::filesystem::file_size(source, ec);
  if (!file || ec)
    return util::fail(util::ErrorKind::failed, "cannot read the wheel", source.string());
  if (size > config_.part_size) {
    std::string buffer;
    const NextPart read = [&](std::uint64_t length) -> std::optional<std::string_view> {
      if (!read_part(file.get(), buffer, length)) return std::nullopt;
      return std::string_view(buffer);
    };
    return put_parts(key, size, content_type, read, &check);
  }
  std::string bytes;
  if (!read_part(file.get(), bytes, size + 1))
    return util::fail(util::ErrorKind::failed, "cannot read the wheel", source.string());
  if (auto checked = check(util::sha256_hex(bytes)); !checked) return checked;
  return put(key, bytes, content_type);
}

// Initiate, UploadPart per part, CompleteMultipartUpload; after the
// initiation any failure aborts the upload (S3 keeps a dangling upload's parts,
// and bills them, until it is aborted).
util::Result<void> S3Client::put_parts(std::string_view key, std::uint64_t size,
                                       std::string_view content_type, const NextPart& next,
                                       const SentCheck* check) {
  const std::string url = object_url(config_, key);
  const std::string k(key);
  // What is under the key now, to tell this upload's object from it should
  // the answer to the completion be lost.
  auto before = object_facts(key);
  if (!before) return tl::unexpected(std::move(before.error()).with_context(k));
  // "uploads=": SigV4's canonical query gives every name a value, and libcurl
  // signs the query as written.
  auto started = request(config_, "POST", url + "?uploads=", std::string_view{}, content_type);
  if (!started) return tl::unexpected(std::move(started.error()).with_context(k));
  if (started->status / 100 != 2)
    return tl::unexpected(
        status_error(config_, fmt::format("starting the upload of {}", k), *started));
  const auto ids = xml_values(started->body, "UploadId");
  if (ids.empty() || ids.front().empty())
    return util::fail(util::ErrorKind::failed,
                      "the S3 endpoint started a multipart upload without naming it (no UploadId)",
                      config_.endpoint);
  const std::string upload = "uploadId=" + percent_encode(ids.front(), false);
  // An abort that fails is said, with how to finish it: S3 keeps (and
  // bills) the parts of an upload until it is aborted or a lifecycle rule
  // removes them.
  const auto abort_with = [&](util::Error error) -> util::Result<void> {
    auto aborted = request(config_, "DELETE", url + "?" + upload, std::nullopt, {}, true);
    // NoSuchUpload: nothing is left to abort (a completion that went through).
    const bool gone = aborted && aborted->status == 404 && s3_code(aborted->body) == "NoSuchUpload";
    if (!gone && (!aborted || aborted->status / 100 != 2)) {
      const std::string why =
          !aborted ? aborted.error().message
                   : fmt::format(
                         "HTTP {}{}", aborted->status,
                         s3_code(aborted->body).empty() ? "" : " (" + s3_code(aborted->body) + ")");
      error.message += fmt::format(
          "; the upload could not be aborted ({}): its parts stay in the bucket until `aws "
          "s3api abort-multipart-upload --bucket {} --key {} --upload-id {}` or a lifecycle "
          "rule removes them",
          why, config_.bucket, full_key(config_, key), ids.front());
    }
    return tl::unexpected(std::move(error));
  };

  const std::uint64_t part = part_size_for(size, config_.part_size);
  std::optional<util::Sha256> sent;
  if (check) sent.emplace();
  std::vector<std::string> etags;
  for (std::uint64_t offset = 0; offset < size; offset += part) {
    const std::uint64_t length = std::min(part, size - offset);
    const auto bytes = next(length);
    if (!bytes || bytes->size() != length)
      return abort_with(util::Error{util::ErrorKind::failed,
                                    "cannot read the wheel (did it shrink while it was sent?)",
                                    k,
                                    {}});
    if (sent) sent->update(*bytes);
    const std::string part_url = fmt::format("{}?partNumber={}&{}", url, etags.size() + 1, upload);
    auto r = request(config_, "PUT", part_url, *bytes, {});
    if (!r) return abort_with(std::move(r.error()).with_context(k));
    if (r->status / 100 != 2)
      return abort_with(status_error(
          config_,
          fmt::format("PUT {} (part {} of {})", k, etags.size() + 1, (size + part - 1) / part),
          *r));
    if (r->etag.empty())
      return abort_with(util::Error{util::ErrorKind::failed,
                                    "the S3 endpoint accepted a part without naming it (no ETag)",
                                    config_.endpoint,
                                    {}});
    etags.push_back(std::move(r->etag));
  }
  // What was sent is the inspected wheel, or nothing becomes visible (bytes
  // appended since are not sent and change nothing).
  if (check) {
    if (auto checked = (*check)(util::to_hex(sent->finish())); !checked)
      return abort_with(std::move(checked.error()));
  }
  auto done = request(config_, "POST", url + "?" + upload, complete_multipart_body(etags),
                      "application/xml");
  if (!done) return abort_with(std::move(done.error()).with_context(k));
  // A try whose answer was lost may have completed it; a later try is then
  // refused (S3: 404 NoSuchUpload; s3rver: 500), and the object is there,
  // with the checked bytes: nothing else was sent. Its size, and an ETag
  // other than the one there before the upload, tell it from an old object.
  const bool failed = done->status / 100 != 2 || done->body.find("<Error") != std::string::npos;
  const int unanswered = done->tries - done->server_errors - (done->status < 500 ? 1 : 0);
  if (failed && unanswered > 0) {
    auto there = object_facts(key);
    if (!there) return abort_with(std::move(there.error()));
    if (*there && (*there)->size == size && (!*before || (*before)->etag != (*there)->etag))
      return {};
  }
  // S3 may answer 200 and put the error in the body (a failure found while
  // it assembled the parts).
  if (failed)
    return abort_with(status_error(config_, fmt::format("completing the upload of {}", k), *done));
  return {};
}

util::Result<std::optional<S3Client::ObjectFacts>> S3Client::object_facts(std::string_view key) {
  // ListObjectsV2 with the key itself as the prefix: its size and ETag, no body.
  const std::string full = full_key(config_, key);
  const std::string url =
      fmt::format("{}/{}?list-type=2&prefix={}", config_.endpoint,
                  percent_encode(config_.bucket, false), percent_encode(full, false));
  auto r = request(config_, "GET", url, std::nullopt, {});
  if (!r) return tl::unexpected(r.error());
  if (r->status / 100 != 2) return tl::unexpected(status_error(config_, "listing", *r));
  const auto keys = xml_values(r->body, "Key");
  const auto sizes = xml_values(r->body, "Size");
  const auto etags = xml_values(r->body, "ETag");
  if (keys.size() != sizes.size() || keys.size() != etags.size())
    return std::optional<ObjectFacts>{};  // not a listing read here: not known to be there
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] != full) continue;
    std::uint64_t size = 0;
    const auto [end, err] =
        std::from_chars(sizes[i].data(), sizes[i].data() + sizes[i].size(), size);
    if (err != std::errc() || end != sizes[i].data() + sizes[i].size()) break;
    return std::optional<ObjectFacts>(ObjectFacts{size, etags[i]});
  }
  return std::optional<ObjectFacts>{};
}

util::Result<std::optional<std::string>> S3Client::get(std::string_view key) {
  auto r = request(config_, "GET", object_url(config_, key), std::nullopt, {});
  if (!r) return tl::unexpected(std::move(r.error()).with_context(std::string(key)));
  if (r->status == 404) return std::optional<std::string>{};
  if (r->status / 100 != 2)
    return tl::unexpected(status_error(config_, fmt::format("GET {}", key), *r));
  return std::optional<std::string>(std::move(r->body));
}

util::Result<std::vector<std::string>> S3Client::list(std::string_view dir) {
  std::string prefix = config_.prefix.empty() ? std::string() : config_.prefix + "/";
  if (!dir.empty()) prefix += std::string(dir) + "/";  // "": the prefix's own level
  std::vector<std::string> names;
  std::string token;
  for (int page = 0; page < 100000; ++page) {
    // Query parameters in sorted order: SigV4's canonical query is sorted.
    std::string query;
    if (!token.empty()) query += "continuation-token=" + percent_encode(token, false) + "&";
    query += "delimiter=%2F&list-type=2&prefix=" + percent_encode(prefix, false);
    const std::string url =
        fmt::format("{}/{}?{}", config_.endpoint, percent_encode(config_.bucket, false), query);
    auto r = request(config_, "GET", url, std::nullopt, {});
    if (!r) return tl::unexpected(r.error());
    if (r->status == 404 && s3_code(r->body) == "NoSuchBucket")
      return util::fail(util::ErrorKind::failed, "no such S3 bucket", config_.bucket,
                        "create the bucket first");
    if (r->status / 100 != 2) return tl::unexpected(status_error(config_, "listing", *r));
    for (auto& key : xml_values(r->body, "Key")) {
      if (util::starts_with(key, prefix) && key.size() > prefix.size())
        names.push_back(key.substr(prefix.size()));
    }
    const auto truncated = xml_values(r->body, "IsTruncated");
    const auto next = xml_values(r->body, "NextContinuationToken");
    if (truncated.empty() || truncated.front() != "true" || next.empty()) break;
    token = next.front();
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace flashfit::net
