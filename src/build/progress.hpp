#pragma once
// Build progress from ninja's status lines ("[37/73] /usr/local/cuda/bin/nvcc
// ..."): a bar with count, percent, elapsed time and ETA on a terminal, plain
// lines every 10% (or every minute of silence) elsewhere, so CI logs stay
// short. torch runs one ninja per extension, so the count may restart: each
// restart is a new phase. Output goes to a sink (stderr by default).

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace flashfit::build {

struct NinjaStatus {
  unsigned done = 0;
  unsigned total = 0;
  std::string_view what;  // the rest of the line (the command or its description)
};

// "[N/M] text" with 0 < N <= M, only spaces before the bracket (pip -v indents
// its child's output); nullopt otherwise.
std::optional<NinjaStatus> parse_ninja_status(std::string_view line);

class BuildProgress {
 public:
  using Sink = std::function<void(std::string_view)>;
  using Clock = std::chrono::steady_clock;
  BuildProgress(std::string label, bool bar, Sink sink = {});
  ~BuildProgress();
  BuildProgress(const BuildProgress&) = delete;
  BuildProgress& operator=(const BuildProgress&) = delete;

  // Feeds one output line of the build; returns true if it was a status line.
  bool on_line(std::string_view line, Clock::time_point now = Clock::now());
  void set_paused(std::size_t paused);  // compilers paused by the governor, shown on the bar
  void note(std::string_view line);     // a line that interrupts the bar
  void finish(bool ok, Clock::time_point now = Clock::now());

  // The bar's text for these numbers, shorter than `columns`.
  static std::string bar_line(std::string_view label, unsigned done, unsigned total,
                              std::size_t phase, double elapsed_s, std::optional<double> eta_s,
                              std::size_t paused, std::size_t columns = 80);
  // ETA from the pace so far; nullopt before the first unit is done.
  static std::optional<double> eta_seconds(unsigned done, unsigned total, double phase_elapsed_s);

 private:
  void emit(std::string_view text);
  void end_bar();

  std::string label_;
  bool bar_;
  Sink sink_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point phase_start_ = start_;
  Clock::time_point last_plain_ = start_;
  Clock::time_point last_draw_{};
  Clock::time_point last_status_ = start_;
  unsigned done_ = 0, total_ = 0;
  std::size_t phase_ = 0;  // 1 after the first status line
  int tenths_shown_ = 0;   // plain mode: 10%-marks printed in this phase
  std::size_t paused_ = 0;
  bool bar_drawn_ = false;
  bool finished_ = false;
  std::size_t columns_ = 80;
};

}  // namespace flashfit::build
