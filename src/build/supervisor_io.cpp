// The supervisor's plumbing (supervisor_io.hpp): the log file, line
// splitting. Kept apart so supervisor.cpp reads as the
// loop it is.
#include "build/supervisor_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "util/write_all.hpp"

namespace flashfit::build {

util::Result<LogFile> LogFile::create(const std::filesystem::path& path) {
  if (path.empty()) {
    return util::fail(util::ErrorKind::internal, "supervise called without a log path");
  }
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return util::fail(util::ErrorKind::failed,
                      std::string("cannot create the build log: ") + std::strerror(errno),
                      path.string(), "choose a writable cache directory");
  }
  LogFile log;
  log.fd_.reset(fd);
  return log;
}

bool LogFile::write(const char* data, std::size_t size) {
  if (ok_ && !util::write_all(fd_.get(), data, size)) ok_ = false;
  return ok_;
}

bool LogFile::close() {
  if (fd_ && ::close(fd_.get()) != 0) ok_ = false;
  fd_ = util::UniqueFd(-1);  // closed above: only forget the number
  return ok_;
}

void LineSplitter::emit(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (emit_) emit_(line);
}

void LineSplitter::feed(std::string_view chunk) {
  while (!chunk.empty()) {
    const auto newline = chunk.find('\n');
    const auto piece = chunk.substr(0, newline);
    if (!skipping_) {
      const std::size_t room = max_line_ - pending_.size();
      if (piece.size() > room) {
        pending_.append(piece.substr(0, room));
        emit(pending_);
        pending_.clear();
        skipping_ = true;
      } else {
        pending_.append(piece);
      }
    }
    if (newline == std::string_view::npos) break;
    if (!skipping_) {
      emit(pending_);
      pending_.clear();
    }
    skipping_ = false;
    chunk.remove_prefix(newline + 1);
  }
}

void LineSplitter::finish() {
  if (!skipping_ && !pending_.empty()) emit(pending_);
  pending_.clear();
  skipping_ = false;
}

}  // namespace flashfit::build
