#include "net/http.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "../http_server.hpp"
#include "../temp_dir.hpp"
#include "util/build_info.hpp"
#include "util/interrupt.hpp"

namespace flashfit::net {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

void write(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

// 200,000 zero bytes, gzip-compressed to 229: a body whose Content-Length is
// small and whose decoded size is not.
std::string gzip_of_zeros() {
  const unsigned char head[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
                                0x03, 0xed, 0xc1, 0x31, 0x01, 0x00, 0x00, 0x00, 0xc2,
                                0xa0, 0xf5, 0x4f, 0x6d, 0x06, 0x7f, 0xa0};
  const unsigned char tail[] = {0x80, 0xd7, 0x00, 0x7b, 0x58, 0xe0, 0x5c, 0x40, 0x0d, 0x03, 0x00};
  std::string out(reinterpret_cast<const char*>(head), sizeof head);
  out.append(193, '\0');
  out.append(reinterpret_cast<const char*>(tail), sizeof tail);
  return out;
}

class HttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write(root_.path() / "hello.txt", "hello, world\n");
    write(root_.path() / "dir" / "page.html", "<a href='x'>x</a>");
    write(root_.path() / "big.bin", std::string(5000, 'b'));
    write(root_.path() / "zeros.gz", gzip_of_zeros());
    server_ = std::make_unique<test::HttpServer>(root_.path(), R"({
      "/missing": {"status": 404},
      "/boom": {"status": 500, "body": "it broke"},
      "/typed": {"body": "x", "content_type": "Text/HTML; Charset=UTF-8",
                 "headers": {"X-Custom-Thing": "some value", "Link": "<a>; rel=next"}},
      "/hop1": {"redirect": "/hop2", "headers": {"X-Hop": "1"}},
      "/hop2": {"redirect": "/dir/page.html", "status": 301},
      "/loop": {"redirect": "/loop"},
      "/to-file": {"redirect": "file:///etc/passwd"},
      "/drop": {"body_file": "big.bin", "drop_after": 100},
      "/slow": {"delay": 30, "body": "late"},
      "/echo": {"echo_headers": true},
      "/bomb": {"body_file": "zeros.gz", "headers": {"Content-Encoding": "gzip"}},
      "/no-range": {"body_file": "big.bin", "ignore_range": true},
      "/long-206": {"status": 206, "body_file": "big.bin",
                    "headers": {"Content-Range": "bytes 0-4999/5000"}},
      "/hop-to-big": {"redirect": "/big.bin"}
    })");
  }
  void TearDown() override { util::set_interrupted(false); }

  HttpRequest get(const std::string& path) const {
    HttpRequest request;
    request.url = server_->url(path);
    return request;
  }

  test::TempDir root_{"http"};
  std::unique_ptr<test::HttpServer> server_;
};

TEST_F(HttpTest, FetchesAFile) {
  auto response = http_get(get("/hello.txt"));
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "hello, world\n");
  EXPECT_EQ(response->content_type, "text/plain");
  EXPECT_EQ(response->effective_url, server_->url("/hello.txt"));
  EXPECT_EQ(response->header("content-length"), "13");
  EXPECT_EQ(response->header("no-such-header"), "");
  EXPECT_EQ(server_->requests("/hello.txt"), 1);
}

// A range asked: the bytes and their Content-Range, through a redirect too;
// a server that ignores it answers its status with no body (the whole file
// is not read into memory, nor is its size an error); bad ranges are answers.
TEST_F(HttpTest, ARangeIsAnsweredWithItsBytesOrItsStatusAlone) {
  HttpRequest request = get("/big.bin");
  request.range = "-100";
  request.max_bytes = 100;
  auto response = http_get(request);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 206);
  EXPECT_EQ(response->body, std::string(100, 'b'));
  EXPECT_EQ(response->header("content-range"), "bytes 4900-4999/5000");
  request = get("/hop-to-big");
  request.range = "10-19";
  response = http_get(request);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 206);
  EXPECT_EQ(response->header("content-range"), "bytes 10-19/5000");
  EXPECT_EQ(response->body.size(), 10u);

  request = get("/no-range");
  request.range = "-100";
  request.max_bytes = 100;  // the whole 5000 bytes would be "too large"
  response = http_get(request);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "");
  // Past the end: 416, an answer.
  request = get("/big.bin");
  request.range = "6000-6099";
  response = http_get(request);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 416);
  // A 206 longer than the cap is an error, as any body past it is.
  request = get("/long-206");
  request.range = "-100";
  request.max_bytes = 100;
  response = http_get(request);
  ASSERT_FALSE(response);
  EXPECT_THAT(response.error().message, HasSubstr("larger than 100 bytes"));
  // Without a range, the cap still holds.
  request = get("/big.bin");
  request.max_bytes = 100;
  EXPECT_FALSE(http_get(request));
}

TEST_F(HttpTest, HttpErrorsAreResponses) {
  auto missing = http_get(get("/missing"));
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  auto boom = http_get(get("/boom"));
  ASSERT_TRUE(boom);
  EXPECT_EQ(boom->status, 500);
  EXPECT_EQ(boom->body, "it broke");
  auto nothing = http_get(get("/no/such/file"));
  ASSERT_TRUE(nothing);
  EXPECT_EQ(nothing->status, 404);
}

TEST_F(HttpTest, ContentTypeAndHeaderNamesAreNormalised) {
  auto response = http_get(get("/typed"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->content_type, "text/html");
  EXPECT_EQ(response->header("x-custom-thing"), "some value");
  EXPECT_EQ(response->header("link"), "<a>; rel=next");
}

TEST_F(HttpTest, SendsHeadersAndUserAgent) {
  HttpRequest request = get("/echo");
  request.headers = {"Accept: application/vnd.github+json", "Authorization: Bearer abc"};
  auto response = http_get(request);
  ASSERT_TRUE(response);
  const auto sent = nlohmann::json::parse(response->body);
  EXPECT_EQ(sent.value("accept", ""), "application/vnd.github+json");
  EXPECT_EQ(sent.value("authorization", ""), "Bearer abc");
  EXPECT_EQ(sent.value("user-agent", ""), std::string("flashfit/") + util::kVersion);
}

TEST_F(HttpTest, FollowsRedirectsKeepingTheLastHeaders) {
  auto response = http_get(get("/hop1"));
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "<a href='x'>x</a>");
  EXPECT_EQ(response->effective_url, server_->url("/dir/page.html"));
  EXPECT_EQ(response->content_type, "text/html");
  EXPECT_EQ(response->header("x-hop"), "");     // the first redirect's
  EXPECT_EQ(response->header("location"), "");  // the redirects'
  EXPECT_EQ(server_->requests("/hop2"), 1);
}

TEST_F(HttpTest, RedirectLoopsAndLimitsAreErrors) {
  HttpRequest request = get("/loop");
  request.max_redirects = 3;
  auto response = http_get(request);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, util::ErrorKind::failed);
  EXPECT_THAT(response.error().message, HasSubstr("cannot fetch " + server_->url("/loop")));
  EXPECT_EQ(server_->requests("/loop"), 4);

  request = get("/hop1");
  request.max_redirects = 0;
  EXPECT_FALSE(http_get(request));
}

TEST_F(HttpTest, OnlyHttpAndHttpsAreSpoken) {
  auto redirected = http_get(get("/to-file"));
  ASSERT_FALSE(redirected);
  EXPECT_THAT(redirected.error().message, HasSubstr("cannot fetch"));

  HttpRequest request;
  request.url = "file:///etc/passwd";
  auto local = http_get(request);
  ASSERT_FALSE(local);
  EXPECT_THAT(local.error().message, HasSubstr("cannot fetch file:///etc/passwd"));
  EXPECT_FALSE(local.error().hint.empty());
}

TEST_F(HttpTest, BodiesOverTheLimitAreErrors) {
  HttpRequest request = get("/big.bin");
  request.max_bytes = 4999;  // Content-Length says 5000: refused before the body
  auto declared = http_get(request);
  ASSERT_FALSE(declared);
  EXPECT_THAT(declared.error().message, HasSubstr("response larger than 4999 bytes"));

  request.max_bytes = 5000;
  EXPECT_TRUE(http_get(request));

  // 229 bytes on the wire, 200,000 decoded: caught while writing.
  request = get("/bomb");
  request.max_bytes = 10000;
  auto bomb = http_get(request);
  ASSERT_FALSE(bomb);
  EXPECT_THAT(bomb.error().message, HasSubstr("response larger than 10000 bytes"));
  request.max_bytes = 200000;
  auto decoded = http_get(request);
  ASSERT_TRUE(decoded) << decoded.error().message;
  EXPECT_EQ(decoded->body, std::string(200000, '\0'));
}

TEST_F(HttpTest, ADroppedConnectionIsAnError) {
  auto response = http_get(get("/drop"));
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, util::ErrorKind::failed);
  EXPECT_THAT(response.error().message, HasSubstr("cannot fetch " + server_->url("/drop") + ": "));
}

TEST_F(HttpTest, ARefusedConnectionIsAnError) {
  const std::string url = server_->url("/hello.txt");
  server_->stop();
  HttpRequest request;
  request.url = url;
  auto response = http_get(request);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, util::ErrorKind::failed);
  EXPECT_THAT(response.error().message, HasSubstr("cannot fetch " + url + ": "));
  EXPECT_THAT(response.error().hint, HasSubstr("proxy"));
}

TEST_F(HttpTest, CredentialsInTheUrlAreNotShown) {
  const std::string url = server_->url("/hello.txt");
  server_->stop();
  HttpRequest request;
  request.url = "http://user:secret@" + url.substr(7);
  auto response = http_get(request);
  ASSERT_FALSE(response);
  EXPECT_THAT(response.error().message, Not(HasSubstr("secret")));
  EXPECT_THAT(response.error().message, HasSubstr("http://***@127.0.0.1"));
}

TEST_F(HttpTest, TimesOut) {
  HttpRequest request = get("/slow");
  request.total_timeout = std::chrono::seconds(1);
  auto response = http_get(request);  // the server answers after 30 s: an error, not "late"
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, util::ErrorKind::failed);
  EXPECT_THAT(response.error().message, HasSubstr("cannot fetch " + server_->url("/slow")));
}

TEST_F(HttpTest, StallsAreErrors) {
  HttpRequest request = get("/slow");
  request.stall_timeout = std::chrono::seconds(1);
  auto response = http_get(request);  // nothing for 30 s: a stall, long before the total timeout
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, util::ErrorKind::failed);
  EXPECT_THAT(response.error().message, HasSubstr("cannot fetch " + server_->url("/slow")));
}

TEST_F(HttpTest, CtrlCStopsATransfer) {
  util::set_interrupted(true);
  auto before = http_get(get("/hello.txt"));
  ASSERT_FALSE(before);
  EXPECT_EQ(before.error().kind, util::ErrorKind::interrupted);
  util::set_interrupted(false);

  std::thread press([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    util::set_interrupted(true);
  });
  auto during = http_get(get("/slow"));  // within about a second, not after 30 s
  press.join();
  ASSERT_FALSE(during);
  EXPECT_EQ(during.error().kind, util::ErrorKind::interrupted);
}

// The RFC 3986 §5.4 examples are in resolve_url_test.cpp.
TEST(ResolveUrl, PytorchIndexLinks) {
  const std::string page = "https://download.pytorch.org/whl/cu128/flash-attn/";
  EXPECT_EQ(resolve_url(page, "flash_attn-2.8.3%2Bcu128-cp312-cp312-linux_x86_64.whl#sha256=ab"),
            "https://download.pytorch.org/whl/cu128/flash-attn/"
            "flash_attn-2.8.3%2Bcu128-cp312-cp312-linux_x86_64.whl#sha256=ab");
  EXPECT_EQ(resolve_url(page, "../../files/x.whl"), "https://download.pytorch.org/whl/files/x.whl");
  EXPECT_EQ(resolve_url(page, "  /simple/x/  "), "https://download.pytorch.org/simple/x/");
  EXPECT_EQ(resolve_url(page, "//files.example.org/a/b.whl"), "https://files.example.org/a/b.whl");
  EXPECT_EQ(resolve_url("https://h", "x.whl"), "https://h/x.whl");  // empty base path
  EXPECT_EQ(resolve_url("https://h/a/b#frag", "?q"), "https://h/a/b?q");
  EXPECT_EQ(resolve_url("https://h/a/", "HTTPS://other/x"), "HTTPS://other/x");
  EXPECT_EQ(resolve_url("https://h/a/", "./1:2.whl"), "https://h/a/1:2.whl");  // not a scheme
}

TEST(ResolveUrl, HostileBasesAndReferences) {
  EXPECT_EQ(resolve_url("", ""), "");
  EXPECT_EQ(resolve_url("", "../../.."), "");
  EXPECT_EQ(resolve_url("http://a", std::string(100000, '/')), "http:" + std::string(100000, '/'));
  const std::string dots = [] {
    std::string s;
    for (int i = 0; i < 20000; ++i) s += "../";
    return s;
  }();
  EXPECT_EQ(resolve_url("http://a/b/c", dots + "x"), "http://a/x");
  EXPECT_EQ(resolve_url("http://a/b/c", std::string("x\0y", 3)),
            std::string("http://a/b/x\0y", 14));
  EXPECT_EQ(resolve_url("::::", "::"), "::");
}

TEST(PercentDecode, WheelNamesAndBrokenEscapes) {
  EXPECT_EQ(
      percent_decode("flash_attn-2.8.3%2Bcu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl"),
      "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl");
  EXPECT_EQ(percent_decode("%2b%2B%41"), "++A");
  EXPECT_EQ(percent_decode("a+b"), "a+b");  // a path, not a form
  EXPECT_EQ(percent_decode("100%"), "100%");
  EXPECT_EQ(percent_decode("%4"), "%4");
  EXPECT_EQ(percent_decode("%zz%4g%"), "%zz%4g%");
  EXPECT_EQ(percent_decode("%%41"), "%A");
  EXPECT_EQ(percent_decode("%00"), std::string(1, '\0'));
  EXPECT_EQ(percent_decode(""), "");
}

}  // namespace
}  // namespace flashfit::net
