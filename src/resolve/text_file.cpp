#include "resolve/text_file.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/unique_fd.hpp"

namespace flashfit::resolve::detail {
util::Result<std::string> read_text_file(const std::filesystem::path& path, std::size_t max_bytes) {
  const std::string shown = path.string();
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
  util::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    return util::input_error(fmt::format("cannot open: {}", std::strerror(errno)), shown);
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    return util::input_error(fmt::format("cannot stat: {}", std::strerror(errno)), shown);
  }
  if (!S_ISREG(info.st_mode)) return util::input_error("not a regular file", shown);
  if (static_cast<std::size_t>(info.st_size) > max_bytes) {
    return util::input_error(
        fmt::format("file too large ({} bytes; the limit is {})", info.st_size, max_bytes), shown);
  }
  std::string text;
  char buffer[8192];
  for (;;) {
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      return util::input_error(fmt::format("cannot read: {}", std::strerror(errno)), shown);
    }
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    // The file may grow between fstat and here.
    if (text.size() > max_bytes) {
      return util::input_error(fmt::format("file too large (over {} bytes)", max_bytes), shown);
    }
  }
  return text;
}

}  // namespace flashfit::resolve::detail
