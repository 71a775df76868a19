#include "util/verbosity.hpp"

#include <fmt/core.h>

#include <atomic>
#include <cstdio>

namespace flashfit::util {
namespace {

std::atomic<Verbosity> level{Verbosity::normal};
const auto process_start = std::chrono::steady_clock::now();

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void set_verbosity(Verbosity value) {
  level = value;
}
Verbosity verbosity() {
  return level;
}

void trace(std::string_view line) {
  if (!verbose()) return;
  const std::string text =
      fmt::format("flashfit: [{:8.3f}s] {}\n", seconds_since(process_start), line);
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

TraceSpan::TraceSpan(std::string what)
    : what_(std::move(what)), start_(std::chrono::steady_clock::now()) {
  trace(what_);
}

TraceSpan::~TraceSpan() {
  if (verbose()) trace(fmt::format("{}: {} ({:.3f} s)", what_, outcome_, seconds_since(start_)));
}

}  // namespace flashfit::util
