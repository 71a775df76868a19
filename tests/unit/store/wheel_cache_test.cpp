// WheelCache::fetch against a real local HTTP server: the layout, the URL
// index, resume, retries, refusals, a killed fetch and two processes
// fetching one URL at once.
#include <gmock/gmock.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "cache_fixture.hpp"
#include "util/atomic_file.hpp"

namespace flashfit::store::test {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST_F(CacheTest, FetchStoresAnEntryByShaAndIndexesTheUrl) {
  const std::string sha = util::sha256_hex(wheel_);
  auto entry = cache_->fetch(url(""), sha, EntryOrigin::fetched_from("upstream"), options());
  ASSERT_TRUE(entry) << entry.error().message;
  EXPECT_EQ(entry->sha256, sha);
  EXPECT_EQ(entry->filename, kWheel);
  EXPECT_EQ(entry->package, "flash-attn");
  EXPECT_EQ(entry->version, "2.8.3+cu12torch2.8cxx11abitrue");
  EXPECT_EQ(entry->origin, EntryOrigin::fetched_from("upstream"));
  EXPECT_EQ(entry->size, wheel_.size());
  EXPECT_EQ(entry->urls, std::vector<std::string>{url("")});
  EXPECT_EQ(entry->record.torch, pkg::Version::parse("2.8").value());
  EXPECT_EQ(to_string(entry->record.cuda.value()), "12.x");
  EXPECT_EQ(entry->record.cxx11_abi, true);
  EXPECT_EQ(entry->record.python, "cp312");
  EXPECT_EQ(entry->record.platform, "linux_x86_64");
  EXPECT_FALSE(entry->added_at.empty());
  EXPECT_EQ(entry->path, cache_->root() / sha.substr(0, 2) / sha / kWheel);
  EXPECT_EQ(read(entry->path), wheel_);
  EXPECT_TRUE(std::filesystem::exists(entry->path.parent_path() / "entry.json"));
  EXPECT_EQ(read(cache_->root() / "urls" / util::sha256_hex(url(""))), sha + "\n");
  EXPECT_THAT(tmp_files(), IsEmpty());
  EXPECT_TRUE(std::filesystem::exists(root_.path() / "CACHEDIR.TAG"));

  // Again, by URL: no download (and no hashing); the entry comes back.
  auto again =
      cache_->fetch(url(""), std::nullopt, EntryOrigin::fetched_from("upstream"), options());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->sha256, sha);
  EXPECT_EQ(server_->requests("/" + std::string(kWheel)), 1);
  // The fragment is not part of the key.
  ASSERT_TRUE(cache_->fetch(url("") + "#sha256=" + sha, std::nullopt,
                            EntryOrigin::fetched_from("upstream"), options()));
  EXPECT_EQ(server_->requests("/" + std::string(kWheel)), 1);

  ASSERT_EQ(cache_->list().size(), 1u);
  auto found = cache_->find_sha256(sha);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->filename, kWheel);
  EXPECT_FALSE(cache_->find_sha256(std::string(64, 'f')));
  EXPECT_FALSE(cache_->find_sha256("../../etc"));
}

TEST_F(CacheTest, KnownBytesUnderAnotherUrlAreNotDownloadedAgain) {
  const std::string sha = util::sha256_hex(wheel_);
  ASSERT_TRUE(cache_->add(files_.path() / kWheel, EntryOrigin::added()));
  auto entry = cache_->fetch(url("elsewhere"), sha, EntryOrigin::fetched_from("index"), options());
  ASSERT_TRUE(entry) << entry.error().message;
  EXPECT_EQ(entry->sha256, sha);
  EXPECT_THAT(server_->log(), IsEmpty());
  EXPECT_EQ(entry->urls, std::vector<std::string>{url("elsewhere")});
  // Now the URL alone finds it.
  ASSERT_TRUE(
      cache_->fetch(url("elsewhere"), std::nullopt, EntryOrigin::fetched_from("index"), options()));
  EXPECT_THAT(server_->log(), IsEmpty());
}

TEST_F(CacheTest, ADroppedDownloadResumes) {
  auto entry = cache_->fetch(url("drop"), util::sha256_hex(big_),
                             EntryOrigin::fetched_from("index"), options());
  ASSERT_TRUE(entry) << entry.error().message;
  EXPECT_EQ(read(entry->path), big_);
  const std::string path = "/drop/" + std::string(kWheel);
  EXPECT_EQ(server_->log(),
            (std::vector<std::string>{"GET " + path + " -", "GET " + path + " bytes=1000000-"}));
  EXPECT_THAT(tmp_files(), IsEmpty());
}

TEST_F(CacheTest, ServerErrorsAreRetried) {
  auto entry =
      cache_->fetch(url("flaky"), std::nullopt, EntryOrigin::fetched_from("index"), options());
  ASSERT_TRUE(entry) << entry.error().message;
  EXPECT_EQ(server_->requests("/flaky/" + std::string(kWheel)), 3);
}

TEST_F(CacheTest, NotFoundFailsAtOnceAndStoresNothing) {
  auto entry =
      cache_->fetch(url("gone"), std::nullopt, EntryOrigin::fetched_from("index"), options());
  ASSERT_FALSE(entry);
  EXPECT_EQ(entry.error().kind, util::ErrorKind::failed);
  EXPECT_THAT(entry.error().message, HasSubstr("HTTP 404"));
  EXPECT_THAT(entry.error().message, HasSubstr(url("gone")));
  EXPECT_EQ(server_->requests("/gone/" + std::string(kWheel)), 1);
  EXPECT_THAT(cache_->list(), IsEmpty());
  EXPECT_THAT(tmp_files(), IsEmpty());
}

TEST_F(CacheTest, AWrongShaIsRefusedAndLeavesNothing) {
  const std::string wrong(64, 'b');
  auto entry = cache_->fetch(url(""), wrong, EntryOrigin::fetched_from("index"), options());
  ASSERT_FALSE(entry);
  EXPECT_EQ(entry.error().kind, util::ErrorKind::input);
  EXPECT_EQ(entry.error().message,
            "sha256 mismatch: expected " + wrong + ", got " + util::sha256_hex(wheel_));
  EXPECT_THAT(cache_->list(), IsEmpty());
  EXPECT_THAT(tmp_files(), IsEmpty());
  EXPECT_FALSE(std::filesystem::exists(cache_->root() / "urls" / util::sha256_hex(url(""))));
  EXPECT_FALSE(cache_->find_sha256(util::sha256_hex(wheel_)));

  auto bad = cache_->fetch(url(""), "not-a-sha", EntryOrigin::fetched_from("index"), options());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, util::ErrorKind::input);
}

TEST_F(CacheTest, AnHtmlPageIsNotAWheel) {
  auto entry =
      cache_->fetch(url("html"), std::nullopt, EntryOrigin::fetched_from("index"), options());
  ASSERT_FALSE(entry);
  EXPECT_EQ(entry.error().kind, util::ErrorKind::input);
  EXPECT_THAT(entry.error().message, HasSubstr("not a zip archive"));
  EXPECT_THAT(cache_->list(), IsEmpty());
  EXPECT_THAT(tmp_files(), IsEmpty());
}

TEST_F(CacheTest, HostileAndNonWheelNamesAreRefusedBeforeAnyRequest) {
  for (const std::string name :
       {"..", "%2E%2E", "..%2F..%2Fevil-1.0-py3-none-any.whl", "evil%00-1.0-py3-none-any.whl",
        "evil%0A-1.0-py3-none-any.whl", "demo-1.0.tar.gz", "", "demo.whl",
        "demo-1.0-py3-none-any.WHL.exe", "%C3%A9vil-1.0-py3-none-any.whl"}) {
    auto entry = cache_->fetch(server_->url("/d/" + name), std::nullopt,
                               EntryOrigin::fetched_from("index"), options());
    ASSERT_FALSE(entry) << name;
    EXPECT_EQ(entry.error().kind, util::ErrorKind::input) << name;
    EXPECT_EQ(entry.error().message.find('\n'), std::string::npos) << name;
  }
  for (const std::string bad :
       {"ftp://host/demo-1.0-py3-none-any.whl", "relative/demo-1.0-py3-none-any.whl"}) {
    EXPECT_FALSE(cache_->fetch(bad, std::nullopt, EntryOrigin::fetched_from("index"), options()))
        << bad;
  }
  EXPECT_THAT(server_->log(), IsEmpty());
  EXPECT_THAT(cache_->list(), IsEmpty());

  write(files_.path() / "notes.txt", "x");
  write(files_.path() / "bad\x01name-1.0-py3-none-any.whl", other_);
  for (const char* file : {"notes.txt", "bad\x01name-1.0-py3-none-any.whl"}) {
    auto added = cache_->add(files_.path() / file, EntryOrigin::added());
    ASSERT_FALSE(added) << file;
    EXPECT_EQ(added.error().kind, util::ErrorKind::input);
  }
  auto missing = cache_->add(files_.path() / "missing-1.0-py3-none-any.whl", EntryOrigin::added());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, util::ErrorKind::input);
  EXPECT_THAT(cache_->list(), IsEmpty());
  EXPECT_THAT(tmp_files(), IsEmpty());
}

TEST_F(CacheTest, AddCopiesALocalWheelOnce) {
  auto first = cache_->add(files_.path() / kOtherWheel, EntryOrigin::built());
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->package, "demo-pkg");
  EXPECT_EQ(first->version, "1.0");
  EXPECT_EQ(first->origin, EntryOrigin::built());
  EXPECT_FALSE(first->record.torch);
  EXPECT_FALSE(first->record.cxx11_abi);
  EXPECT_EQ(first->record.python, "py3");
  EXPECT_EQ(first->record.platform, "any");
  EXPECT_EQ(read(first->path), other_);
  auto second = cache_->add(files_.path() / kOtherWheel, EntryOrigin::added());
  ASSERT_TRUE(second);
  EXPECT_EQ(second->sha256, first->sha256);
  EXPECT_EQ(second->origin, EntryOrigin::built());  // the first word stays
  EXPECT_EQ(cache_->list().size(), 1u);
  EXPECT_THAT(tmp_files(), IsEmpty());
  // A local file fetched by URL is the same entry.
  auto by_url = cache_->fetch("file://" + (files_.path() / kOtherWheel).string(), std::nullopt,
                              EntryOrigin::fetched_from("index"), options());
  ASSERT_TRUE(by_url) << by_url.error().message;
  EXPECT_EQ(by_url->sha256, first->sha256);
  EXPECT_EQ(cache_->list().size(), 1u);
}

// A child process that fetches `url` and exits 0 when it got `sha`.
pid_t fork_fetch(const std::filesystem::path& cache_root, const std::string& url,
                 const std::string& sha, std::chrono::milliseconds backoff) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  auto cache = WheelCache::open(cache_root);
  net::DownloadRequest o;
  o.quiet = true;
  o.first_backoff = backoff;
  auto entry = cache ? cache->fetch(url, std::nullopt, EntryOrigin::fetched_from("index"), o)
                     : util::Result<CacheEntry>(tl::unexpect, util::Error{});
  ::_exit(entry && entry->sha256 == sha ? 0 : 1);
}

int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(CacheTest, AKilledFetchLeavesNoEntryAndTheNextResumes) {
  const std::string u = url("killed");
  const std::string sha = util::sha256_hex(big_);
  // The child gets 1,000,000 bytes, then the connection drops and it backs
  // off for a minute: killed there, mid-download.
  const pid_t child = fork_fetch(root_.path(), u, sha, std::chrono::seconds(60));
  ASSERT_GT(child, 0);
  const auto part = cache_->root() / "tmp" / (util::sha256_hex(u) + ".download.part");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::error_code ec;
  while (std::filesystem::file_size(part, ec) != 1'000'000 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(child, SIGKILL);
  EXPECT_EQ(wait_exit(child), 128 + SIGKILL);
  ASSERT_EQ(std::filesystem::file_size(part, ec), 1'000'000u);
  EXPECT_THAT(cache_->list(), IsEmpty());
  EXPECT_FALSE(cache_->find_sha256(sha));

  auto entry = cache_->fetch(u, sha, EntryOrigin::fetched_from("index"), options());
  ASSERT_TRUE(entry) << entry.error().message;
  EXPECT_EQ(read(entry->path), big_);
  const std::string path = "/killed/" + std::string(kWheel);
  EXPECT_EQ(server_->log(),
            (std::vector<std::string>{"GET " + path + " -", "GET " + path + " bytes=1000000-"}));
  EXPECT_THAT(tmp_files(), IsEmpty());
}

TEST_F(CacheTest, TwoProcessesFetchingOneUrlDownloadOnce) {
  const std::string u = url("slow");  // answers after 1 s, so the fetches overlap
  const std::string sha = util::sha256_hex(big_);
  const pid_t a = fork_fetch(root_.path(), u, sha, std::chrono::milliseconds(10));
  const pid_t b = fork_fetch(root_.path(), u, sha, std::chrono::milliseconds(10));
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  EXPECT_EQ(wait_exit(a), 0);
  EXPECT_EQ(wait_exit(b), 0);
  EXPECT_EQ(server_->requests("/slow/" + std::string(kWheel)), 1);
  const auto entries = cache_->list();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].sha256, sha);
  EXPECT_THAT(tmp_files(), IsEmpty());
}

TEST_F(CacheTest, ThreadsFetchingOneUrlDownloadOnce) {
  const std::string u = url("slow");
  std::vector<util::Result<CacheEntry>> results(
      3, util::Result<CacheEntry>(tl::unexpect, util::Error{}));
  std::vector<std::thread> threads;
  for (auto& result : results) {
    threads.emplace_back([&] {
      result = cache_->fetch(u, std::nullopt, EntryOrigin::fetched_from("index"), options());
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& result : results) {
    ASSERT_TRUE(result);
    EXPECT_EQ(result->sha256, util::sha256_hex(big_));
  }
  EXPECT_EQ(server_->requests("/slow/" + std::string(kWheel)), 1);
}

TEST_F(CacheTest, AnIndexPointingAtAGarbledEntryIsRepaired) {
  const std::string sha = util::sha256_hex(wheel_);
  ASSERT_TRUE(cache_->fetch(url(""), std::nullopt, EntryOrigin::fetched_from("index"), options()));
  util::write_file_atomic(cache_->root() / sha.substr(0, 2) / sha / "entry.json", "{garbage");
  EXPECT_FALSE(cache_->find_sha256(sha));
  auto entry = cache_->fetch(url(""), std::nullopt, EntryOrigin::fetched_from("index"), options());
  ASSERT_TRUE(entry) << entry.error().message;
  EXPECT_EQ(entry->sha256, sha);
  EXPECT_EQ(server_->requests("/" + std::string(kWheel)), 2);
  EXPECT_TRUE(cache_->find_sha256(sha));
  EXPECT_THAT(tmp_files(), IsEmpty());
}

}  // namespace
}  // namespace flashfit::store::test
