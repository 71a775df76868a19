// ninja's "[N/M] text" status lines, and the progress display fed with them:
// a status has 0 < N <= M and its text is the end of the line; any line is
// safe to feed to BuildProgress, on a bar or in plain mode.
#include "build/progress.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::build;
  const auto text = flashfit::fuzz::as_text(data, size);
  std::string sunk;
  BuildProgress bar("fuzz", /*bar=*/true, [&](std::string_view out) { sunk.append(out); });
  BuildProgress plain("fuzz", /*bar=*/false, [&](std::string_view out) { sunk.append(out); });
  auto now = BuildProgress::Clock::time_point{} + std::chrono::hours(1);
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto nl = text.find('\n', start);
    const auto line = text.substr(start, nl == std::string_view::npos ? nl : nl - start);
    const auto status = parse_ninja_status(line);
    if (status) {
      FUZZ_CHECK(status->done > 0 && status->done <= status->total,
                 "bad counts in " + std::string(line));
      FUZZ_CHECK(status->what.data() >= line.data() &&
                     status->what.data() + status->what.size() == line.data() + line.size(),
                 "text is not the end of the line");
    }
    now += std::chrono::seconds(7);
    FUZZ_CHECK(bar.on_line(line, now) == status.has_value(), "on_line disagrees with the parser");
    FUZZ_CHECK(plain.on_line(line, now) == status.has_value(), "on_line disagrees with the parser");
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  bar.finish(true, now);
  plain.finish(false, now);
  return 0;
}
