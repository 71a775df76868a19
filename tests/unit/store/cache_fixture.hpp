#pragma once
// Shared by the store tests: a cache in a temp dir, a local HTTP server with
// "wheels" (zip magic + deterministic bytes; the cache checks only the magic
// and the name), and helpers to look at the layout.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <random>

#include "../http_server.hpp"
#include "../temp_dir.hpp"
#include "store/wheel_cache.hpp"
#include "util/sha256.hpp"

namespace flashfit::store::test {

inline void write(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

inline std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// "PK\3\4" and then `size - 4` deterministic bytes.
inline std::string fake_wheel(std::size_t size, unsigned seed) {
  std::mt19937 gen(seed);
  std::string out = "PK\x03\x04";
  out.resize(std::max<std::size_t>(size, 4));
  for (std::size_t i = 4; i < out.size(); ++i) out[i] = static_cast<char>(gen() & 0xff);
  return out;
}

inline constexpr const char* kWheel =
    "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl";
inline constexpr const char* kOtherWheel = "demo_pkg-1.0-py3-none-any.whl";

class CacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    wheel_ = fake_wheel(200'000, 1);
    big_ = fake_wheel(5'000'000, 2);
    other_ = fake_wheel(1000, 3);
    write(files_.path() / kWheel, wheel_);
    write(files_.path() / kOtherWheel, other_);
    for (const char* dir : {"drop", "flaky", "slow", "killed"})
      write(files_.path() / dir / kWheel, big_);
    write(files_.path() / "html" / kWheel, "<html>please log in</html>");
    const std::string w = std::string("/") + kWheel;
    server_ = std::make_unique<flashfit::test::HttpServer>(files_.path(), R"({
      "/drop)" + w + R"(": {"drop_after": 1000000, "times": 1},
      "/flaky)" + w + R"(": {"status": 503, "times": 2},
      "/slow)" + w + R"(": {"delay": 1.0},
      "/killed)" + w + R"(": {"drop_after": 1000000, "times": 1},
      "/gone)" + w + R"(": {"status": 404}
    })");
    auto cache = WheelCache::open(root_.path());
    ASSERT_TRUE(cache) << cache.error().message;
    cache_ = std::make_unique<WheelCache>(std::move(*cache));
  }

  std::string url(const std::string& dir, const std::string& file = kWheel) const {
    return server_->url((dir.empty() ? "" : "/" + dir) + "/" + file);
  }
  net::DownloadRequest options() const {
    net::DownloadRequest o;
    o.quiet = true;
    o.first_backoff = std::chrono::milliseconds(10);
    return o;
  }
  // Files left in wheels/tmp/ (downloads, parts, temp entries).
  std::vector<std::string> tmp_files() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(cache_->root() / "tmp")) {
      out.push_back(e.path().filename().string());
    }
    return out;
  }

  flashfit::test::TempDir files_{"cache-files"};
  flashfit::test::TempDir root_{"cache-root"};
  std::string wheel_, big_, other_;
  std::unique_ptr<flashfit::test::HttpServer> server_;
  std::unique_ptr<WheelCache> cache_;
};

}  // namespace flashfit::store::test
