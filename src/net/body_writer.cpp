#include "net/body_writer.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "net/download_internal.hpp"
#include "util/write_all.hpp"

namespace flashfit::net::detail {
namespace {

constexpr std::size_t kBlockSize = std::size_t{1} << 20;
// 8 MiB in flight at most: the transfer waits when the disk falls this far behind.
constexpr std::size_t kMaxBlocks = 8;
// Writeback is started per this many bytes written (fewer, larger requests).
constexpr std::uint64_t kWritebackStep = std::uint64_t{8} << 20;

}  // namespace

BodyWriter::BodyWriter(int fd, util::Sha256& hasher, std::uint64_t offset)
    : fd_(fd), hasher_(hasher), written_(offset), flushed_from_(offset) {}

BodyWriter::~BodyWriter() {
  finish();
}

bool BodyWriter::append(const char* data, std::size_t size) {
  while (size > 0) {
    if (error_.load() != 0) return false;
    if (!current_.data) {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return !spare_.empty() || blocks_ < kMaxBlocks || error_ != 0; });
      if (error_.load() != 0) return false;
      if (!spare_.empty()) {
        current_ = std::move(spare_.back());
        spare_.pop_back();
      } else {
        // Not zeroed: every byte is copied in before it is read.
        current_.data = std::make_unique_for_overwrite<char[]>(kBlockSize);
        ++blocks_;
      }
    }
    const std::size_t n = std::min(size, kBlockSize - current_.used);
    std::memcpy(current_.data.get() + current_.used, data, n);
    current_.used += n;
    data += n;
    size -= n;
    if (current_.used == kBlockSize) hand_over();
  }
  return error_.load() == 0;
}

void BodyWriter::hand_over() {
  if (!thread_.joinable() && !inline_) {
    try {
      thread_ = std::thread([this] { run(); });
    } catch (const std::system_error&) {
      inline_ = true;  // no thread to be had: write on the transfer thread, as before
    }
  }
  if (inline_) {
    if (error_.load() == 0 && !write(current_)) error_ = errno;
    current_.used = 0;
    return;
  }
  {
    const std::lock_guard lock(mutex_);
    full_.push_back(std::move(current_));
  }
  current_ = Block{};
  changed_.notify_all();
}

bool BodyWriter::finish() {
  if (thread_.joinable()) {
    if (current_.used > 0) hand_over();
    {
      const std::lock_guard lock(mutex_);
      closing_ = true;
    }
    changed_.notify_all();
    thread_.join();
  } else if (current_.used > 0 && error_.load() == 0) {
    // A body under one block (no thread was needed), or no thread to be had.
    if (!write(current_)) error_ = errno;
  }
  current_ = Block{};
  return error_.load() == 0;
}

bool BodyWriter::write(const Block& block) {
  if (!util::write_all(fd_, block.data.get(), block.used)) return false;
  hasher_.update(block.data.get(), block.used);
  written_ += block.used;
  if (written_ - flushed_from_ >= kWritebackStep) {
    // Start (not wait for) writing these pages to disk. A failure here is
    // harmless: the fdatasync before the rename writes and checks everything.
    (void)::sync_file_range(fd_, static_cast<off_t>(flushed_from_),
                            static_cast<off_t>(written_ - flushed_from_), SYNC_FILE_RANGE_WRITE);
    flushed_from_ = written_;
  }
  return true;
}

void BodyWriter::run() {
  while (true) {
    Block block;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return !full_.empty() || closing_; });
      if (full_.empty()) return;  // closing, all written
      block = std::move(full_.front());
      full_.pop_front();
    }
    // After a failed write the rest is dropped and the attempt ends; the
    // .part is hashed again from disk by the run that resumes it.
    if (error_.load() == 0 && !write(block)) error_ = errno != 0 ? errno : EIO;
    block.used = 0;
    {
      const std::lock_guard lock(mutex_);
      spare_.push_back(std::move(block));
    }
    changed_.notify_all();
  }
}

}  // namespace flashfit::net::detail
