// Local sources of download_file (an absolute path, a file:// URL): the
// same contract as a download (hash, size cap, verify, temp + rename), so
// `flashfit cache add` and a find-links directory on disk behave like an index.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "net/download_internal.hpp"
#include "net/http.hpp"
#include "util/atomic_file.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"
#include "util/write_all.hpp"

namespace flashfit::net::detail {
namespace {

std::string errno_text() {
  return std::strerror(errno);
}

}  // namespace

std::filesystem::path part_path(const std::filesystem::path& destination) {
  std::filesystem::path part = destination;
  part += ".part";
  return part;
}

util::Result<std::string> commit_part(UniqueFd fd, const std::filesystem::path& part,
                                      const std::filesystem::path& destination,
                                      util::Sha256& hasher,
                                      const std::optional<std::string>& expected_sha256,
                                      std::string_view where, bool sync_directory) {
  // fdatasync: the bytes and the size that reads them back; the timestamps
  // can wait (one journal commit less on ext4 when nothing else changed).
  if (::fdatasync(fd.get()) != 0 || ::close(fd.release()) != 0) {
    return util::fail(util::ErrorKind::failed,
                      fmt::format("cannot flush {}: {}", part.string(), errno_text()),
                      std::string(where));
  }
  const std::string digest = util::to_hex(hasher.finish());
  if (expected_sha256 && util::ascii_lower(*expected_sha256) != digest) {
    std::error_code ec;
    std::filesystem::remove(part, ec);
    return util::fail(
        util::ErrorKind::input,
        fmt::format("sha256 mismatch: expected {}, got {}", util::printable(*expected_sha256, 80),
                    digest),
        std::string(where),
        "the file is not the one the index promised (changed upstream, or tampered with); "
        "nothing was kept");
  }
  if (::rename(part.c_str(), destination.c_str()) != 0) {
    return util::fail(util::ErrorKind::failed,
                      fmt::format("cannot rename {} to {}: {}", part.string(), destination.string(),
                                  errno_text()),
                      std::string(where));
  }
  if (sync_directory) {
    if (auto synced = util::sync_directory(destination.parent_path()); !synced) {
      return tl::unexpected(synced.error());
    }
  }
  return digest;
}

util::Result<DownloadResult> copy_local(const DownloadRequest& request) {
  auto source = local_source_path(request.url);
  if (!source) return tl::unexpected(source.error());
  const std::string where = util::printable(source->string(), 300);
  UniqueFd in(::open(source->c_str(), O_RDONLY | O_CLOEXEC));
  struct stat info {};
  if (!in || ::fstat(in.get(), &info) != 0) {
    return util::input_error(fmt::format("cannot read {}: {}", where, errno_text()));
  }
  if (!S_ISREG(info.st_mode))
    return util::input_error(fmt::format("{} is not a regular file", where));
  if (static_cast<std::uint64_t>(info.st_size) > request.max_bytes) {
    return util::input_error(fmt::format("{} is larger than {} bytes", where, request.max_bytes));
  }

  const auto part = part_path(request.destination);
  UniqueFd out(::open(part.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!out) {
    return util::fail(util::ErrorKind::failed,
                      fmt::format("cannot create {}: {}", part.string(), errno_text()));
  }
  auto abandon = [&](util::ErrorKind kind, std::string message) {
    out.reset();
    std::error_code ec;
    std::filesystem::remove(part, ec);
    return util::fail(kind, std::move(message), where);
  };

  util::Sha256 hasher;
  DownloadResult result;
  result.attempts = 1;
  std::vector<char> buffer(std::size_t{1} << 20);
  while (true) {
    if (util::interrupted())
      return abandon(util::ErrorKind::interrupted, "interrupted while copying");
    const ssize_t n = ::read(in.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return abandon(util::ErrorKind::failed, fmt::format("cannot read: {}", errno_text()));
    if (n == 0) break;
    const auto size = static_cast<std::size_t>(n);
    if (result.bytes + size > request.max_bytes) {
      return abandon(util::ErrorKind::input,
                     fmt::format("larger than {} bytes", request.max_bytes));
    }
    if (!util::write_all(out.get(), buffer.data(), size)) {
      return abandon(util::ErrorKind::failed,
                     fmt::format("cannot write {}: {}", part.string(), errno_text()));
    }
    hasher.update(buffer.data(), size);
    result.bytes += size;
  }
  if (request.progress) request.progress(DownloadProgress{result.bytes, result.bytes, 0});
  auto digest = commit_part(std::move(out), part, request.destination, hasher,
                            request.expected_sha256, where, request.durable_name);
  if (!digest) return tl::unexpected(digest.error());
  result.sha256 = std::move(*digest);
  return result;
}

}  // namespace flashfit::net::detail
