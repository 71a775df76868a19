#include "util/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/write_all.hpp"

namespace flashfit::util {

Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view content,
                               Durability durability) {
  std::string temp_template =
      (path.parent_path() / ("." + path.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(temp_template.data());
  auto error = [&](const char* what) {
    return fail(ErrorKind::failed, std::string(what) + ": " + std::strerror(errno), path.string());
  };
  if (fd < 0) return error("cannot create a temporary file");
  if (!write_all(fd, content)) {
    auto e = error("cannot write");
    ::close(fd);
    ::unlink(temp_template.c_str());
    return e;
  }
  ::fchmod(fd, 0644);
  if ((durability == Durability::durable && ::fsync(fd) != 0) || ::close(fd) != 0) {
    auto e = error("cannot flush");
    ::unlink(temp_template.c_str());
    return e;
  }
  if (::rename(temp_template.c_str(), path.c_str()) != 0) {
    auto e = error("cannot rename into place");
    ::unlink(temp_template.c_str());
    return e;
  }
  return {};
}

Result<void> sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return fail(ErrorKind::failed,
                std::string("cannot open the directory: ") + std::strerror(errno), dir.string());
  }
  const int rc = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  // Some file systems cannot fsync a directory (EINVAL); the rename stands.
  if (rc != 0 && saved != EINVAL) {
    return fail(ErrorKind::failed,
                std::string("cannot flush the directory: ") + std::strerror(saved), dir.string());
  }
  return {};
}

std::optional<std::string> read_small_file(const std::filesystem::path& path,
                                           std::size_t max_size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || out.size() + static_cast<std::size_t>(n) > max_size) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace flashfit::util
