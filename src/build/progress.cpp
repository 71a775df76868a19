#include "build/progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "net/progress.hpp"
#include "util/verbosity.hpp"

namespace flashfit::build {
namespace {

bool read_unsigned(std::string_view text, unsigned& out) {
  if (text.empty() || text.size() > 9) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::size_t terminal_columns() {
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 80;
}

double seconds(BuildProgress::Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

std::optional<NinjaStatus> parse_ninja_status(std::string_view line) {
  // pip -v indents its child's output by two spaces.
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  if (line.size() < 5 || line.front() != '[') return std::nullopt;
  auto slash = line.find('/');
  auto close = line.find(']');
  if (slash == std::string_view::npos || close == std::string_view::npos || slash > close)
    return std::nullopt;
  NinjaStatus s;
  if (!read_unsigned(line.substr(1, slash - 1), s.done) ||
      !read_unsigned(line.substr(slash + 1, close - slash - 1), s.total)) {
    return std::nullopt;
  }
  if (s.done == 0 || s.done > s.total) return std::nullopt;
  s.what = line.substr(close + 1);
  while (!s.what.empty() && s.what.front() == ' ') s.what.remove_prefix(1);
  return s;
}

BuildProgress::BuildProgress(std::string label, bool bar, Sink sink)
    : label_(std::move(label)), bar_(bar), sink_(std::move(sink)) {
  if (bar_) columns_ = terminal_columns();
}

BuildProgress::~BuildProgress() {
  end_bar();
}

void BuildProgress::emit(std::string_view text) {
  if (sink_) {
    sink_(text);
  } else if (!util::quiet()) {  // -q: the answer and errors only
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
  }
}

void BuildProgress::end_bar() {
  if (bar_drawn_) emit("\n");
  bar_drawn_ = false;
}

std::optional<double> BuildProgress::eta_seconds(unsigned done, unsigned total,
                                                 double phase_elapsed_s) {
  if (done == 0 || total < done || phase_elapsed_s <= 0) return std::nullopt;
  return phase_elapsed_s / done * (total - done);
}

std::string BuildProgress::bar_line(std::string_view label, unsigned done, unsigned total,
                                    std::size_t phase, double elapsed_s,
                                    std::optional<double> eta_s, std::size_t paused,
                                    std::size_t columns) {
  const unsigned percent = total ? static_cast<unsigned>(100ull * done / total) : 0;
  std::string tail = fmt::format(" {}/{} {:3}% {} ETA {}", done, total, percent,
                                 net::format_duration(elapsed_s), net::format_duration(eta_s));
  if (phase > 1) tail += fmt::format(" (step {})", phase);
  if (paused) tail += fmt::format(" {} paused", paused);
  std::string name(label);
  const std::size_t width = columns > 1 ? columns - 1 : 0;
  // Label, then a bar of whatever room is left (at least 10 cells), then the numbers.
  std::size_t room = width > tail.size() + 3 ? width - tail.size() - 3 : 0;
  if (name.size() + 11 > room) name = room > 14 ? name.substr(0, room - 14) + "..." : std::string();
  std::size_t cells = room > name.size() + 1 ? room - name.size() - 1 : 0;
  cells = std::min<std::size_t>(cells, 40);
  std::size_t filled = total ? cells * done / total : 0;
  std::string line = name.empty() ? "" : name + " ";
  if (cells >= 10) line += "[" + std::string(filled, '#') + std::string(cells - filled, '.') + "]";
  line += tail;
  if (line.size() > width) line.resize(width);
  return line;
}

bool BuildProgress::on_line(std::string_view line, Clock::time_point now) {
  auto status = parse_ninja_status(line);
  if (!status || finished_) return false;
  if (phase_ == 0 ||
      status->done <= done_) {  // the first line, or a new ninja run counting from 1 again
    // ninja reports a step when it ends: the first phase's pace counts from
    // the start (setup.py's work before ninja included), later ones from the
    // previous phase's end.
    if (phase_ > 0) phase_start_ = last_status_;
    ++phase_;
    tenths_shown_ = 0;
  }
  last_status_ = now;
  done_ = status->done;
  total_ = status->total;
  const double elapsed = seconds(now - start_);
  const auto eta = eta_seconds(done_, total_, seconds(now - phase_start_));
  if (bar_) {
    if (now - last_draw_ < std::chrono::milliseconds(100) && done_ != total_) return true;
    last_draw_ = now;
    emit("\r\x1b[K" + bar_line(label_, done_, total_, phase_, elapsed, eta, paused_, columns_));
    bar_drawn_ = true;
    return true;
  }
  const int tenths = static_cast<int>(10ull * done_ / total_);
  if (tenths > tenths_shown_ || now - last_plain_ >= std::chrono::minutes(1) || done_ == 1) {
    tenths_shown_ = std::max(tenths_shown_, tenths);
    last_plain_ = now;
    emit(fmt::format(
        "{}: {}/{} compiled ({}%), {} elapsed, ETA {}{}{}\n", label_, done_, total_,
        100ull * done_ / total_, net::format_duration(elapsed), net::format_duration(eta),
        phase_ > 1 ? fmt::format(" (step {})", phase_) : std::string(),
        paused_ ? fmt::format(", {} paused by the memory governor", paused_) : std::string()));
  }
  return true;
}

void BuildProgress::set_paused(std::size_t paused) {
  paused_ = paused;
}

void BuildProgress::note(std::string_view line) {
  end_bar();
  emit(std::string(line) + "\n");
}

void BuildProgress::finish(bool ok, Clock::time_point now) {
  if (finished_) return;
  finished_ = true;
  end_bar();
  emit(fmt::format("{}: {} after {}{}\n", label_, ok ? "built" : "failed",
                   net::format_duration(seconds(now - start_)),
                   total_ ? fmt::format(" ({}/{} compile steps)", done_, total_) : std::string()));
}

}  // namespace flashfit::build
