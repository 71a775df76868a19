// The publish executor over the real directory target: files first, pages
// last, atomic puts, re-publish no-op, a failed write leaving every page true.
#include <fmt/core.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "../temp_dir.hpp"
#include "binary/wheel_bytes.hpp"
#include "util/atomic_file.hpp"
#include "util/sha256.hpp"
#include "workflow/publish.hpp"
#include "workflow/publish_fit.hpp"
#include "workflow/publish_target.hpp"

namespace flashfit::workflow {
namespace {

namespace fs = std::filesystem;

PublishCandidate candidate(const fs::path& dir, const std::string& filename,
                           const std::string& bytes) {
  const fs::path path = dir / filename;
  std::ofstream(path, std::ios::binary) << bytes;
  PublishCandidate c;
  c.path = path;
  c.facts.filename = filename;
  c.facts.project = filename.substr(0, filename.find('-'));
  c.facts.version = "0.1.0";
  c.facts.metadata_version = "0.1.0";
  c.facts.sha256 = util::sha256_hex(bytes);
  c.facts.size = bytes.size();
  c.facts.cxx11_abi = true;
  c.metadata = "Metadata-Version: 2.1\nName: " + c.facts.project + "\nVersion: 0.1.0\n\n";
  return c;
}

std::string slurp(const fs::path& p) {
  return util::read_small_file(p).value_or("<missing>");
}

// Fails every put_file after the first `allowed`, to prove pages come last;
// counts the listings of files/ (each a request on S3).
class FailingTarget : public PublishTarget {
 public:
  FailingTarget(std::unique_ptr<PublishTarget> inner, int allowed)
      : inner_(std::move(inner)), allowed_(allowed) {}
  std::string describe() const override { return inner_->describe(); }
  util::Result<std::unique_ptr<TargetLock>> lock() override { return inner_->lock(); }
  util::Result<std::vector<std::string>> list(std::string_view dir) override {
    if (dir == "files") ++files_listings;
    return inner_->list(dir);
  }
  util::Result<std::optional<std::string>> read(std::string_view path) override {
    return inner_->read(path);
  }
  util::Result<void> put_file(std::string_view path, const fs::path& source,
                              std::string_view sha256) override {
    if (allowed_-- <= 0) return util::fail(util::ErrorKind::failed, "injected failure");
    return inner_->put_file(path, source, sha256);
  }
  util::Result<void> put_bytes(std::string_view path, std::string_view content) override {
    return inner_->put_bytes(path, content);
  }
  util::Result<void> flush() override { return inner_->flush(); }
  int files_listings = 0;

 private:
  std::unique_ptr<PublishTarget> inner_;
  int allowed_;
};

TEST(PublishDirectory, WritesFilesRecordsAndPagesThenReadsThemBack) {
  test::TempDir tmp("publish");
  auto target = directory_target(tmp.path() / "out");
  PublishOptions options;
  options.for_torch = *parse_env_key("2.9.1+cpu", std::nullopt);
  const auto c = candidate(tmp.path(), "a-0.1.0-py3-none-any.whl", "wheel bytes");
  auto report = publish_to(*target, {c}, options, false, {});
  ASSERT_TRUE(report) << report.error().message;
  const fs::path out = tmp.path() / "out";
  EXPECT_EQ(slurp(out / "files" / c.facts.filename), "wheel bytes");
  EXPECT_EQ(slurp(out / "files" / (c.facts.filename + ".metadata")), c.metadata);
  EXPECT_NE(slurp(out / "simple/a/index.html").find(c.facts.sha256), std::string::npos);
  EXPECT_NE(slurp(out / "torch-2.9.1+cpu.html").find("files/a-0.1.0-py3-none-any.whl#sha256="),
            std::string::npos);
  auto tree = read_tree(*target);
  ASSERT_TRUE(tree);
  ASSERT_EQ(tree->wheels.size(), 1u);
  EXPECT_EQ(tree->wheels[0].facts.sha256, c.facts.sha256);
  EXPECT_EQ(tree->wheels[0].metadata_sha256, util::sha256_hex(c.metadata));
  ASSERT_EQ(tree->env_pages.size(), 1u);
  // No temp files are left behind.
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  }
}

TEST(PublishDirectory, DryRunWritesNothing) {
  test::TempDir tmp("publish");
  const auto c = candidate(tmp.path(), "a-0.1.0-py3-none-any.whl", "wheel bytes");
  auto report = publish_to(*directory_target(tmp.path() / "out"), {c}, {}, true, {});
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->plan.uploads.size(), 1u);
  EXPECT_FALSE(fs::exists(tmp.path() / "out"));
}

TEST(PublishDirectory, EveryInputRefusedCreatesNothing) {
  test::TempDir tmp("publish");
  auto refused = candidate(tmp.path(), "a-0.1.0-py3-none-any.whl", "wheel bytes");
  refused.refusal = "not a wheel";
  auto report = publish_to(*directory_target(tmp.path() / "out"), {refused}, {}, false, {});
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->plan.refused.size(), 1u);
  EXPECT_TRUE(report->plan.pages.empty());
  EXPECT_FALSE(fs::exists(tmp.path() / "out"));
  // Through the whole flow too: its early check of the target creates nothing.
  const auto junk = tmp.path() / "in" / "b-0.1.0-py3-none-any.whl";
  fs::create_directories(junk.parent_path());
  std::ofstream(junk) << "not a zip";
  PublishRequest request;
  request.target = (tmp.path() / "out2").string();
  request.inputs = {junk};
  request.temp_dir = tmp.path() / "tmp";
  fs::create_directories(request.temp_dir);
  auto whole = publish(request);
  ASSERT_TRUE(whole) << whole.error().message;
  EXPECT_EQ(whole->plan.refused.size(), 1u);
  EXPECT_FALSE(fs::exists(tmp.path() / "out2"));
}

TEST(PublishDirectory, APublishListsTheTargetsFilesOnce) {
  // Under the lock, to read the tree; not also before it, except when nothing
  // is to be uploaded (then whether a tree is there decides if the lock file
  // may be created at all).
  test::TempDir tmp("publish");
  FailingTarget target(directory_target(tmp.path() / "out"), 1000);
  const auto a = candidate(tmp.path(), "a-0.1.0-py3-none-any.whl", "wheel a");
  ASSERT_TRUE(publish_to(target, {a}, {}, false, {}));
  EXPECT_EQ(target.files_listings, 1);
  const auto b = candidate(tmp.path(), "b-0.1.0-py3-none-any.whl", "wheel b");
  target.files_listings = 0;
  ASSERT_TRUE(publish_to(target, {b}, {}, false, {}));
  EXPECT_EQ(target.files_listings, 1);
  auto refused = candidate(tmp.path(), "c-0.1.0-py3-none-any.whl", "wheel c");
  refused.refusal = "not a wheel";
  target.files_listings = 0;
  auto report = publish_to(target, {refused}, {}, false, {});
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->plan.refused.size(), 1u);
  EXPECT_EQ(target.files_listings, 2);
  auto tree = read_tree(target);
  ASSERT_TRUE(tree);
  EXPECT_EQ(tree->wheels.size(), 2u);
}

TEST(PublishDirectory, RepublishWritesNothing) {
  test::TempDir tmp("publish");
  auto target = directory_target(tmp.path() / "out");
  const auto c = candidate(tmp.path(), "a-0.1.0-py3-none-any.whl", "wheel bytes");
  ASSERT_TRUE(publish_to(*target, {c}, {}, false, {}));
  const auto page = tmp.path() / "out/simple/a/index.html";
  const auto before = fs::last_write_time(page);
  fs::last_write_time(page, before - std::chrono::hours(1));
  auto again = publish_to(*target, {c}, {}, false, {});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->plan.unchanged.size(), 1u);
  EXPECT_EQ(fs::last_write_time(page), before - std::chrono::hours(1));
}

TEST(PublishDirectory, ReplacingAPlacedWheelEmptiesItsStalePage) {
  test::TempDir tmp("publish");
  auto target = directory_target(tmp.path() / "out");
  PublishOptions placed;
  placed.for_torch = *parse_env_key("2.9.1+cu128", std::nullopt);
  const auto first = candidate(tmp.path(), "a-0.1.0-py3-none-any.whl", "one");
  ASSERT_TRUE(publish_to(*target, {first}, placed, false, {}));
  const auto page = tmp.path() / "out/torch-2.9.1+cu128.html";
  ASSERT_NE(slurp(page).find(first.facts.sha256), std::string::npos);
  PublishOptions replace;
  replace.replace = true;
  const auto second = candidate(tmp.path(), "a-0.1.0-py3-none-any.whl", "two");
  ASSERT_TRUE(publish_to(*target, {second}, replace, false, {}));
  EXPECT_EQ(slurp(page).find(first.facts.sha256), std::string::npos);
  EXPECT_EQ(slurp(page).find("a-0.1.0"), std::string::npos);
}

TEST(PublishDirectory, AFailedUploadLeavesTheOldPagesTrue) {
  test::TempDir tmp("publish");
  const auto first = candidate(tmp.path(), "a-0.1.0-py3-none-any.whl", "one");
  ASSERT_TRUE(publish_to(*directory_target(tmp.path() / "out"), {first}, {}, false, {}));
  const auto page_before = slurp(tmp.path() / "out/simple/index.html");
  FailingTarget failing(directory_target(tmp.path() / "out"), 0);
  const auto second = candidate(tmp.path(), "b-0.1.0-py3-none-any.whl", "two");
  auto report = publish_to(failing, {second}, {}, false, {});
  ASSERT_FALSE(report);
  EXPECT_NE(report.error().message.find("injected"), std::string::npos);
  EXPECT_EQ(slurp(tmp.path() / "out/simple/index.html"), page_before);
  EXPECT_FALSE(fs::exists(tmp.path() / "out/simple/b"));
  EXPECT_FALSE(fs::exists(tmp.path() / "out/files/b-0.1.0-py3-none-any.whl.variant.json"));
}

TEST(PublishDirectory, UnwritableTargetIsAClearError) {
  test::TempDir tmp("publish");
  // A path under a regular file cannot be created, by root either.
  std::ofstream(tmp.path() / "plain-file") << "x";
  const auto c = candidate(tmp.path(), "a-0.1.0-py3-none-any.whl", "x");
  auto report =
      publish_to(*directory_target(tmp.path() / "plain-file" / "sub"), {c}, {}, false, {});
  ASSERT_FALSE(report);
  EXPECT_NE(report.error().message.find("cannot write"), std::string::npos);
  EXPECT_FALSE(report.error().hint.empty());
}

TEST(PublishDirectory, TargetsAreParsedOrRefused) {
  EXPECT_TRUE(open_target("file:///tmp/x"));
  EXPECT_FALSE(open_target("file://relative"));
  EXPECT_FALSE(open_target("http://example.org/x"));
  EXPECT_FALSE(open_target(""));
  // s3:// without credentials: a usage error (exit 2) naming them.
  ::unsetenv("AWS_ACCESS_KEY_ID");
  auto s3 = open_target("s3://bucket/prefix");
  ASSERT_FALSE(s3);
  EXPECT_EQ(s3.error().kind, util::ErrorKind::usage);
  EXPECT_NE(s3.error().hint.find("AWS_ACCESS_KEY_ID"), std::string::npos);
}

// Names of the files under `dir` whose name marks a temp file.
std::vector<std::string> temp_files(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp.") != std::string::npos)
      found.push_back(e.path().string());
  }
  return found;
}

TEST(PublishDirectory, PutsAreNamedOnlyByFlushAfterTheirBytesAreWritten) {
  test::TempDir tmp("publish");
  auto target = directory_target(tmp.path() / "out");
  ASSERT_TRUE(target->lock());
  std::ofstream(tmp.path() / "src.whl", std::ios::binary) << "wheel bytes";
  ASSERT_TRUE(
      target->put_file("files/a.whl", tmp.path() / "src.whl", util::sha256_hex("wheel bytes")));
  ASSERT_TRUE(target->put_bytes("simple/a/index.html", "page"));
  // Staged: not under their names yet, so a crash here names nothing torn.
  EXPECT_FALSE(fs::exists(tmp.path() / "out/files/a.whl"));
  EXPECT_FALSE(fs::exists(tmp.path() / "out/simple/a/index.html"));
  EXPECT_EQ(temp_files(tmp.path() / "out").size(), 2u);
  ASSERT_TRUE(target->flush());
  EXPECT_EQ(slurp(tmp.path() / "out/files/a.whl"), "wheel bytes");
  EXPECT_EQ(slurp(tmp.path() / "out/simple/a/index.html"), "page");
  EXPECT_TRUE(temp_files(tmp.path() / "out").empty());
  // Published files are readable by a web server whatever the source's mode.
  EXPECT_NE(fs::status(tmp.path() / "out/files/a.whl").permissions() & fs::perms::others_read,
            fs::perms::none);
}

TEST(PublishDirectory, PutsNeverFlushedLeaveNoTempFiles) {
  test::TempDir tmp("publish");
  {
    auto target = directory_target(tmp.path() / "out");
    ASSERT_TRUE(target->lock());
    ASSERT_TRUE(target->put_bytes("files/a.whl.metadata", "m"));
    EXPECT_EQ(temp_files(tmp.path() / "out").size(), 1u);
  }  // a publish that failed before its flush
  EXPECT_TRUE(temp_files(tmp.path() / "out").empty());
  EXPECT_FALSE(fs::exists(tmp.path() / "out/files/a.whl.metadata"));
}

TEST(PublishDirectory, AMissingSourceIsAClearErrorAndLeavesNothing) {
  test::TempDir tmp("publish");
  auto target = directory_target(tmp.path() / "out");
  ASSERT_TRUE(target->lock());
  auto put = target->put_file("files/a.whl", tmp.path() / "no-such.whl", util::sha256_hex(""));
  ASSERT_FALSE(put);
  // The wheel that cannot be read is named, not the target.
  EXPECT_NE(put.error().message.find("cannot read " + (tmp.path() / "no-such.whl").string()),
            std::string::npos)
      << put.error().message;
  EXPECT_TRUE(temp_files(tmp.path() / "out").empty());
}

TEST(PublishDirectory, AFileWhoseBytesAreNotTheInspectedOnesIsRefusedAndLeavesNothing) {
  test::TempDir tmp("publish");
  auto target = directory_target(tmp.path() / "out");
  ASSERT_TRUE(target->lock());
  std::ofstream(tmp.path() / "src.whl", std::ios::binary) << "wheel bytes";
  auto put = target->put_file("files/a.whl", tmp.path() / "src.whl", util::sha256_hex("other"));
  ASSERT_FALSE(put);
  EXPECT_NE(put.error().message.find("changed after it was inspected"), std::string::npos)
      << put.error().message;
  EXPECT_NE(put.error().message.find(util::sha256_hex("wheel bytes")), std::string::npos);
  EXPECT_TRUE(temp_files(tmp.path() / "out").empty());
  // Nothing staged for it: a flush names nothing.
  ASSERT_TRUE(target->flush());
  EXPECT_FALSE(fs::exists(tmp.path() / "out/files/a.whl"));
}

// The gap this closes: a wheel rewritten (same size) after inspection read it
// and before the copy. The publish fails cleanly: its temp file is removed at
// once, the others staged with the target, and no wheel, record or page is
// named; a later publish of the wheel as it now is works.
TEST(PublishDirectory, AWheelChangedBetweenInspectionAndCopyIsNotPublished) {
  test::TempDir tmp("publish");
  const fs::path out = tmp.path() / "out";
  const auto kept = candidate(tmp.path(), "a-0.1.0-py3-none-any.whl", "first wheel");
  const auto changed = candidate(tmp.path(), "b-0.1.0-py3-none-any.whl", "inspected b");
  std::ofstream(changed.path, std::ios::binary | std::ios::trunc) << "rewritten b";
  {
    auto target = directory_target(out);
    auto report = publish_to(*target, {kept, changed}, {}, false, {});
    ASSERT_FALSE(report);
    EXPECT_NE(report.error().message.find("changed after it was inspected"), std::string::npos)
        << report.error().message;
    EXPECT_NE(report.error().message.find(util::sha256_hex("rewritten b")), std::string::npos);
    for (const auto& temp : temp_files(out))
      EXPECT_EQ(temp.find(changed.facts.filename), std::string::npos) << temp;
  }  // the failed publish's target: a's staged files go with it
  EXPECT_TRUE(temp_files(out).empty());
  EXPECT_FALSE(fs::exists(out / "files" / changed.facts.filename));
  EXPECT_FALSE(fs::exists(out / "files" / (changed.facts.filename + ".variant.json")));
  EXPECT_FALSE(fs::exists(out / "simple"));
  // Inspected again (its facts now say the new bytes), it goes up.
  const auto again = candidate(tmp.path(), "b-0.1.0-py3-none-any.whl", "rewritten b");
  auto target = directory_target(out);
  ASSERT_TRUE(publish_to(*target, {kept, again}, {}, false, {}));
  EXPECT_EQ(slurp(out / "files" / again.facts.filename), "rewritten b");
}

// A wheel whose bytes inspection held in memory is published from them: the
// file rewritten after inspection changes nothing that is put (what is
// published is what was inspected, by construction).
TEST(PublishDirectory, HeldBytesArePublishedAsInspectedWhateverTheFileBecame) {
  test::TempDir tmp("publish");
  const fs::path out = tmp.path() / "out";
  auto held = candidate(tmp.path(), "c-0.1.0-py3-none-any.whl", "inspected c");
  auto bytes = std::make_shared<binary::WheelBytes>();
  bytes->data = std::make_unique_for_overwrite<char[]>(11);
  std::string_view("inspected c").copy(bytes->data.get(), 11);
  bytes->size = 11;
  held.bytes = bytes;
  std::ofstream(held.path, std::ios::binary | std::ios::trunc) << "rewritten c";
  auto target = directory_target(out);
  auto report = publish_to(*target, {held}, {}, false, {});
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(slurp(out / "files" / held.facts.filename), "inspected c");
  EXPECT_NE(slurp(out / "simple/c/index.html").find(util::sha256_hex("inspected c")),
            std::string::npos);
}

// Enough wheels for put_all's threads (three puts a wheel): every file and
// page is there with its bytes, and started() heard every put once.
TEST(PublishDirectory, ManyWheelsArePutOnThreadsAndAllNamed) {
  test::TempDir tmp("publish");
  const fs::path out = tmp.path() / "out";
  std::vector<PublishCandidate> many;
  for (int i = 0; i < 40; ++i) {
    many.push_back(candidate(tmp.path(), fmt::format("p{}-0.1.0-py3-none-any.whl", i),
                             fmt::format("wheel {}", i)));
  }
  auto target = directory_target(out);
  auto report = publish_to(*target, many, {}, false, {});
  ASSERT_TRUE(report) << report.error().message;
  for (int i = 0; i < 40; ++i) {
    const auto& c = many[static_cast<std::size_t>(i)];
    EXPECT_EQ(slurp(out / "files" / c.facts.filename), fmt::format("wheel {}", i));
    EXPECT_EQ(slurp(out / "files" / (c.facts.filename + ".metadata")), c.metadata);
    EXPECT_TRUE(fs::exists(out / "files" / (c.facts.filename + ".variant.json")));
    EXPECT_NE(slurp(out / fmt::format("simple/p{}/index.html", i)).find(c.facts.sha256),
              std::string::npos);
  }
  EXPECT_TRUE(temp_files(out).empty());
  auto tree = read_tree(*target);
  ASSERT_TRUE(tree);
  EXPECT_EQ(tree->wheels.size(), 40u);

  std::vector<PutRequest> puts;
  std::vector<std::string> names;
  for (int i = 0; i < 50; ++i) names.push_back(fmt::format("extra/{}.txt", i));
  for (const auto& name : names) puts.push_back({name, name, {}, {}, {}});
  std::vector<int> heard(puts.size());
  std::mutex mu;
  auto direct = directory_target(out);
  ASSERT_TRUE(direct->put_all(puts, [&](std::size_t i) {
    const std::lock_guard lock(mu);
    ++heard.at(i);
  }));
  EXPECT_EQ(std::count(heard.begin(), heard.end(), 1), 50);
  EXPECT_FALSE(fs::exists(out / "extra/0.txt"));  // staged until flush
  ASSERT_TRUE(direct->flush());
  for (const auto& name : names) EXPECT_EQ(slurp(out / name), name);
}

// One wheel among many changed after inspection: the publish fails naming it,
// and none of the batch is named (no wheel, record or page), with no temp
// file left; the tree before it is as it was.
TEST(PublishDirectory, AFailureAmongManyPutsNamesNoneOfThem) {
  test::TempDir tmp("publish");
  const fs::path out = tmp.path() / "out";
  const auto first = candidate(tmp.path(), "a-0.1.0-py3-none-any.whl", "one");
  ASSERT_TRUE(publish_to(*directory_target(out), {first}, {}, false, {}));
  const auto root_before = slurp(out / "simple/index.html");
  std::vector<PublishCandidate> many;
  for (int i = 0; i < 40; ++i) {
    many.push_back(candidate(tmp.path(), fmt::format("q{}-0.1.0-py3-none-any.whl", i),
                             fmt::format("wheel {}", i)));
  }
  std::ofstream(many[25].path, std::ios::binary | std::ios::trunc) << "rewritten";
  {
    auto target = directory_target(out);
    auto report = publish_to(*target, many, {}, false, {});
    ASSERT_FALSE(report);
    EXPECT_NE(report.error().message.find("changed after it was inspected"), std::string::npos)
        << report.error().message;
    // The failing put's wheel is the error's context.
    EXPECT_NE(report.error().context.find(many[25].facts.filename), std::string::npos)
        << report.error().context;
    EXPECT_TRUE(temp_files(out).empty());
  }
  EXPECT_TRUE(temp_files(out).empty());
  for (const auto& c : many) EXPECT_FALSE(fs::exists(out / "files" / c.facts.filename));
  EXPECT_EQ(slurp(out / "simple/index.html"), root_before);
  EXPECT_EQ(slurp(out / "files" / first.facts.filename), "one");
}

// A staged copy (inspection's own file) is moved into place, not copied: the
// file published is that inode, and the copy's name is gone. A target on
// another file system copies it instead (with the hashing copy).
TEST(PublishDirectory, AStagedCopyIsMovedIntoPlace) {
  test::TempDir tmp("publish");
  const fs::path out = tmp.path() / "out";
  auto target = directory_target(out);
  EXPECT_TRUE(target->can_move_from(tmp.path()));
  auto c = candidate(tmp.path(), "m-0.1.0-py3-none-any.whl", "staged bytes");
  fs::create_directories(tmp.path() / "stage");
  c.staged = tmp.path() / "stage" / c.facts.filename;
  fs::copy_file(c.path, c.staged);
  struct stat before {};
  ASSERT_EQ(::stat(c.staged.c_str(), &before), 0);
  auto report = publish_to(*target, {c}, {}, false, {});
  ASSERT_TRUE(report) << report.error().message;
  const fs::path published = out / "files" / c.facts.filename;
  EXPECT_EQ(slurp(published), "staged bytes");
  struct stat after {};
  ASSERT_EQ(::stat(published.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_FALSE(fs::exists(c.staged));
  EXPECT_TRUE(temp_files(out).empty());

  // /dev/shm is another file system here when it exists: copied, checked.
  struct stat shm {
  }, here{};
  if (::stat("/dev/shm", &shm) != 0 || ::stat(tmp.path().c_str(), &here) != 0 ||
      shm.st_dev == here.st_dev)
    GTEST_SKIP() << "no second file system to move from";
  EXPECT_FALSE(target->can_move_from("/dev/shm"));
  std::string elsewhere = "/dev/shm/flashfit-publish-XXXXXX";
  ASSERT_NE(::mkdtemp(elsewhere.data()), nullptr);
  struct Removed {
    fs::path dir;
    ~Removed() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } removed{elsewhere};
  auto far = candidate(elsewhere, "n-0.1.0-py3-none-any.whl", "far bytes");
  far.staged = far.path;
  ASSERT_TRUE(publish_to(*target, {far}, {}, false, {}));
  EXPECT_EQ(slurp(out / "files" / far.facts.filename), "far bytes");
  EXPECT_TRUE(temp_files(out).empty());
}

// A rename would not give a moved file what the target's directory gives the
// files created in it (a setgid group here): no moves from there. A staged
// copy gone before its put is an error naming it, not a copy of nothing.
TEST(PublishDirectory, MovesOnlyWhereAMovedFileIsACreatedOne) {
  test::TempDir tmp("publish");
  const fs::path out = tmp.path() / "out";
  fs::create_directories(out / "files");
  auto target = directory_target(out);
  EXPECT_TRUE(target->can_move_from(tmp.path()));
  fs::permissions(out / "files", fs::perms::set_gid, fs::perm_options::add);
  EXPECT_FALSE(target->can_move_from(tmp.path()));
  fs::permissions(out / "files", fs::perms::set_gid, fs::perm_options::remove);
  EXPECT_FALSE(target->can_move_from(tmp.path() / "no-such-dir"));

  ASSERT_TRUE(target->lock());
  const fs::path gone = tmp.path() / "gone.whl";
  const std::vector<PutRequest> puts{
      {"files/g.whl", {}, gone, util::sha256_hex(""), "g-0.1.0-py3-none-any.whl", true}};
  auto put = target->put_all(puts);
  ASSERT_FALSE(put);
  EXPECT_NE(put.error().message.find("cannot move " + gone.string()), std::string::npos)
      << put.error().message;
  EXPECT_EQ(put.error().context, "g-0.1.0-py3-none-any.whl");
  EXPECT_TRUE(temp_files(out).empty());
}

TEST(PublishDirectory, UnchangedPagesAreNotRewritten) {
  test::TempDir tmp("publish");
  auto target = directory_target(tmp.path() / "out");
  const auto a = candidate(tmp.path(), "a-0.1.0-py3-none-any.whl", "one");
  ASSERT_TRUE(publish_to(*target, {a}, {}, false, {}));
  const auto a_page = tmp.path() / "out/simple/a/index.html";
  const auto root_page = tmp.path() / "out/simple/index.html";
  const auto old = fs::last_write_time(a_page) - std::chrono::hours(1);
  fs::last_write_time(a_page, old);
  fs::last_write_time(root_page, old);
  const auto b = candidate(tmp.path(), "b-0.1.0-py3-none-any.whl", "two");
  auto report = publish_to(*target, {b}, {}, false, {});
  ASSERT_TRUE(report) << report.error().message;
  // a's page has the same bytes: left alone; the root page lists b now.
  EXPECT_EQ(fs::last_write_time(a_page), old);
  EXPECT_NE(fs::last_write_time(root_page), old);
  EXPECT_NE(slurp(root_page).find("b/"), std::string::npos);
  EXPECT_NE(slurp(tmp.path() / "out/simple/b/index.html").find(b.facts.sha256), std::string::npos);
}

TEST(PublishDirectory, ForeignRecordsAreReportedNotTrusted) {
  test::TempDir tmp("publish");
  fs::create_directories(tmp.path() / "files");
  ASSERT_TRUE(util::write_file_atomic(tmp.path() / "files/x.whl.variant.json", "{\"schema\": 7}"));
  auto tree = read_tree(*directory_target(tmp.path()));
  ASSERT_TRUE(tree);
  EXPECT_TRUE(tree->wheels.empty());
  ASSERT_EQ(tree->problems.size(), 1u);
  ASSERT_EQ(tree->state.unreadable.size(), 1u);
  EXPECT_EQ(tree->state.unreadable[0].filename, "x.whl");
}

TEST(PublishDirectory, AnUnreadableRecordKeepsItsNameAndIsReported) {
  test::TempDir tmp("publish");
  auto target = directory_target(tmp.path() / "out");
  const auto first = candidate(tmp.path(), "a-0.1.0-py3-none-any.whl", "one");
  ASSERT_TRUE(publish_to(*target, {first}, {}, false, {}));
  const auto record = tmp.path() / "out/files/a-0.1.0-py3-none-any.whl.variant.json";
  ASSERT_TRUE(util::write_file_atomic(record, "{\"schema\": 2}"));
  const auto second = candidate(tmp.path(), "a-0.1.0-py3-none-any.whl", "two");
  auto report = publish_to(*target, {second}, {}, false, {});
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->plan.refused.size(), 1u);
  EXPECT_EQ(slurp(tmp.path() / "out/files/a-0.1.0-py3-none-any.whl"), "one");
  ASSERT_EQ(report->plan.problems.size(), 1u);
  EXPECT_NE(report->plan.problems[0].find("a-0.1.0-py3-none-any.whl.variant.json"),
            std::string::npos);
}

}  // namespace
}  // namespace flashfit::workflow
