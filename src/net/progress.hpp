#pragma once
// The default download progress display (net/download.hpp), on stderr only:
// on a terminal one line rewritten in place (label, bytes of total, percent,
// speed, ETA; at most ~10 redraws a second), elsewhere (logs, CI, pipes) a
// plain line at the start, at each 25% and at the end, so logs stay short.
// Internal to net/ and its tests; `format_bytes` is also what the cache
// listing shows.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "net/download.hpp"

namespace flashfit::net {

// "512 B", "1.5 KiB", "12.3 MiB", "1.04 GiB": binary units, 3 significant digits.
std::string format_bytes(std::uint64_t bytes);
// "0:07", "12:34", "1:02:03"; "?" when unknown.
std::string format_duration(std::optional<double> seconds);

// Whether stderr is a terminal that can take a rewritten line: isatty(2),
// TERM not "dumb", NO_COLOR unset (download.hpp).
bool stderr_wants_bar();

class ProgressRenderer {
 public:
  using Sink = std::function<void(std::string_view)>;
  // `bar`: the rewritten line, else plain lines; `sink` receives the text
  // (stderr when empty).
  ProgressRenderer(std::string label, bool bar, Sink sink = {});
  ~ProgressRenderer();
  ProgressRenderer(const ProgressRenderer&) = delete;
  ProgressRenderer& operator=(const ProgressRenderer&) = delete;

  void update(const DownloadProgress& progress);
  // A line that interrupts the bar ("retrying in 2 s: ...").
  void note(std::string_view line);
  // The last line: the size, time and speed, or that it failed.
  void finish(const DownloadProgress& progress, bool ok);

  // The bar's line for these numbers (without "\r" and the erase sequence),
  // shorter than `columns` so it never wraps (the label is shortened).
  static std::string bar_line(std::string_view label, const DownloadProgress& progress,
                              std::size_t columns = 80);

 private:
  void emit(std::string_view text);
  void end_bar_line();

  std::string label_;
  bool bar_;
  Sink sink_;
  bool started_ = false;
  bool finished_ = false;
  bool bar_drawn_ = false;
  int quarters_shown_ = 0;    // plain mode: 25%-marks already printed
  std::size_t columns_ = 80;  // bar mode: the terminal's width
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// What download_file reports through: the caller's sink, else the default
// renderer (unless quiet), at most ~10 updates a second, with the speed of
// the current attempt.
class DownloadReporter {
 public:
  explicit DownloadReporter(const DownloadRequest& request);
  void attempt_started(std::uint64_t received);
  void tick(std::uint64_t received, std::optional<std::uint64_t> total, bool force = false);
  void note(const std::string& line);
  void finish(std::uint64_t received, bool ok);

 private:
  double speed(std::uint64_t received, std::chrono::steady_clock::time_point now) const;

  const DownloadRequest& request_;
  std::unique_ptr<ProgressRenderer> renderer_;
  std::chrono::steady_clock::time_point attempt_start_ = std::chrono::steady_clock::now();
  std::uint64_t attempt_start_bytes_ = 0;
  std::chrono::steady_clock::time_point last_{};
  DownloadProgress last_progress_;
};

}  // namespace flashfit::net
