// /proc/<pid>/stat lines (the memory governor's view of a build): a parsed
// line has a positive pid, one state letter and whole pages of RSS, and the
// sample printed back as a stat line parses to the same sample, whatever
// spaces and parentheses the command name holds.
#include <fmt/format.h>
#include <unistd.h>

#include "build/process_tree.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::build;
  const auto text = flashfit::fuzz::as_text(data, size);
  const auto sample = detail::parse_proc_stat(text);
  if (!sample) return 0;
  static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  FUZZ_CHECK(sample->pid > 0, "pid not positive");
  FUZZ_CHECK(sample->rss_bytes % page == 0, "RSS not whole pages");
  FUZZ_CHECK(sample->comm.size() < size, "comm longer than the line");
  // Fields 3..26 of proc(5): state, ppid, pgrp, session, 15 fields flashfit
  // does not read (tty_nr .. itrealvalue), starttime, vsize, rss, two more.
  const std::string line =
      fmt::format("{} ({}) {} {} {} {} 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 {} 0 {} 0 0\n", sample->pid,
                  sample->comm, sample->state, sample->ppid, sample->pgrp, sample->session,
                  sample->start_ticks, sample->rss_bytes / page);
  const auto again = detail::parse_proc_stat(line);
  FUZZ_CHECK(again.has_value(), "printed back, the line does not parse: " + line);
  FUZZ_CHECK(again->pid == sample->pid && again->ppid == sample->ppid &&
                 again->pgrp == sample->pgrp && again->session == sample->session &&
                 again->start_ticks == sample->start_ticks &&
                 again->rss_bytes == sample->rss_bytes && again->state == sample->state &&
                 again->comm == sample->comm,
             "printed back, the line parses differently: " + line);
  return 0;
}
