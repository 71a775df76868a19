#pragma once
// A remote wheel's Requires-Dist from its last bytes, by HTTP range requests,
// for `lock` when the index serves no METADATA file (PEP 658: GitHub release
// assets, where upstream flash-attn and the catalogs' rows live). A wheel
// usually ends with its dist-info files, just before the zip's central
// directory (bdist_wheel writes them last), so the last 64 KiB of a 250 MB
// flash-attn build hold all `lock` reads; pip's and uv's lazy wheel reads rely
// on the same. The bytes are the server's answer, not checked against the
// file's sha256 (only the whole file can be): METADATA's CRC and its Name and
// Version are checked here, and `install --lock` checks the whole file's hash
// and the requirements of what it installed.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "resolve/candidate.hpp"
#include "util/error.hpp"

namespace flashfit::workflow {

inline constexpr std::uint64_t kFirstTailBytes = std::uint64_t{64} << 10;
// A second, larger read covers a central directory of thousands of members
// and a long RECORD (pip's and uv's wheels need about 90 KiB from the end,
// torch's 2.2 MiB); past it the whole wheel is downloaded instead.
inline constexpr std::uint64_t kLastTailBytes = std::uint64_t{4} << 20;

// Larger than any wheel flashfit would read (WheelLimits caps the unpacked
// size at 8 GiB): a Content-Range total past it is refused, not made into a
// sparse file.
inline constexpr std::uint64_t kMaxWheelBytes = std::uint64_t{16} << 30;

// One range request's answer, judged. Pure.
struct RangeAsked {
  std::optional<std::uint64_t> start;  // nullopt: the last `length` bytes ("-65536")
  std::uint64_t length = 0;
};
struct RangePiece {
  std::uint64_t start = 0;
  std::uint64_t total = 0;  // the whole file's size
  std::string refused;      // non-empty: why the answer is not the bytes asked for
};
RangePiece judge_range_answer(const RangeAsked& asked, long status, std::string_view content_range,
                              std::uint64_t body_size);

struct TailRead {
  std::optional<std::vector<std::string>> requires_dist;  // nullopt: not read from the tail
  std::uint64_t fetched = 0;                              // bytes received
  std::string why_not;  // when nullopt: why (the caller downloads the whole wheel)
};

// Reads `pick`'s METADATA from its tail: the bytes are written at their
// offsets into a sparse file named after the wheel in `dir` (removed by the
// caller with `dir`) and read with binary::open_wheel_dist_info. A server that
// ignores ranges, an answer that is not the bytes asked for, a transport
// failure or dist-info files not in the last kLastTailBytes give nullopt and
// why. Errors: interruption, a file that cannot be written, and METADATA that
// is not this wheel's (another Name or Version).
util::Result<TailRead> tail_requires_dist(const resolve::Candidate& pick,
                                          const std::filesystem::path& dir);

}  // namespace flashfit::workflow
