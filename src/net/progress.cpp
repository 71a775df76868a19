#include "net/progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>

#include "util/env_vars.hpp"
#include "util/strings.hpp"
#include "util/verbosity.hpp"

namespace flashfit::net {
namespace {

// Long wheel names ("flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-...")
// keep their start and end, which tell versions apart, on an 80-column line.
std::string shorten(std::string_view label, std::size_t width) {
  std::string text = util::printable(label, 1000);
  if (text.size() <= width) return text;
  const std::size_t head = (width - 3) / 2;
  const std::size_t tail = width - 3 - head;
  return text.substr(0, head) + "..." + text.substr(text.size() - tail);
}

std::optional<double> eta_seconds(const DownloadProgress& p) {
  if (!p.total || p.bytes_per_second <= 0 || *p.total < p.received) return std::nullopt;
  return static_cast<double>(*p.total - p.received) / p.bytes_per_second;
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024.0;
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  // Three significant digits; rounding up may reach the next unit's 1024.
  if (value < 9.995) return fmt::format("{:.2f} {}", value, kUnits[unit]);
  if (value < 99.95) return fmt::format("{:.1f} {}", value, kUnits[unit]);
  return fmt::format("{:.0f} {}", value, kUnits[unit]);
}

std::string format_duration(std::optional<double> seconds) {
  if (!seconds || !std::isfinite(*seconds) || *seconds < 0 || *seconds > 360000.0 * 24) return "?";
  const auto total = static_cast<std::uint64_t>(std::llround(*seconds));
  const std::uint64_t h = total / 3600, m = (total / 60) % 60, s = total % 60;
  if (h > 0) return fmt::format("{}:{:02}:{:02}", h, m, s);
  return fmt::format("{}:{:02}", m, s);
}

bool stderr_wants_bar() {
  if (::isatty(STDERR_FILENO) == 0) return false;
  const auto term = util::getenv_opt("TERM");
  if (!term || term->empty() || *term == "dumb") return false;
  return !util::getenv_opt("NO_COLOR").has_value();
}

ProgressRenderer::ProgressRenderer(std::string label, bool bar, Sink sink)
    : label_(std::move(label)), bar_(bar), sink_(std::move(sink)) {
  struct winsize size {};
  if (bar_ && !sink_ && ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20)
    columns_ = size.ws_col;
}

ProgressRenderer::~ProgressRenderer() {
  end_bar_line();
}

void ProgressRenderer::emit(std::string_view text) {
  if (sink_) {
    sink_(text);
    return;
  }
  if (util::quiet()) return;  // -q: the answer and errors only
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

void ProgressRenderer::end_bar_line() {
  if (bar_drawn_) emit("\n");
  bar_drawn_ = false;
}

std::string ProgressRenderer::bar_line(std::string_view label, const DownloadProgress& p,
                                       std::size_t columns) {
  std::string numbers = "  " + format_bytes(p.received);
  if (p.total) {
    const double fraction =
        *p.total == 0
            ? 1.0
            : std::min(1.0, static_cast<double>(p.received) / static_cast<double>(*p.total));
    numbers += fmt::format(" / {}  {:3.0f}%", format_bytes(*p.total), fraction * 100.0);
  }
  if (p.bytes_per_second > 0) {
    numbers += fmt::format("  {}/s", format_bytes(static_cast<std::uint64_t>(p.bytes_per_second)));
  }
  if (p.total) numbers += "  ETA " + format_duration(eta_seconds(p));
  // A line as wide as the terminal wraps, and "\r" then rewrites only its last row.
  const std::size_t room = columns > numbers.size() + 11 ? columns - numbers.size() - 1 : 10;
  return shorten(label, room) + numbers;
}

void ProgressRenderer::update(const DownloadProgress& p) {
  if (finished_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!started_) {
    started_ = true;
    start_ = now;
    if (!bar_) {
      emit(fmt::format("downloading {}{}\n", util::printable(label_, 300),
                       p.total ? " (" + format_bytes(*p.total) + ")" : std::string()));
      // A resumed download starts past some marks: those are not news.
      if (p.total && *p.total > 0) {
        quarters_shown_ = static_cast<int>(std::min<std::uint64_t>(3, p.received * 4 / *p.total));
      }
    }
  }
  if (bar_) {
    if (bar_drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    bar_drawn_ = true;
    emit("\r" + bar_line(label_, p, columns_) + "\x1b[K");
    return;
  }
  if (!p.total || *p.total == 0) return;
  // 25%, 50% and 75%; 100% is the end line.
  const int quarters = static_cast<int>(std::min<std::uint64_t>(3, p.received * 4 / *p.total));
  if (quarters > quarters_shown_) {
    quarters_shown_ = quarters;
    emit(fmt::format("{}: {}% ({} of {})\n", util::printable(label_, 300), quarters * 25,
                     format_bytes(p.received), format_bytes(*p.total)));
  }
}

void ProgressRenderer::note(std::string_view line) {
  end_bar_line();
  emit(std::string(line) + "\n");
}

void ProgressRenderer::finish(const DownloadProgress& p, bool ok) {
  if (finished_) return;
  finished_ = true;
  if (!ok) {
    // The error itself is reported by the caller; only close the bar's line.
    end_bar_line();
    return;
  }
  const double seconds =
      started_ ? std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count()
               : 0.0;
  if (bar_) {
    // The final state drawn once more, unthrottled, then kept on screen.
    emit("\r" + bar_line(label_, p, columns_) + "\x1b[K");
    bar_drawn_ = true;
    end_bar_line();
    return;
  }
  emit(fmt::format("downloaded {}: {} in {:.1f} s{}\n", util::printable(label_, 300),
                   format_bytes(p.received), seconds,
                   p.bytes_per_second > 0
                       ? " (" + format_bytes(static_cast<std::uint64_t>(p.bytes_per_second)) + "/s)"
                       : std::string()));
}

DownloadReporter::DownloadReporter(const DownloadRequest& request) : request_(request) {
  if (!request.progress && !request.quiet) {
    renderer_ = std::make_unique<ProgressRenderer>(
        request.label.empty() ? request.destination.filename().string() : request.label,
        stderr_wants_bar());
  }
}

void DownloadReporter::attempt_started(std::uint64_t received) {
  attempt_start_ = std::chrono::steady_clock::now();
  attempt_start_bytes_ = received;
}

void DownloadReporter::tick(std::uint64_t received, std::optional<std::uint64_t> total,
                            bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  last_progress_ = {received, total, speed(received, now)};
  if (request_.progress) request_.progress(last_progress_);
  if (renderer_) renderer_->update(last_progress_);
}

void DownloadReporter::note(const std::string& line) {
  if (renderer_) renderer_->note(line);
}

void DownloadReporter::finish(std::uint64_t received, bool ok) {
  if (ok) tick(received, received, true);
  if (renderer_) renderer_->finish(last_progress_, ok);
}

double DownloadReporter::speed(std::uint64_t received,
                               std::chrono::steady_clock::time_point now) const {
  const double seconds = std::chrono::duration<double>(now - attempt_start_).count();
  if (seconds < 0.05 || received < attempt_start_bytes_) return 0;
  return static_cast<double>(received - attempt_start_bytes_) / seconds;
}

}  // namespace flashfit::net
