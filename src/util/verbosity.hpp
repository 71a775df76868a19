#pragma once
// How much flashfit says on stderr, set once from -q/--quiet and -v/--verbose:
// quiet leaves the answer and errors only; verbose adds a trace line for each
// probe step, HTTP request and child process, with its time.

#include <chrono>
#include <string>
#include <string_view>

namespace flashfit::util {

enum class Verbosity { quiet, normal, verbose };

void set_verbosity(Verbosity level);
Verbosity verbosity();
inline bool quiet() {
  return verbosity() == Verbosity::quiet;
}
inline bool verbose() {
  return verbosity() == Verbosity::verbose;
}

// With --verbose: "flashfit: [  1.234s] <line>" on stderr (the time since start).
void trace(std::string_view line);

// Traces "<what>" when constructed and "<what>: <outcome> (0.123 s)" when done.
class TraceSpan {
 public:
  explicit TraceSpan(std::string what);
  ~TraceSpan();
  TraceSpan(const TraceSpan&) = delete;
  TraceSpan& operator=(const TraceSpan&) = delete;
  void set_outcome(std::string outcome) { outcome_ = std::move(outcome); }

 private:
  std::string what_;
  std::string outcome_ = "done";
  std::chrono::steady_clock::time_point start_;
};

}  // namespace flashfit::util
