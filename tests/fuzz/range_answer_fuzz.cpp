// A server's answer to a range request (lock's read of a wheel's tail): the
// Content-Range header, then what judge_range_answer makes of it. A parsed
// range is ordered and inside its total and prints back to the same range; a
// piece accepted is exactly the bytes asked for, inside a file flashfit would
// read. Input: one byte of mode (bit 0: a suffix range; bit 1: the asked
// start from the input, else the answer's; bits 2-7: the body's size off the
// range's by that much), four bytes of the asked length, four of the asked
// start, the header.
#include <fmt/format.h>

#include <cstring>

#include "fuzz_common.hpp"
#include "net/content_range.hpp"
#include "workflow/tail_metadata.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit;
  if (size < 9) return 0;
  const std::uint8_t mode = data[0];
  std::uint32_t length = 0;
  std::uint32_t start = 0;
  std::memcpy(&length, data + 1, sizeof length);
  std::memcpy(&start, data + 5, sizeof start);
  const auto header = fuzz::as_text(data + 9, size - 9);

  const net::ContentRange range = net::parse_content_range(header);
  FUZZ_CHECK(range.start.has_value() == range.end.has_value(), "a range with one end");
  if (range.start) {
    FUZZ_CHECK(*range.end >= *range.start, "a range that ends before it starts");
    FUZZ_CHECK(!range.total || *range.end < *range.total, "a range past its total");
    if (range.total) {
      const std::string printed =
          fmt::format("bytes {}-{}/{}", *range.start, *range.end, *range.total);
      const net::ContentRange again = net::parse_content_range(printed);
      FUZZ_CHECK(again.start == range.start && again.end == range.end && again.total == range.total,
                 "printed back, the range parses differently: " + printed);
    }
  }

  // The body the server sent: the range's size, or off it.
  const std::uint64_t named = range.start ? *range.end - *range.start + 1 : 0;
  const std::uint64_t body = named + (mode >> 2);
  workflow::RangeAsked asked;
  asked.length = std::max<std::uint32_t>(length, 1);
  if ((mode & 1) == 0) asked.start = (mode & 2) != 0 ? start : range.start.value_or(0);
  const workflow::RangePiece piece = workflow::judge_range_answer(asked, 206, header, body);
  if (!piece.refused.empty()) return 0;
  FUZZ_CHECK(range.start && range.total, "accepted without a complete Content-Range");
  FUZZ_CHECK(piece.start == *range.start && piece.total == *range.total, "another piece accepted");
  FUZZ_CHECK(body == named, "accepted with another size of body than the range names");
  FUZZ_CHECK(piece.total <= workflow::kMaxWheelBytes, "a file past the limit accepted");
  if (asked.start) {
    FUZZ_CHECK(piece.start == *asked.start && body == asked.length, "not the bytes asked for");
  } else {
    FUZZ_CHECK(piece.start + body == piece.total, "a suffix that is not the file's end");
    FUZZ_CHECK(body <= asked.length, "more than the suffix asked for");
  }
  // A piece is never accepted from another status.
  FUZZ_CHECK(!workflow::judge_range_answer(asked, 200, header, body).refused.empty(),
             "a 200 accepted as a range");
  return 0;
}
