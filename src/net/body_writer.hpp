#pragma once
// A download's body on its way into the .part file. libcurl hands the
// transfer thread the body in pieces of at most 16 KiB; writing and hashing
// each there made the transfer thread do three jobs (6,400 write calls and
// SHA-256 of every byte for 100 MB). Here the transfer thread only copies the
// pieces into 1 MiB blocks; a second thread writes each block, hashes it and
// starts its writeback to disk (sync_file_range), so the final fdatasync finds
// most of the file already there. Internal to net/.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "util/sha256.hpp"

namespace flashfit::net::detail {

class BodyWriter {
 public:
  // `fd` is open for appending; `hasher` has seen the `offset` bytes already
  // in the file and sees every byte this writer writes, in order.
  BodyWriter(int fd, util::Sha256& hasher, std::uint64_t offset);
  ~BodyWriter();  // finish()
  BodyWriter(const BodyWriter&) = delete;
  BodyWriter& operator=(const BodyWriter&) = delete;

  // Takes a copy of the bytes. False once a write has failed (error_number()
  // says why): the caller aborts the transfer.
  bool append(const char* data, std::size_t size);
  // Writes what is gathered and stops the thread: afterwards the file and the
  // hasher hold every appended byte, unless a write failed. False then.
  bool finish();
  int error_number() const { return error_.load(); }

 private:
  struct Block {
    std::unique_ptr<char[]> data;
    std::size_t used = 0;
  };

  void hand_over();                // the current block to the thread (started at the first)
  void run();                      // the thread: write, hash, start writeback
  bool write(const Block& block);  // on whichever thread owns the file now

  int fd_;
  util::Sha256& hasher_;
  std::uint64_t written_;       // bytes in the file (the thread's, or after finish)
  std::uint64_t flushed_from_;  // where the next writeback range starts
  Block current_;               // filled by the transfer thread

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Block> full_;    // waiting for the thread, in order
  std::vector<Block> spare_;  // written, reusable
  std::size_t blocks_ = 0;    // allocated so far (at most kMaxBlocks)
  bool closing_ = false;
  bool inline_ = false;        // the thread could not be started
  std::atomic<int> error_{0};  // errno of the first failed write
  std::thread thread_;
};

}  // namespace flashfit::net::detail
