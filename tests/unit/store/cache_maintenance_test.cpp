// list() over damaged entries, update(), remove() and gc().
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <sys/stat.h>

#include <ctime>

#include "cache_fixture.hpp"
#include "store/cache_layout.hpp"
#include "util/atomic_file.hpp"
#include "util/utc_time.hpp"

namespace flashfit::store::test {
namespace {
using namespace std::string_literals;

using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Sets a file's modification time `seconds` into the past.
void age(const std::filesystem::path& path, std::time_t seconds) {
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = std::time(nullptr) - seconds;
  times[0].tv_nsec = times[1].tv_nsec = 0;
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW), 0);
}

TEST_F(CacheTest, DamagedEntriesAreSkippedWithAWarning) {
  auto good = cache_->add(files_.path() / kOtherWheel, EntryOrigin::added());
  ASSERT_TRUE(good);
  // Each a copy of the good entry with one thing wrong.
  const std::vector<std::pair<std::string, std::string>> damages = {
      {"not json", "{garbage"},
      {"truncated", detail::entry_to_json(*good).substr(0, 40)},
      {"an array", "[1, 2]"},
      {"wrong types", R"({"sha256": 5, "filename": ["x"], "size": "big"})"},
      {"negative size", R"({"sha256": "S", "filename": "F", "size": -1})"},
      {"float size", R"({"sha256": "S", "filename": "F", "size": 1.5})"},
      {"other sha",
       R"({"sha256": ")" + std::string(64, 'c') + R"(", "filename": "F", "size": 1000})"},
      {"unsafe name", R"({"sha256": "S", "filename": "../../etc/passwd", "size": 1000})"},
      {"missing wheel",
       R"({"sha256": "S", "filename": "gone-1.0-py3-none-any.whl", "size": 1000})"},
      {"wrong size", R"({"sha256": "S", "filename": "F", "size": 999})"},
      {"future schema", R"({"schema": 99, "sha256": "S", "filename": "F", "size": 1000})"},
      // (operator""s keeps the embedded NUL: the literal's own length, no count to get wrong)
      {"NUL bytes", "{\"sha256\": \"S\0\", \"filename\": \"F\"}"s},
      {"deep nesting", std::string(100000, '[') + std::string(100000, ']')},
      {"too large", std::string(5 << 20, ' ') + "{}"},
      {"bad inspections",
       R"({"sha256": "S", "filename": "F", "size": 1000, "inspections": [{"compatible": "yes"}]})"},
  };
  int n = 0;
  for (const auto& [what, text] : damages) {
    std::string sha = util::sha256_hex(what);
    std::string json = text;
    for (std::size_t at; (at = json.find("\"S\"")) != std::string::npos;)
      json.replace(at, 3, "\"" + sha + "\"");
    for (std::size_t at; (at = json.find("\"F\"")) != std::string::npos;)
      json.replace(at, 3, std::string("\"") + kOtherWheel + "\"");
    const auto dir = cache_->root() / sha.substr(0, 2) / sha;
    write(dir / kOtherWheel, other_);
    write(dir / "entry.json", json);
    ++n;
  }
  // Not entries at all.
  write(cache_->root() / "ab" / "not-a-sha" / "entry.json", "{}");
  write(cache_->root() / "zz" / std::string(64, 'a') / "entry.json", "{}");
  std::filesystem::create_directories(cache_->root() / "a" / std::string(64, 'a'));
  write(cache_->root() / "stray-file", "x");

  std::vector<std::string> warnings;
  const auto entries = cache_->list(&warnings);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].sha256, good->sha256);
  EXPECT_EQ(warnings.size(), damages.size() + 2);  // + "ab/not-a-sha" and "zz/aaa..."
  for (const auto& w : warnings) {
    EXPECT_THAT(w, HasSubstr("skipping "));
    EXPECT_EQ(w.find('\0'), std::string::npos);
  }
  EXPECT_EQ(cache_->list().size(), 1u);  // no warnings sink: still fine
  for (const auto& [what, text] : damages)
    EXPECT_FALSE(cache_->find_sha256(util::sha256_hex(what))) << what;
  // A damaged entry can be removed.
  EXPECT_TRUE(cache_->remove(util::sha256_hex("not json")));
}

TEST(EntryJson, RoundTrips) {
  CacheEntry e;
  e.sha256 = std::string(64, 'a');
  e.filename = kWheel;
  e.package = "flash-attn";
  e.version = "2.8.3";
  e.urls = {"https://x/y.whl"};
  e.origin = EntryOrigin::fetched_from("upstream");
  e.size = std::uint64_t{1} << 40;
  e.added_at = "2025-01-01T00:00:00Z";
  e.last_used_at = "2025-02-01T00:00:00Z";
  e.record.torch = pkg::Version::parse("2.8").value();
  e.record.cxx11_abi = false;
  e.record.archs = {"sm_80", "sm_90"};
  e.record.toolkit =
      "nvcc 13.0.88 at /c/toolkits/cuda-13.0/bin/nvcc (CUDA 13.0.88 assembled from PyPI)";
  e.inspections = {{"py3.12 torch2.8", true, "compatible", "2025-01-01T00:00:00Z"}};
  e.installed_in = {"/venv/lib/python3.12/site-packages"};
  auto back = detail::entry_from_json(detail::entry_to_json(e));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->filename, e.filename);
  EXPECT_EQ(back->size, e.size);
  EXPECT_EQ(back->origin, e.origin);
  EXPECT_EQ(back->record.torch, e.record.torch);
  EXPECT_FALSE(back->record.cuda);
  EXPECT_EQ(back->record.cxx11_abi, false);
  EXPECT_EQ(back->record.archs, e.record.archs);
  // the build record's toolkit survives the round trip
  EXPECT_EQ(back->record.toolkit, e.record.toolkit);
  ASSERT_EQ(back->inspections.size(), 1u);
  EXPECT_TRUE(back->inspections[0].compatible);
  EXPECT_EQ(back->installed_in, e.installed_in);
  // Invalid UTF-8 from a hostile URL is written, not thrown on.
  e.urls = {"https://x/\xff\xfe.whl"};
  EXPECT_TRUE(detail::entry_from_json(detail::entry_to_json(e)));
}

// entry.json as flashfit wrote it before the build record was typed: read,
// then written again byte for byte.
TEST(EntryJson, OldEntriesReadAndWriteBackUnchanged) {
  for (const char* cuda : {"12.8", "cpu", "12.x"}) {
    for (const char* source : {"build", "add", "upstream", "extra-index-1", ""}) {
      const std::string text = fmt::format(R"({{
  "added_at": "2025-01-01T00:00:00Z",
  "archs": [
    "sm_80"
  ],
  "cuda": "{}",
  "cxx11_abi": true,
  "filename": "pkg-1.0-cp311-cp311-linux_x86_64.whl",
  "inspections": [],
  "installed_in": [],
  "last_used_at": "2025-01-02T00:00:00Z",
  "package": "pkg",
  "platform": "linux_x86_64",
  "python": "cp311",
  "schema": 1,
  "sha256": "{}",
  "size": 10,
  "source": "{}",
  "toolkit": null,
  "torch": "2.8.0",
  "urls": [],
  "version": "1.0"
}}
)",
                                           cuda, std::string(64, 'b'), source);
      auto entry = detail::entry_from_json(text);
      ASSERT_TRUE(entry) << entry.error().message;
      EXPECT_EQ(detail::entry_to_json(*entry), text) << cuda << " " << source;
    }
  }
  auto built = detail::entry_from_json(R"({"sha256": ")" + std::string(64, 'c') +
                                       R"(", "filename": "a-1-py3-none-any.whl", "source": "build",
      "torch": "2.8.0", "cuda": "cpu", "size": 1})");
  ASSERT_TRUE(built) << built.error().message;
  EXPECT_EQ(built->origin.kind, EntryOrigin::Kind::built);
  ASSERT_TRUE(built->record.cuda);
  EXPECT_TRUE(built->record.cuda->cpu());
  EXPECT_EQ(pkg::torch_minor(*built->record.torch), (pkg::TorchVersion{2, 8}));
}

// A torch or CUDA field of another form (hand-edited) is unknown; the entry stays readable.
TEST(EntryJson, UnreadableRecordFieldsAreUnknown) {
  auto entry = detail::entry_from_json(R"({"sha256": ")" + std::string(64, 'd') +
                                       R"(", "filename": "a-1-py3-none-any.whl", "source": "build",
      "torch": "not a version", "cuda": "twelve", "size": 1})");
  ASSERT_TRUE(entry) << entry.error().message;
  EXPECT_FALSE(entry->record.torch);
  EXPECT_FALSE(entry->record.cuda);
}

TEST(BuildRecord, CudaAndOriginWords) {
  EXPECT_EQ(to_string(BuiltCuda{}), "cpu");
  EXPECT_EQ(to_string(BuiltCuda{pkg::CudaVersion{12, 8}}), "12.8");
  EXPECT_EQ(to_string(BuiltCuda{pkg::CudaVersion{12, std::nullopt}}), "12.x");
  for (const char* text : {"cpu", "12.8", "12.x", "13.0"})
    EXPECT_EQ(to_string(parse_built_cuda(text).value()), text);
  for (const char* bad : {"", "12", "12.", ".8", "12.8.1", "1234.1", "12.-1", "CPU", "none"})
    EXPECT_FALSE(parse_built_cuda(bad)) << bad;
  for (const char* text : {"build", "add", "upstream", "file", ""})
    EXPECT_EQ(to_string(parse_entry_origin(text)), text);
  EXPECT_EQ(parse_entry_origin("build"), EntryOrigin::built());
  EXPECT_EQ(parse_entry_origin("add"), EntryOrigin::added());
  EXPECT_EQ(parse_entry_origin("pypi"), EntryOrigin::fetched_from("pypi"));
}

TEST(CacheTime, FormatsAndParsesOneForm) {
  EXPECT_EQ(util::format_utc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(detail::parse_time("2025-06-01T12:30:00Z"), std::time_t{1748781000});
  for (const char* bad : {"", "2025-06-01", "2025-13-01T00:00:00Z", "2025-06-01T12:30:00+01:00",
                          "2025-06-01T1a:30:00Z", "yesterday"}) {
    EXPECT_FALSE(detail::parse_time(bad)) << bad;
  }
}

TEST_F(CacheTest, UpdateRewritesMetadataAndKeepsIdentity) {
  auto entry = cache_->add(files_.path() / kWheel, EntryOrigin::added());
  ASSERT_TRUE(entry);
  CacheEntry changed = *entry;
  changed.size = 1;                // identity: ignored
  changed.filename = "other.whl";  // identity: ignored
  changed.installed_in = {"/somewhere"};
  changed.inspections = {{"env", false, "torch-symbols: missing", "2025-01-01T00:00:00Z"}};
  changed.last_used_at = "2001-01-01T00:00:00Z";
  changed.urls = {"https://mirror/x.whl"};
  ASSERT_TRUE(cache_->update(changed));
  auto back = cache_->find_sha256(entry->sha256);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->size, entry->size);
  EXPECT_EQ(back->filename, kWheel);
  EXPECT_EQ(back->installed_in, changed.installed_in);
  ASSERT_EQ(back->inspections.size(), 1u);
  EXPECT_EQ(back->inspections[0].summary, "torch-symbols: missing");
  EXPECT_EQ(back->last_used_at, "2001-01-01T00:00:00Z");
  EXPECT_EQ(back->urls, changed.urls);

  CacheEntry unknown = *entry;
  unknown.sha256 = std::string(64, 'e');
  EXPECT_FALSE(cache_->update(unknown));
  unknown.sha256 = "../x";
  auto bad = cache_->update(unknown);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, util::ErrorKind::input);
}

TEST_F(CacheTest, RemoveDeletesTheEntryAndItsUrlIndex) {
  auto entry = cache_->fetch(url(""), std::nullopt, EntryOrigin::fetched_from("index"), options());
  ASSERT_TRUE(entry);
  ASSERT_TRUE(cache_->remove(entry->sha256));
  EXPECT_FALSE(std::filesystem::exists(entry->path.parent_path()));
  EXPECT_FALSE(std::filesystem::exists(cache_->root() / "urls" / util::sha256_hex(url(""))));
  EXPECT_THAT(cache_->list(), IsEmpty());
  EXPECT_THAT(tmp_files(), IsEmpty());
  auto again = cache_->remove(entry->sha256);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().kind, util::ErrorKind::input);
  auto bad = cache_->remove("../../etc");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, util::ErrorKind::input);
  // Fetching again downloads again.
  ASSERT_TRUE(cache_->fetch(url(""), std::nullopt, EntryOrigin::fetched_from("index"), options()));
  EXPECT_EQ(server_->requests("/" + std::string(kWheel)), 2);
}

TEST_F(CacheTest, GcKeepsInstalledAndRecentEntriesAndRemovesOldOnes) {
  // installed: old, but its site dir holds flash_attn 2.8.3 (local label dropped)
  auto installed = cache_->add(files_.path() / kWheel, EntryOrigin::added());
  // recent: used now
  auto recent = cache_->add(files_.path() / kOtherWheel, EntryOrigin::added());
  // old: a third wheel, last used long ago, and "installed" at another version
  write(files_.path() / "old_pkg-0.1-py3-none-any.whl", fake_wheel(3000, 9));
  auto old = cache_->add(files_.path() / "old_pkg-0.1-py3-none-any.whl", EntryOrigin::added());
  ASSERT_TRUE(installed && recent && old);

  flashfit::test::TempDir site("site");
  std::filesystem::create_directories(site.path() /
                                      "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE.dist-info");
  std::filesystem::create_directories(site.path() / "Old.Pkg-0.2.dist-info");
  CacheEntry e = *installed;
  e.installed_in = {site.path().string(), "/nonexistent/site-packages"};
  e.last_used_at = "2000-01-01T00:00:00Z";
  ASSERT_TRUE(cache_->update(e));
  e = *old;
  e.installed_in = {site.path().string()};
  e.last_used_at = "2000-01-01T00:00:00Z";
  ASSERT_TRUE(cache_->update(e));
  EXPECT_TRUE(entry_installed(*cache_->find_sha256(installed->sha256)));
  EXPECT_FALSE(entry_installed(*cache_->find_sha256(old->sha256)));

  // Leftovers in tmp/: an old partial download and a dead process's temp entry; a fresh part stays.
  write(cache_->root() / "tmp" / "old.download.part", std::string(100, 'x'));
  age(cache_->root() / "tmp" / "old.download.part", 40 * 86400);
  std::filesystem::create_directories(cache_->root() / "tmp" / "entry-dead");
  write(cache_->root() / "tmp" / "entry-dead" / "x.whl", std::string(50, 'x'));
  age(cache_->root() / "tmp" / "entry-dead", 2 * 3600);
  write(cache_->root() / "tmp" / "fresh.download.part", "y");
  // A URL index entry of a wheel that is gone.
  write(cache_->root() / "urls" / std::string(64, '1'), std::string(64, '2') + "\n");

  auto dry = cache_->gc(std::chrono::hours(24 * 30), true);
  ASSERT_TRUE(dry) << dry.error().message;
  EXPECT_EQ(dry->removed, 1u);
  EXPECT_EQ(dry->kept, 2u);
  EXPECT_EQ(dry->temp_files_removed, 2u);
  ASSERT_EQ(dry->removed_entries.size(), 1u);
  EXPECT_EQ(dry->removed_entries[0].sha256, old->sha256);
  EXPECT_GE(dry->freed_bytes, old->size + 150);
  EXPECT_EQ(cache_->list().size(), 3u);  // a dry run removes nothing
  EXPECT_TRUE(std::filesystem::exists(cache_->root() / "tmp" / "old.download.part"));

  auto real = cache_->gc(std::chrono::hours(24 * 30), false);
  ASSERT_TRUE(real) << real.error().message;
  EXPECT_EQ(real->removed, 1u);
  EXPECT_EQ(real->kept, 2u);
  EXPECT_EQ(real->freed_bytes, dry->freed_bytes);
  EXPECT_FALSE(cache_->find_sha256(old->sha256));
  EXPECT_TRUE(cache_->find_sha256(installed->sha256));
  EXPECT_TRUE(cache_->find_sha256(recent->sha256));
  EXPECT_EQ(tmp_files(), std::vector<std::string>{"fresh.download.part"});
  EXPECT_FALSE(std::filesystem::exists(cache_->root() / "urls" / std::string(64, '1')));

  // With nothing kept for recency, only the installed one stays.
  auto strict = cache_->gc(std::chrono::hours(0), false);
  ASSERT_TRUE(strict);
  // (the recent entry was used this second: keep_recent 0 still keeps "now")
  EXPECT_TRUE(cache_->find_sha256(installed->sha256));

  // Once uninstalled (the dist-info gone), it goes too.
  std::filesystem::remove_all(site.path() / "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE.dist-info");
  EXPECT_FALSE(entry_installed(*cache_->find_sha256(installed->sha256)));
  auto after = cache_->gc(std::chrono::hours(24), false);
  ASSERT_TRUE(after);
  EXPECT_FALSE(cache_->find_sha256(installed->sha256));
}

TEST_F(CacheTest, GcRemovesOldUnreadableEntries) {
  const std::string sha = std::string(64, 'd');
  const auto dir = cache_->root() / "dd" / sha;
  write(dir / "entry.json", "{broken");
  age(dir, 40 * 86400);
  const std::string fresh_sha = std::string(64, 'e');
  write(cache_->root() / "ee" / fresh_sha / "entry.json", "{broken");
  auto report = cache_->gc(std::chrono::hours(24 * 30), false);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->removed, 1u);
  ASSERT_EQ(report->removed_entries.size(), 1u);
  EXPECT_EQ(report->removed_entries[0].sha256, sha);
  EXPECT_TRUE(report->removed_entries[0].filename.empty());
  EXPECT_FALSE(std::filesystem::exists(dir));
  EXPECT_TRUE(std::filesystem::exists(cache_->root() / "ee" / fresh_sha));
}

}  // namespace
}  // namespace flashfit::store::test
