#include "net/download.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <thread>

#include "../http_server.hpp"
#include "../temp_dir.hpp"
#include "util/interrupt.hpp"
#include "util/sha256.hpp"

namespace flashfit::net {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

void write(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Incompressible bytes, the same on every run.
std::string random_bytes(std::size_t size, unsigned seed) {
  std::mt19937 gen(seed);
  std::string out(size, '\0');
  for (char& c : out) c = static_cast<char>(gen() & 0xff);
  return out;
}

class DownloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    big_ = random_bytes(5'000'000, 1);
    small_ = "a small file\n";
    write(files_.path() / "big.bin", big_);
    write(files_.path() / "small.txt", small_);
    // After "times" a route is served plainly: these paths are files too.
    write(files_.path() / "drop-once", big_);
    for (const char* name : {"flaky", "busy", "timeout"}) write(files_.path() / name, small_);
    server_ = std::make_unique<test::HttpServer>(files_.path(), R"({
      "/drop-once": {"body_file": "big.bin", "drop_after": 1000000, "times": 1},
      "/drop-always": {"body_file": "big.bin", "drop_after": 1000},
      "/flaky": {"body_file": "small.txt", "status": 503, "times": 2},
      "/busy": {"body_file": "small.txt", "status": 429, "times": 1},
      "/timeout": {"body_file": "small.txt", "status": 408, "times": 1},
      "/always-500": {"status": 500, "body": "broken"},
      "/missing": {"status": 404, "body": "not here"},
      "/forbidden": {"status": 403},
      "/no-range": {"body_file": "big.bin", "ignore_range": true},
      "/empty": {"body": ""}
    })");
  }
  void TearDown() override { util::set_interrupted(false); }

  DownloadRequest request(const std::string& path, const std::string& name = "out.bin") const {
    DownloadRequest r;
    r.url = server_->url(path);
    r.destination = out_.path() / name;
    r.first_backoff = std::chrono::milliseconds(10);
    r.quiet = true;
    return r;
  }
  std::filesystem::path part(const std::string& name = "out.bin") const {
    return out_.path() / (name + ".part");
  }

  test::TempDir files_{"download-files"};
  test::TempDir out_{"download-out"};
  std::string big_, small_;
  std::unique_ptr<test::HttpServer> server_;
};

TEST_F(DownloadTest, DownloadsAndHashes) {
  DownloadRequest r = request("/small.txt");
  r.expected_sha256 = util::sha256_hex(small_);
  auto result = download_file(r);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->sha256, util::sha256_hex(small_));
  EXPECT_EQ(result->bytes, small_.size());
  EXPECT_EQ(result->attempts, 1);
  EXPECT_FALSE(result->resumed);
  EXPECT_EQ(read(r.destination), small_);
  EXPECT_FALSE(std::filesystem::exists(part()));
}

TEST_F(DownloadTest, ExpectedShaIsCaseInsensitive) {
  DownloadRequest r = request("/small.txt");
  std::string upper = util::sha256_hex(small_);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  r.expected_sha256 = upper;
  EXPECT_TRUE(download_file(r));
}

TEST_F(DownloadTest, ADroppedConnectionResumesWithARange) {
  DownloadRequest r = request("/drop-once");
  r.expected_sha256 = util::sha256_hex(big_);
  auto result = download_file(r);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->attempts, 2);
  EXPECT_TRUE(result->resumed);
  EXPECT_EQ(result->bytes, big_.size());
  EXPECT_EQ(result->sha256, util::sha256_hex(big_));
  EXPECT_EQ(read(r.destination), big_);
  const auto log = server_->log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0], "GET /drop-once -");
  EXPECT_EQ(log[1], "GET /drop-once bytes=1000000-");
  EXPECT_FALSE(std::filesystem::exists(part()));
}

TEST_F(DownloadTest, APartLeftBehindIsResumed) {
  write(part(), big_.substr(0, 1234));
  auto result = download_file(request("/big.bin"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(result->resumed);
  EXPECT_EQ(result->attempts, 1);
  EXPECT_EQ(result->sha256, util::sha256_hex(big_));
  EXPECT_EQ(server_->log(), std::vector<std::string>{"GET /big.bin bytes=1234-"});
}

TEST_F(DownloadTest, ACompletePartIsAcceptedOn416) {
  write(part(), big_);
  auto result = download_file(request("/big.bin"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(result->resumed);
  EXPECT_EQ(result->sha256, util::sha256_hex(big_));
  EXPECT_EQ(server_->log(), std::vector<std::string>{"GET /big.bin bytes=5000000-"});
}

TEST_F(DownloadTest, APartLongerThanTheFileRestarts) {
  write(part(), big_ + "trailing junk");
  auto result = download_file(request("/big.bin"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_FALSE(result->resumed);
  EXPECT_EQ(result->sha256, util::sha256_hex(big_));
  EXPECT_EQ(read(request("/big.bin").destination), big_);
  EXPECT_EQ(server_->log(),
            (std::vector<std::string>{"GET /big.bin bytes=5000013-", "GET /big.bin -"}));
}

TEST_F(DownloadTest, AServerIgnoringTheRangeRestartsFromZero) {
  write(part(), "this is not the start of big.bin");
  auto result = download_file(request("/no-range"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_FALSE(result->resumed);
  EXPECT_EQ(result->attempts, 1);
  EXPECT_EQ(result->sha256, util::sha256_hex(big_));
  EXPECT_EQ(read(request("/no-range").destination), big_);
}

TEST_F(DownloadTest, TransientStatusesAreRetried) {
  auto flaky = download_file(request("/flaky"));
  ASSERT_TRUE(flaky) << flaky.error().message;
  EXPECT_EQ(flaky->attempts, 3);
  EXPECT_EQ(server_->requests("/flaky"), 3);
  EXPECT_EQ(read(request("/flaky").destination), small_);

  auto busy = download_file(request("/busy", "busy"));
  ASSERT_TRUE(busy);
  EXPECT_EQ(busy->attempts, 2);
  auto timeout = download_file(request("/timeout", "timeout"));
  ASSERT_TRUE(timeout);
  EXPECT_EQ(timeout->attempts, 2);
}

TEST_F(DownloadTest, RetriesStopAtMaxAttempts) {
  DownloadRequest r = request("/always-500");
  r.max_attempts = 3;
  auto result = download_file(r);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, util::ErrorKind::failed);
  EXPECT_THAT(result.error().message, HasSubstr("HTTP 500"));
  EXPECT_THAT(result.error().message, HasSubstr("gave up after 3 attempts"));
  EXPECT_EQ(server_->requests("/always-500"), 3);
  EXPECT_FALSE(std::filesystem::exists(r.destination));
  EXPECT_FALSE(std::filesystem::exists(part()));
}

TEST_F(DownloadTest, AConnectionThatKeepsDroppingEnds) {
  DownloadRequest r = request("/drop-always");
  r.max_attempts = 2;
  auto result = download_file(r);
  ASSERT_FALSE(result);
  // Each attempt brings 1000 new bytes, so the budget renews; the hard cap
  // (4 x max_attempts requests) still ends it.
  EXPECT_EQ(server_->requests("/drop-always"), 8);
  EXPECT_THAT(result.error().message, HasSubstr("gave up after 8 attempts"));
  // What came is kept for a later resume.
  EXPECT_EQ(std::filesystem::file_size(part()), 8000u);
}

TEST_F(DownloadTest, ClientErrorsFailAtOnce) {
  auto missing = download_file(request("/missing"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, util::ErrorKind::failed);
  EXPECT_EQ(missing.error().message, "cannot download " + server_->url("/missing") + ": HTTP 404");
  EXPECT_THAT(missing.error().hint, HasSubstr("does not have this file"));
  EXPECT_EQ(server_->requests("/missing"), 1);
  EXPECT_FALSE(std::filesystem::exists(part()));
  EXPECT_FALSE(std::filesystem::exists(request("/missing").destination));

  auto forbidden = download_file(request("/forbidden"));
  ASSERT_FALSE(forbidden);
  EXPECT_THAT(forbidden.error().message, HasSubstr("HTTP 403"));
  EXPECT_EQ(server_->requests("/forbidden"), 1);
}

TEST_F(DownloadTest, AWrongShaIsRefusedAndNothingKept) {
  DownloadRequest r = request("/big.bin");
  r.expected_sha256 = std::string(64, 'a');
  auto result = download_file(r);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, util::ErrorKind::input);
  EXPECT_EQ(result.error().message, "sha256 mismatch: expected " + std::string(64, 'a') + ", got " +
                                        util::sha256_hex(big_));
  EXPECT_FALSE(std::filesystem::exists(r.destination));
  EXPECT_FALSE(std::filesystem::exists(part()));
}

TEST_F(DownloadTest, BodiesOverTheCapAreRefused) {
  DownloadRequest r = request("/big.bin");
  r.max_bytes = 4'999'999;
  auto result = download_file(r);
  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message, HasSubstr("larger than 4999999 bytes"));
  EXPECT_EQ(server_->requests("/big.bin"), 1);
  EXPECT_FALSE(std::filesystem::exists(part()));
  r.max_bytes = 5'000'000;
  EXPECT_TRUE(download_file(r));
}

TEST_F(DownloadTest, AnEmptyBodyIsAnEmptyFile) {
  auto result = download_file(request("/empty"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->bytes, 0u);
  EXPECT_EQ(result->sha256, util::sha256_hex(""));
  EXPECT_TRUE(std::filesystem::exists(request("/empty").destination));
}

TEST_F(DownloadTest, ARefusedConnectionIsRetriedThenReported) {
  DownloadRequest r = request("/small.txt");
  server_->stop();
  r.max_attempts = 2;
  auto result = download_file(r);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, util::ErrorKind::failed);
  EXPECT_THAT(result.error().message, HasSubstr("gave up after 2 attempts"));
  EXPECT_THAT(result.error().hint, HasSubstr("proxy"));
  EXPECT_FALSE(std::filesystem::exists(part()));
}

TEST_F(DownloadTest, CtrlCBeforeStartingAndDuringBackoff) {
  util::set_interrupted(true);
  auto before = download_file(request("/small.txt"));
  ASSERT_FALSE(before);
  EXPECT_EQ(before.error().kind, util::ErrorKind::interrupted);
  util::set_interrupted(false);

  // Without the interrupt this would back off for minutes.
  DownloadRequest r = request("/always-500");
  r.max_attempts = 100;
  r.first_backoff = std::chrono::seconds(8);
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    util::set_interrupted(true);
  });
  auto during = download_file(r);
  stopper.join();
  ASSERT_FALSE(during);
  EXPECT_EQ(during.error().kind, util::ErrorKind::interrupted);
  EXPECT_EQ(server_->requests("/always-500"), 1);
}

TEST_F(DownloadTest, ProgressReachesTheTotal) {
  DownloadRequest r = request("/drop-once");
  std::vector<DownloadProgress> seen;
  r.progress = [&](const DownloadProgress& p) { seen.push_back(p); };
  ASSERT_TRUE(download_file(r));
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().received, big_.size());
  ASSERT_TRUE(seen.back().total);
  EXPECT_EQ(*seen.back().total, big_.size());
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_LE(seen[i - 1].received, seen[i].received);
}

TEST_F(DownloadTest, LocalFilesAreCopiedAndHashed) {
  const auto source = files_.path() / "flash_attn-2.8.3+cu12-py3-none-any.whl";
  write(source, big_);
  DownloadRequest r;
  r.url = source.string();
  r.destination = out_.path() / "copy";
  r.expected_sha256 = util::sha256_hex(big_);
  auto copied = download_file(r);
  ASSERT_TRUE(copied) << copied.error().message;
  EXPECT_EQ(copied->sha256, util::sha256_hex(big_));
  EXPECT_EQ(read(r.destination), big_);
  EXPECT_FALSE(std::filesystem::exists(part("copy")));

  r.url = "file://" + files_.path().string() + "/flash_attn-2.8.3%2Bcu12-py3-none-any.whl";
  r.destination = out_.path() / "copy2";
  ASSERT_TRUE(download_file(r));

  r.url = "file://localhost" + source.string();
  r.destination = out_.path() / "copy3";
  ASSERT_TRUE(download_file(r));

  r.expected_sha256 = std::string(64, '0');
  r.destination = out_.path() / "copy4";
  auto wrong = download_file(r);
  ASSERT_FALSE(wrong);
  EXPECT_THAT(wrong.error().message, HasSubstr("sha256 mismatch"));
  EXPECT_FALSE(std::filesystem::exists(r.destination));
  EXPECT_FALSE(std::filesystem::exists(part("copy4")));
}

TEST_F(DownloadTest, BadLocalSourcesAreInputErrors) {
  DownloadRequest r;
  r.destination = out_.path() / "x";
  for (const std::string& url : {(files_.path() / "nope.whl").string(), files_.path().string(),
                                 std::string("file://otherhost/etc/passwd"), std::string("file://"),
                                 std::string("file:///a%00b")}) {
    r.url = url;
    auto result = download_file(r);
    ASSERT_FALSE(result) << url;
    EXPECT_EQ(result.error().kind, util::ErrorKind::input) << url;
    EXPECT_FALSE(std::filesystem::exists(r.destination));
  }
  r.url = (files_.path() / "big.bin").string();
  r.max_bytes = 10;
  auto large = download_file(r);
  ASSERT_FALSE(large);
  EXPECT_THAT(large.error().message, HasSubstr("larger than 10 bytes"));
}

}  // namespace
}  // namespace flashfit::net
