// `lock`'s read of a remote wheel's dependencies from its last bytes (HTTP
// range requests), against the real test server: what a server answers is
// judged, the bytes land at their offsets in a sparse file, and anything that
// is not the tail asked for gives way to the whole download, saying why.
#include "workflow/tail_metadata.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <random>

#include "../binary/wheel_builder.hpp"
#include "../http_server.hpp"
#include "../temp_dir.hpp"
#include "binary/wheel.hpp"
#include "net/http.hpp"

namespace flashfit::workflow {
namespace {

namespace fixture = wheel_fixture;

TEST(JudgeRangeAnswer, TheBytesAskedForAreAPiece) {
  // The last 64 KiB of a 1 MiB file; a file smaller than the tail asked, whole.
  auto piece =
      judge_range_answer({std::nullopt, 65536}, 206, "bytes 983040-1048575/1048576", 65536);
  EXPECT_EQ(piece.refused, "");
  EXPECT_EQ(piece.start, 983040u);
  EXPECT_EQ(piece.total, 1048576u);
  piece = judge_range_answer({std::nullopt, 65536}, 206, "bytes 0-99/100", 100);
  EXPECT_EQ(piece.refused, "");
  EXPECT_EQ(piece.total, 100u);
  piece = judge_range_answer({1000, 24}, 206, "BYTES 1000-1023/5000", 24);
  EXPECT_EQ(piece.refused, "");
  EXPECT_EQ(piece.start, 1000u);
}

TEST(JudgeRangeAnswer, AnythingElseIsRefusedWithWhy) {
  const RangeAsked tail{std::nullopt, 65536};
  const struct {
    RangeAsked asked;
    long status;
    const char* content_range;
    std::uint64_t body;
    const char* why;
  } cases[] = {
      {tail, 200, "", 0, "does not answer range requests (HTTP 200)"},
      {tail, 416, "bytes */0", 0, "HTTP 416"},
      {tail, 404, "", 0, "HTTP 404"},
      {tail, 206, "", 65536, "not a byte range of a known size"},
      {tail, 206, "bytes 0-65535/*", 65536, "not a byte range of a known size"},
      {tail, 206, "bytes */1048576", 0, "not a byte range of a known size"},
      {tail, 206, "bytes 983040-1048575/1048576", 100, "names 65536 bytes and 100 came"},
      {tail, 206, "bytes 99-10/1048576", 0, "not a byte range of a known size"},
      {tail, 206, "bytes 0-65535/1048576", 65536, "not the range asked for"},  // the head
      {tail, 206, "bytes 10-99/100", 90, "not the range asked for"},  // part of a small file
      {tail, 206, "bytes 0-65535/65535", 65536, "not a byte range of a known size"},
      {tail, 206, "bytes 0-0/99999999999999999999", 1, "not a byte range of a known size"},
      {tail, 206, "bytes 0-0/68719476736", 1, "more than a wheel flashfit reads"},
      {{1000, 24}, 206, "bytes 1001-1024/5000", 24, "not the range asked for"},
      {{1000, 24}, 206, "bytes 1000-1010/5000", 11, "not the range asked for"},
      {tail, 206, "bytes \x01\xff-/", 0, "not a byte range of a known size"},
  };
  for (const auto& c : cases) {
    const RangePiece piece = judge_range_answer(c.asked, c.status, c.content_range, c.body);
    EXPECT_NE(piece.refused.find(c.why), std::string::npos)
        << c.content_range << " -> '" << piece.refused << "'";
  }
}

std::string random_bytes(std::size_t n) {
  std::mt19937 gen(7);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(gen());
  return out;
}

// A served wheel of about `payload` bytes (stored, incompressible) and the
// candidate that names it.
struct Served {
  test::TempDir www{"tail-www"};
  test::TempDir work{"tail-work"};
  std::string filename;
  std::unique_ptr<test::HttpServer> server;

  explicit Served(std::size_t payload, bool dist_info_first = false, const std::string& routes = "",
                  const std::string& metadata_version = "1.0") {
    fixture::WheelSpec spec;
    spec.files = {{"demo_pkg/_core.so", random_bytes(payload), true, false}};
    spec.dist_info_first = dist_info_first;
    spec.metadata_version = metadata_version;
    filename = fixture::build_wheel(www.path(), spec).filename().string();
    server = std::make_unique<test::HttpServer>(www.path(), routes);
  }
  resolve::Candidate pick() const {
    resolve::Candidate c;
    c.filename = filename;
    c.url = server->url("/" + filename);
    return c;
  }
  // The Range header of each GET of the wheel ("-" for none).
  std::vector<std::string> ranges() const {
    std::vector<std::string> out;
    for (const std::string& line : server->log()) {
      std::istringstream fields(line);
      std::string method, path, range;
      fields >> method >> path >> range;
      if (method == "GET" && path == "/" + filename) out.push_back(range);
    }
    return out;
  }
};

const std::vector<std::string> kDemoRequires = {"torch", "einops ; extra == \"x\""};

TEST(TailRequiresDist, ALargeWheelIsReadFromItsLast64KiB) {
  Served served(std::size_t{2} << 20);
  auto read = tail_requires_dist(served.pick(), served.work.path());
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_TRUE(read->requires_dist) << read->why_not;
  EXPECT_EQ(*read->requires_dist, kDemoRequires);
  EXPECT_EQ(read->fetched, kFirstTailBytes);
  EXPECT_EQ(served.ranges(), (std::vector<std::string>{"bytes=-65536"}));
  // The file the zip reader read is the wheel's size, its head a hole.
  struct stat st {};
  ASSERT_EQ(::stat((served.work.path() / served.filename).c_str(), &st), 0);
  EXPECT_GT(st.st_size, std::int64_t{2} << 20);
  EXPECT_LT(st.st_blocks * 512, std::int64_t{1} << 20);
}

TEST(TailRequiresDist, ASmallWheelComesWholeInOneRange) {
  Served served(1000);
  auto read = tail_requires_dist(served.pick(), served.work.path());
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_TRUE(read->requires_dist) << read->why_not;
  EXPECT_EQ(*read->requires_dist, kDemoRequires);
  EXPECT_LT(read->fetched, kFirstTailBytes);
  EXPECT_EQ(served.ranges().size(), 1u);
}

TEST(TailRequiresDist, DistInfoBeyondTheTailGivesWayToTheWholeDownload) {
  // Within the larger second read: found there.
  Served near(std::size_t{512} << 10, true);
  auto read = tail_requires_dist(near.pick(), near.work.path());
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_TRUE(read->requires_dist) << read->why_not;
  EXPECT_EQ(near.ranges().size(), 2u);
  EXPECT_EQ(near.ranges().back().rfind("bytes=0-", 0), 0u) << near.ranges().back();
  // Past it: nullopt and why, after the two reads.
  Served far(std::size_t{5} << 20, true);
  read = tail_requires_dist(far.pick(), far.work.path());
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_FALSE(read->requires_dist);
  EXPECT_NE(read->why_not.find("its dist-info is not readable from its last 4 MiB"),
            std::string::npos)
      << read->why_not;
  EXPECT_EQ(far.ranges().size(), 2u);
  EXPECT_EQ(read->fetched, kLastTailBytes);
}

TEST(TailRequiresDist, AServerWithoutRangesOrTheFileGivesWayToo) {
  // The fixture's file name (wheel_builder's default).
  Served ignoring(std::size_t{2} << 20, false,
                  R"({"/demo_pkg-1.0-cp312-cp312-linux_x86_64.whl": {"ignore_range": true}})");
  auto read = tail_requires_dist(ignoring.pick(), ignoring.work.path());
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_FALSE(read->requires_dist);
  EXPECT_NE(read->why_not.find("does not answer range requests (HTTP 200)"), std::string::npos)
      << read->why_not;
  EXPECT_EQ(read->fetched, 0u);

  resolve::Candidate missing = ignoring.pick();
  missing.url = ignoring.server->url("/gone-1.0-py3-none-any.whl");
  missing.filename = "gone-1.0-py3-none-any.whl";
  read = tail_requires_dist(missing, ignoring.work.path());
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_FALSE(read->requires_dist);
  EXPECT_NE(read->why_not.find("HTTP 404"), std::string::npos) << read->why_not;
}

// The second read names the first answer's validator (If-Range): while the
// file is the same it is a range; replaced in between, it comes whole and is
// refused, never spliced onto the first read's bytes.
TEST(TailRequiresDist, AFileReplacedBetweenTheReadsIsNotSpliced) {
  const std::string path = "/demo_pkg-1.0-cp312-cp312-linux_x86_64.whl";
  Served same(std::size_t{512} << 10, true,
              R"({")" + path + R"(": {"headers": {"ETag": "\"v1\""}}})");
  auto read = tail_requires_dist(same.pick(), same.work.path());
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_TRUE(read->requires_dist) << read->why_not;
  EXPECT_EQ(same.ranges().size(), 2u);
  // Only the first answer carries the ETag: the second's If-Range names a file no longer there.
  Served replaced(std::size_t{512} << 10, true,
                  R"({")" + path + R"(": {"headers": {"ETag": "\"v1\""}, "times": 1}})");
  read = tail_requires_dist(replaced.pick(), replaced.work.path());
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_FALSE(read->requires_dist);
  EXPECT_NE(read->why_not.find("its second range request was refused: its server does not answer "
                               "range requests (HTTP 200)"),
            std::string::npos)
      << read->why_not;
}

TEST(TailRequiresDist, MetadataOfAnotherVersionIsAnError) {
  Served served(std::size_t{256} << 10, false, "", "2.0");
  auto read = tail_requires_dist(served.pick(), served.work.path());
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("is for demo-pkg 2.0, not this wheel"), std::string::npos)
      << read.error().message;
}

// Real wheels as their projects built them (pip's and uv's from .pydeps, the
// CPU torch this machine's pip installs from): the tail gives the
// Requires-Dist the whole file gives. torch's 14,000-member central directory
// needs the second read; pip and uv the first (about 90 KiB) or the second.
TEST(TailRequiresDist, RealWheelsGiveWhatTheWholeFileGives) {
  const std::vector<std::filesystem::path> wheels = {
      std::filesystem::path(FLASHFIT_PYDEPS_DIR) / "tools/wheels/pip-26.2.1-py3-none-any.whl",
      std::filesystem::path(FLASHFIT_PYDEPS_DIR) /
          "tools/wheels/uv-0.13.9-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
      "/opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"};
  int read_here = 0;
  for (const auto& wheel : wheels) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(wheel, ec)) continue;
    auto whole = binary::open_wheel(wheel);
    ASSERT_TRUE(whole) << whole.error().message;
    test::HttpServer server(wheel.parent_path());
    test::TempDir work("tail-real");
    resolve::Candidate pick;
    pick.filename = wheel.filename().string();
    pick.url = server.url("/" + net::percent_encode(pick.filename));
    auto read = tail_requires_dist(pick, work.path());
    ASSERT_TRUE(read) << read.error().message;
    ASSERT_TRUE(read->requires_dist) << pick.filename << ": " << read->why_not;
    EXPECT_EQ(*read->requires_dist, whole->metadata().requires_dist) << pick.filename;
    EXPECT_LE(read->fetched, kLastTailBytes) << pick.filename;
    ++read_here;
  }
  if (read_here == 0) GTEST_SKIP() << "none of the real wheels is on this machine";
}

}  // namespace
}  // namespace flashfit::workflow
