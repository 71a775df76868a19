// The pick's URL is confirmed with a HEAD against a real HTTP server on
// 127.0.0.1 (tests/fixtures/http_server.py): a 404 falls back to the next
// candidate, answers are kept in the cache and not asked again, --offline
// asks nothing, and an unreachable server leaves the pick, unconfirmed, said so.
#include "resolve/url_check.hpp"

#include <gtest/gtest.h>

#include <ctime>
#include <fstream>

#include "../http_server.hpp"
#include "../temp_dir.hpp"
#include "targets.hpp"
#include "util/utc_time.hpp"

namespace flashfit::resolve {
namespace {

const std::string kMissing =
    "flash_attn-9.9.9+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl";
const std::string kPresent =
    "flash_attn-9.9.8+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl";

class UrlCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(files_.path() / "dl");
    std::ofstream(files_.path() / "dl" / kPresent) << "not really a wheel";
  }

  std::vector<Candidate> candidates(const std::string& base) const {
    std::vector<Candidate> out;
    for (const std::string& name : {kMissing, kPresent}) {
      Candidate c;
      c.filename = name;
      c.url = base + "/dl/" + name;
      c.source = "upstream";
      c.role = SourceRole::upstream;
      c.evidence = "workflow-matrix";
      c.release_tag = "v" + name.substr(11, 5);
      out.push_back(c);
    }
    return out;
  }

  Resolution run(const std::string& base, UrlCheckStore& store, bool network) {
    const Recipe* recipe = book_.find("flash-attn");
    ResolveOptions options;
    options.suggest = false;
    auto target = testing::make_target({});
    Resolution r =
        resolve(Request{"flash-attn", {}, "flash-attn"}, recipe, target, candidates(base), options);
    confirm_pick(r, recipe, target, options, store, ConfirmOptions{network});
    return r;
  }

  static int heads(const test::HttpServer& server) {
    int count = 0;
    for (const std::string& line : server.log()) count += line.rfind("HEAD ", 0) == 0;
    return count;
  }

  static std::string pick(const Resolution& r) {
    return r.selected ? r.candidates[*r.selected].candidate->filename : "(none)";
  }

  static std::string notes(const Resolution& r) {
    std::string out;
    for (const std::string& n : r.candidates[*r.selected].notes) out += n + "\n";
    return out;
  }

  RecipeBook book_ = RecipeBook::built_in();
  test::TempDir files_{"url-check-files"};
  test::TempDir cache_{"url-check-cache"};
};

TEST_F(UrlCheckTest, A404FallsBackToTheNextCandidateAndIsRemembered) {
  test::HttpServer server(files_.path());
  UrlCheckStore store(cache_.path());
  Resolution r = run(server.url(), store, true);
  EXPECT_EQ(pick(r), kPresent);
  EXPECT_EQ(heads(server), 2);
  const Judged* missing = nullptr;
  for (const Judged& j : r.candidates) {
    if (j.candidate->filename == kMissing) missing = &j;
  }
  ASSERT_NE(missing, nullptr);
  ASSERT_TRUE(missing->has(ReasonCode::missing));
  EXPECT_NE(missing->reasons.front().message.find("HTTP 404"), std::string::npos)
      << missing->reasons.front().message;
  EXPECT_NE(notes(r).find("confirmed to exist (HTTP 200)"), std::string::npos) << notes(r);

  // A later resolve (a new store over the same cache) asks nothing again.
  UrlCheckStore again(cache_.path());
  Resolution second = run(server.url(), again, true);
  EXPECT_EQ(pick(second), kPresent);
  EXPECT_EQ(heads(server), 2);
  EXPECT_TRUE(std::filesystem::exists(*url_checks_path(cache_.path(), "flash-attn", "upstream")));
  // Offline, what was learnt still counts.
  UrlCheckStore offline(cache_.path());
  EXPECT_EQ(pick(run(server.url(), offline, false)), kPresent);
  EXPECT_EQ(heads(server), 2);
}

TEST_F(UrlCheckTest, OfflineAsksNothing) {
  test::HttpServer server(files_.path());
  UrlCheckStore store(cache_.path());
  Resolution r = run(server.url(), store, false);
  EXPECT_EQ(pick(r),
            kMissing);  // not known to be missing: the best candidate, said to be unconfirmed
  EXPECT_EQ(heads(server), 0);
  EXPECT_NE(notes(r).find("not confirmed to exist (--offline)"), std::string::npos) << notes(r);
}

TEST_F(UrlCheckTest, RedirectsAreFollowed) {
  test::HttpServer server(
      files_.path(), R"({"/dl/)" + kMissing + R"(": {"redirect": "/dl/)" + kPresent + R"("}})");
  UrlCheckStore store(cache_.path());
  Resolution r = run(server.url(), store, true);
  EXPECT_EQ(pick(r), kMissing);
  EXPECT_NE(notes(r).find("confirmed to exist"), std::string::npos) << notes(r);
}

TEST_F(UrlCheckTest, NoAnswerKeepsThePickUnconfirmed) {
  UrlCheckStore store(cache_.path());
  Resolution r = run("http://127.0.0.1:1", store, true);  // nothing listens on port 1
  EXPECT_EQ(pick(r), kMissing);
  EXPECT_NE(notes(r).find("could not be confirmed"), std::string::npos) << notes(r);
  EXPECT_FALSE(std::filesystem::exists(*url_checks_path(cache_.path(), "flash-attn", "upstream")));
}

TEST_F(UrlCheckTest, AServerErrorIsNoAnswer) {
  test::HttpServer server(files_.path(), R"({"/dl/)" + kMissing + R"(": {"status": 503}})");
  UrlCheckStore store(cache_.path());
  Resolution r = run(server.url(), store, true);
  EXPECT_EQ(pick(r), kMissing);
  EXPECT_NE(notes(r).find("HTTP 503"), std::string::npos) << notes(r);
}

TEST_F(UrlCheckTest, AGarbledChecksFileIsIgnored) {
  auto path = *url_checks_path(cache_.path(), "flash-attn", "upstream");
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << "garbage\n\t\t\t\nftp://x\tmissing\ta\tb\nhttp://127.0.0.1:1/dl/"
                      << kMissing << "\tperhaps\tx\ty\n";
  test::HttpServer server(files_.path());
  UrlCheckStore store(cache_.path());
  Resolution r = run(server.url(), store, true);
  EXPECT_EQ(pick(r), kPresent);
  EXPECT_EQ(heads(server), 2);
}

// Known answers are looked up per source (each source has its own file), and
// the candidates are copied only to mark one: a known-missing row of the
// second source is applied; the first source's row with the same URL is not
// (its answers are its own), and the input rows stay as they were.
TEST_F(UrlCheckTest, KnownMissingAnswersApplyPerSource) {
  const std::string url = "http://127.0.0.1:1/dl/" + kMissing;
  std::vector<Candidate> rows = candidates("http://127.0.0.1:1");
  Candidate community = rows[0];  // kMissing, the newest
  community.source = "community";
  community.role = SourceRole::community;
  rows.push_back(community);
  UrlCheck gone;
  gone.state = UrlState::missing;
  gone.detail = "HTTP 404";
  gone.checked_at = "2026-11-25T00:00:00Z";
  UrlCheckStore(cache_.path()).record("flash-attn", community, gone);

  const Recipe* recipe = book_.find("flash-attn");
  ResolveOptions options;
  options.suggest = false;
  options.explain_rejected = 0;
  auto target = testing::make_target({});
  Resolution r = resolve(Request{"flash-attn", {}, "flash-attn"}, recipe, target, rows, options);
  auto inputs = r.inputs;
  UrlCheckStore store(cache_.path());
  confirm_pick(r, recipe, target, options, store, ConfirmOptions{false});
  std::vector<std::string> missing;
  for (const Judged& j : r.candidates) {
    if (j.has(ReasonCode::missing)) missing.push_back(j.candidate->source);
  }
  EXPECT_EQ(missing, std::vector<std::string>{"community"});
  ASSERT_TRUE(r.selected);
  EXPECT_EQ(r.candidates[*r.selected].candidate->source, "upstream");
  EXPECT_EQ(r.candidates[*r.selected].candidate->url, url);
  for (const Candidate& c : *inputs) EXPECT_FALSE(c.missing) << c.source << " " << c.filename;
}

// A 404 can end (release assets are uploaded for hours after their tag): one
// older than a day is asked again when it would be picked; a fresh one, or
// any one offline, still counts.
TEST_F(UrlCheckTest, AnOldMissingAnswerIsAskedAgainAFreshOneIsNot) {
  test::HttpServer server(files_.path());
  const std::vector<Candidate> rows = candidates(server.url());
  auto record_missing = [&](std::time_t when) {
    UrlCheck gone;
    gone.state = UrlState::missing;
    gone.detail = "HTTP 404";
    gone.checked_at = util::format_utc(when);
    UrlCheckStore(cache_.path()).record("flash-attn", rows[0], gone);
  };
  // Uploaded since the answer: now on the server.
  std::ofstream(files_.path() / "dl" / kMissing) << "uploaded later";
  const std::time_t now = std::time(nullptr);

  record_missing(now - 3600);  // an hour ago: kept, nothing asked about it
  UrlCheckStore fresh(cache_.path());
  Resolution r = run(server.url(), fresh, true);
  EXPECT_EQ(pick(r), kPresent);
  EXPECT_EQ(heads(server), 1) << "only the next candidate is asked";

  record_missing(now - 2 * 24 * 3600);  // two days ago: offline it still counts ...
  UrlCheckStore offline(cache_.path());
  EXPECT_EQ(pick(run(server.url(), offline, false)), kPresent);
  EXPECT_EQ(heads(server), 1);
  UrlCheckStore online(cache_.path());  // ... online it is asked again, and now exists
  Resolution again = run(server.url(), online, true);
  EXPECT_EQ(pick(again), kMissing);
  EXPECT_EQ(heads(server), 2);
  EXPECT_NE(notes(again).find("confirmed to exist (HTTP 200)"), std::string::npos) << notes(again);
  // The new answer replaced the old one.
  UrlCheckStore later(cache_.path());
  auto known = later.known("flash-attn", rows[0]);
  ASSERT_TRUE(known);
  EXPECT_EQ(known->state, UrlState::exists);
}

TEST(UrlCheckAge, MissingAnswersAgeOutAfterADayOrWhenTheirTimeDoesNotRead) {
  UrlCheck c;
  c.state = UrlState::missing;
  const std::time_t now = 1'800'000'000;
  c.checked_at = util::format_utc(now - 3600);
  EXPECT_FALSE(missing_answer_stale(c, now));
  c.checked_at = util::format_utc(now - kMissingAnswerLifetime.count());
  EXPECT_FALSE(missing_answer_stale(c, now));
  c.checked_at = util::format_utc(now - kMissingAnswerLifetime.count() - 1);
  EXPECT_TRUE(missing_answer_stale(c, now));
  for (const char* bad : {"", "yesterday", "2026-13-01T00:00:00Z", "2026-11-27 00:00:00Z"}) {
    c.checked_at = bad;
    EXPECT_TRUE(missing_answer_stale(c, now)) << bad;
  }
}

TEST_F(UrlCheckTest, LocalAndIndexCandidatesAreNotChecked) {
  Candidate c;
  c.url = "/tmp/x.whl";
  c.role = SourceRole::find_links;
  EXPECT_FALSE(needs_url_check(c));
  c.url = "https://pypi.example/x.whl";
  c.role = SourceRole::index;
  EXPECT_FALSE(needs_url_check(c));
  c.role = SourceRole::upstream;
  EXPECT_TRUE(needs_url_check(c));
}

}  // namespace
}  // namespace flashfit::resolve
