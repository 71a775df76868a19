// open_wheel and Wheel against wheels written at test time by wheel_builder.hpp:
// a valid one with a real ELF inside, then every way the brief lists of
// breaking or lying in one.
#include "binary/wheel.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <random>

#include "binary/elf.hpp"
#include "wheel_builder.hpp"

namespace fs = std::filesystem;
using namespace flashfit;
using binary::open_wheel;
using binary::RecordProblem;
using binary::WheelFinding;
using wheel_fixture::build_wheel;
using wheel_fixture::WheelSpec;

namespace {

std::string real_elf() {
  const fs::path libc10 = "/usr/lib/x86_64-linux-gnu/libc10.so.1.13.0";
  return wheel_fixture::read_file(fs::exists(libc10) ? libc10 : fs::path("/bin/true"));
}

class WheelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "flashfit-wheel-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  static WheelSpec valid_spec() {
    WheelSpec spec;
    spec.files = {{"demo_pkg/__init__.py", "import demo_pkg_cuda\n"},
                  {"demo_pkg_cuda.cpython-312-x86_64-linux-gnu.so", real_elf()},
                  {"demo_pkg/ops/kern.abi3.so", "not really elf", true, false},
                  {"demo_pkg/data.bin", std::string(3 << 20, 'd')}};
    return spec;
  }

  std::string open_error(const fs::path& path, const binary::WheelLimits& limits = {}) {
    auto wheel = open_wheel(path, limits);
    if (wheel) return "<opened>";
    return wheel.error().message;
  }

  fs::path dir_;
};

std::vector<RecordProblem> problems_of(const binary::Wheel& wheel) {
  auto problems = wheel.verify_records();
  EXPECT_TRUE(problems) << problems.error().message;
  return problems ? *problems : std::vector<RecordProblem>{};
}

bool has_finding(const binary::Wheel& wheel, WheelFinding::Kind kind) {
  auto f = wheel.findings();
  return std::any_of(f.begin(), f.end(), [&](const WheelFinding& x) { return x.kind == kind; });
}

// Sets the declared uncompressed size of `name` in both its local header and
// its central-directory entry, keeping the archive self-consistent.
void declare_size(const fs::path& path, const std::string& name, std::uint32_t size) {
  std::string bytes = wheel_fixture::read_file(path);
  int patched = 0;
  for (std::size_t at = bytes.find(name); at != std::string::npos; at = bytes.find(name, at + 1)) {
    std::size_t field = std::string::npos;
    if (at >= 30 && bytes.compare(at - 30, 4, "PK\x03\x04") == 0) field = at - 30 + 22;
    if (at >= 46 && bytes.compare(at - 46, 4, "PK\x01\x02") == 0) field = at - 46 + 24;
    if (field == std::string::npos) continue;
    for (int i = 0; i < 4; ++i) bytes[field + i] = static_cast<char>((size >> (8 * i)) & 0xFF);
    ++patched;
  }
  ASSERT_EQ(patched, 2);
  wheel_fixture::write_file(path, bytes);
}

}  // namespace

TEST_F(WheelTest, ValidWheelListsEverything) {
  const fs::path path = build_wheel(dir_, valid_spec());
  auto wheel = open_wheel(path);
  ASSERT_TRUE(wheel) << util::render(wheel.error());
  EXPECT_EQ(wheel->dist_info(), "demo_pkg-1.0.dist-info");
  EXPECT_EQ(wheel->members().size(), 7u);
  EXPECT_EQ(wheel->wheel_fields().wheel_version, "1.0");
  EXPECT_FALSE(wheel->wheel_fields().root_is_purelib);
  ASSERT_EQ(wheel->wheel_fields().tags.size(), 1u);
  EXPECT_EQ(wheel->wheel_fields().tags[0].str(), "cp312-cp312-linux_x86_64");
  EXPECT_EQ(wheel->metadata().name, "demo-pkg");
  EXPECT_EQ(wheel->metadata().version, "1.0");
  EXPECT_EQ(wheel->metadata().requires_dist,
            (std::vector<std::string>{"torch", "einops ; extra == \"x\""}));
  EXPECT_EQ(wheel->record().size(), 7u);
  const binary::WheelMember* so = wheel->find("demo_pkg_cuda.cpython-312-x86_64-linux-gnu.so");
  ASSERT_NE(so, nullptr);
  EXPECT_EQ(so->size, real_elf().size());
  EXPECT_EQ(so->compression, ZIP_CM_DEFLATE);
  EXPECT_FALSE(so->encrypted);
  EXPECT_EQ(wheel->find("demo_pkg/ops/kern.abi3.so")->compression, ZIP_CM_STORE);
  EXPECT_EQ(wheel->extension_modules().size(), 2u);
  EXPECT_TRUE(wheel->has_extension_module("demo_pkg_cuda"));
  EXPECT_TRUE(wheel->has_extension_module("kern"));
  EXPECT_TRUE(wheel->has_extension_module("demo_pkg.ops.kern"));
  EXPECT_FALSE(wheel->has_extension_module("flash_attn_2_cuda"));
  EXPECT_FALSE(wheel->has_extension_module("other.kern"));
  EXPECT_TRUE(wheel->findings().empty());
  EXPECT_TRUE(problems_of(*wheel).empty());
}

TEST_F(WheelTest, ExtractedMemberIsTheRealElf) {
  auto wheel = open_wheel(build_wheel(dir_, valid_spec()));
  ASSERT_TRUE(wheel);
  auto extracted = wheel->extract_member_to("demo_pkg_cuda.cpython-312-x86_64-linux-gnu.so", dir_);
  ASSERT_TRUE(extracted) << extracted.error().message;
  EXPECT_EQ(extracted->parent_path(), dir_);
  EXPECT_EQ(wheel_fixture::read_file(*extracted), real_elf());
  auto elf = binary::read_elf(*extracted);
  ASSERT_TRUE(elf) << elf.error().message;
  EXPECT_EQ(elf->machine_name(), "x86_64");
  EXPECT_FALSE(wheel->extract_member_to("nope.so", dir_));
  EXPECT_FALSE(wheel->extract_member_to("demo_pkg_cuda.so", dir_ / "missing-dir"));
}

TEST_F(WheelTest, OnePassVerifiesAndExtracts) {
  WheelSpec spec = valid_spec();
  spec.record_hash_override["demo_pkg/data.bin"] =
      "sha256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  auto wheel = open_wheel(build_wheel(dir_, spec));
  ASSERT_TRUE(wheel);
  const std::string so = "demo_pkg_cuda.cpython-312-x86_64-linux-gnu.so";
  auto result = wheel->verify_records_extracting({so, "demo_pkg/data.bin"}, dir_);
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->problems.size(), 1u);
  EXPECT_EQ(result->problems[0].path, "demo_pkg/data.bin");
  ASSERT_EQ(result->extracted.size(), 2u);
  for (const auto& [name, file] : result->extracted) {
    EXPECT_EQ(file.parent_path(), dir_);
    if (name == so) {
      EXPECT_EQ(wheel_fixture::read_file(file), real_elf());
    }
  }
  // A name that is not a member: an error, and no temporary file left behind.
  auto bad = wheel->verify_records_extracting({so, "nope.so"}, dir_);
  ASSERT_FALSE(bad);
  std::size_t temps = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    temps += entry.path().filename().string().starts_with(".flashfit-member-") ? 1 : 0;
  }
  EXPECT_EQ(temps, 2u);  // only the two from the successful call
  EXPECT_FALSE(wheel->verify_records_extracting({so}, dir_ / "missing-dir"));
}

TEST_F(WheelTest, RecordMismatchNamesTheFile) {
  WheelSpec spec = valid_spec();
  spec.record_hash_override["demo_pkg/data.bin"] =
      "sha256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  auto wheel = open_wheel(build_wheel(dir_, spec));
  ASSERT_TRUE(wheel);
  auto problems = problems_of(*wheel);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].kind, RecordProblem::Kind::hash_mismatch);
  EXPECT_EQ(problems[0].path, "demo_pkg/data.bin");
}

TEST_F(WheelTest, MissingRecordEntriesBothWays) {
  WheelSpec spec = valid_spec();
  spec.files[0].in_record = false;
  spec.files.push_back({"demo_pkg/RECORD.jws", "sig", false});  // not RECORD's signature: flagged
  spec.files.push_back({spec.dist_info + "/RECORD.jws", "sig", false});  // excepted
  spec.extra_record_rows = {"demo_pkg/gone.py,sha256=AAAA,4", "\"demo_pkg/q,\"\"uoted\"\".py\",,"};
  spec.record_hash_override["demo_pkg/data.bin"] = "md5=abc";
  auto wheel = open_wheel(build_wheel(dir_, spec));
  ASSERT_TRUE(wheel) << wheel.error().message;
  auto problems = problems_of(*wheel);
  std::vector<std::pair<RecordProblem::Kind, std::string>> got;
  for (const RecordProblem& p : problems) got.emplace_back(p.kind, p.path);
  std::sort(got.begin(), got.end());
  using K = RecordProblem::Kind;
  std::vector<std::pair<K, std::string>> want = {{K::not_in_record, "demo_pkg/RECORD.jws"},
                                                 {K::not_in_record, "demo_pkg/__init__.py"},
                                                 {K::missing_member, "demo_pkg/gone.py"},
                                                 {K::missing_member, "demo_pkg/q,\"uoted\".py"},
                                                 {K::unsupported_hash, "demo_pkg/data.bin"}};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

TEST_F(WheelTest, ZipSlipNamesAreRefused) {
  for (const auto& [placeholder, evil] :
       std::vector<std::pair<std::string, std::string>>{{"ZZ/evil", "../evil"},
                                                        {"Zabs/x.py", "/abs/x.py"},
                                                        {"a/ZZ/ZZ/b", "a/../../b"},
                                                        {"pkgZx.py", "pkg\\x.py"}}) {
    WheelSpec spec = valid_spec();
    spec.files.push_back({placeholder, "boom", true, false});
    const fs::path path = build_wheel(dir_, spec);
    wheel_fixture::patch_bytes(path, placeholder, evil);
    const std::string error = open_error(path);
    EXPECT_NE(error.find("unsafe member name"), std::string::npos) << evil << ": " << error;
  }
}

TEST_F(WheelTest, NulInNameCannotTruncateIt) {
  WheelSpec spec = valid_spec();
  spec.files.push_back({"okZ../../x", "boom", true, false});
  const fs::path path = build_wheel(dir_, spec);
  wheel_fixture::patch_bytes(path, "okZ../../x", std::string("ok\0../../x", 10));
  // libzip turns the NUL into a space, so the '..' components still show.
  EXPECT_NE(open_error(path).find("unsafe member name"), std::string::npos);
}

TEST_F(WheelTest, DuplicateMembersAreRefused) {
  WheelSpec spec = valid_spec();
  spec.files.push_back({"demo_pkg/b.py", "b", true, false});
  spec.files.push_back({"demo_pkg/c.py", "c", true, false});
  fs::path path = build_wheel(dir_, spec);
  wheel_fixture::patch_bytes(path, "demo_pkg/c.py", "demo_pkg/b.py");
  // libzip notices exact duplicates itself; ours catches the normalised ones.
  EXPECT_NE(open_error(path).find("duplicate member"), std::string::npos) << open_error(path);

  spec = valid_spec();
  spec.files.push_back({"./demo_pkg/__init__.py", "again"});
  path = build_wheel(dir_, spec);
  EXPECT_NE(open_error(path).find("duplicate member './demo_pkg/__init__.py'"), std::string::npos);
}

TEST_F(WheelTest, TruncatedRandomAndEmptyFilesAreRefused) {
  const fs::path good = build_wheel(dir_, valid_spec());
  const std::string bytes = wheel_fixture::read_file(good);
  const fs::path path = dir_ / "cut-1.0-py3-none-any.whl";
  for (std::size_t cut : {std::size_t{1}, std::size_t{100}, bytes.size() / 2, bytes.size() - 200,
                          bytes.size() - 23, bytes.size() - 1}) {
    wheel_fixture::write_file(path, bytes.substr(0, cut));
    auto wheel = open_wheel(path);
    EXPECT_FALSE(wheel) << "cut at " << cut;
  }
  std::mt19937 random(42);
  std::string noise(64 << 10, '\0');
  for (char& c : noise) c = static_cast<char>(random());
  wheel_fixture::write_file(path, noise);
  EXPECT_NE(open_error(path).find("not a zip archive"), std::string::npos);
  wheel_fixture::write_file(path, "");
  EXPECT_NE(open_error(path).find("empty file"), std::string::npos);
  EXPECT_FALSE(open_wheel(dir_ / "absent-1.0-py3-none-any.whl"));
  EXPECT_FALSE(open_wheel(dir_ / "not-a-wheel-name.zip"));
}

TEST_F(WheelTest, EncryptedMemberIsRefused) {
  if (zip_encryption_method_supported(ZIP_EM_AES_128, 1) == 0) {
    GTEST_SKIP() << "this libzip cannot write AES-128 encrypted members";
  }
  WheelSpec spec = valid_spec();
  spec.files.push_back({"demo_pkg/secret.py", "s", true, true, true});
  EXPECT_NE(open_error(build_wheel(dir_, spec)).find("member 'demo_pkg/secret.py' is encrypted"),
            std::string::npos);
}

TEST_F(WheelTest, HugeDeclaredSizesAreRefused) {
  WheelSpec spec = valid_spec();
  for (const char* name : {"big/a.bin", "big/b.bin", "big/c.bin"}) {
    spec.files.push_back({name, "small", true, false});
  }
  const fs::path path = build_wheel(dir_, spec);
  declare_size(path, "big/a.bin", 0xF0000000u);
  binary::WheelLimits limits;
  limits.max_member_size = std::uint64_t{1} << 30;
  EXPECT_NE(open_error(path, limits).find("member 'big/a.bin' declares"), std::string::npos)
      << open_error(path, limits);
  // Three members of ~4 GiB pass the per-member bound but not the total one.
  declare_size(path, "big/b.bin", 0xF0000000u);
  declare_size(path, "big/c.bin", 0xF0000000u);
  EXPECT_NE(open_error(path).find("in total"), std::string::npos) << open_error(path);
}

TEST_F(WheelTest, TooManyMembersAreRefused) {
  binary::WheelLimits limits;
  limits.max_members = 5;
  EXPECT_NE(open_error(build_wheel(dir_, valid_spec()), limits).find("more than the 5"),
            std::string::npos);
}

TEST_F(WheelTest, UpstreamLocalLabelIsANote) {
  WheelSpec spec = valid_spec();
  spec.filename = "demo_pkg-1.0+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl";
  auto wheel = open_wheel(build_wheel(dir_, spec));
  ASSERT_TRUE(wheel) << wheel.error().message;
  auto findings = wheel->findings();
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, WheelFinding::Kind::local_label_only);
  EXPECT_TRUE(findings[0].note);

  spec = valid_spec();
  spec.metadata_version = "1.1";
  wheel = open_wheel(build_wheel(dir_, spec));
  ASSERT_TRUE(wheel);
  EXPECT_TRUE(has_finding(*wheel, WheelFinding::Kind::version_differs));
}

TEST_F(WheelTest, TagsDifferingFromWheelFileAreFlagged) {
  WheelSpec spec = valid_spec();
  spec.wheel_tags = "cp311-cp311-linux_x86_64,cp312-cp312-linux_x86_64";
  auto wheel = open_wheel(build_wheel(dir_, spec));
  ASSERT_TRUE(wheel);
  EXPECT_TRUE(has_finding(*wheel, WheelFinding::Kind::tags_differ));
}

TEST_F(WheelTest, PureWheelWithCompiledModuleIsFlagged) {
  WheelSpec spec = valid_spec();
  spec.filename = "demo_pkg-1.0-py3-none-any.whl";
  spec.wheel_tags = "py3-none-any";
  spec.purelib = true;
  auto wheel = open_wheel(build_wheel(dir_, spec));
  ASSERT_TRUE(wheel) << wheel.error().message;
  EXPECT_TRUE(has_finding(*wheel, WheelFinding::Kind::pure_with_extensions));
  EXPECT_FALSE(has_finding(*wheel, WheelFinding::Kind::tags_differ));
}

TEST_F(WheelTest, TwoDistInfoDirectoriesAreAnError) {
  WheelSpec spec = valid_spec();
  spec.files.push_back({"other-2.0.dist-info/METADATA", "Name: other\nVersion: 2.0\n"});
  EXPECT_NE(open_error(build_wheel(dir_, spec)).find("2 .dist-info directories"),
            std::string::npos);
  spec = valid_spec();
  spec.dist_info = "other-1.0.dist-info";
  EXPECT_NE(open_error(build_wheel(dir_, spec)).find("does not match"), std::string::npos);
}

TEST(WheelParsers, RecordCsvQuotingAndSizes) {
  auto rows = binary::parse_record("a.py,sha256=x,3\r\n\"b,c.py\",,\n\"d\"\"e\",h,10\n");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[1].path, "b,c.py");
  EXPECT_FALSE((*rows)[1].size);
  EXPECT_EQ((*rows)[2].path, "d\"e");
  EXPECT_EQ((*rows)[2].size, 10u);
  EXPECT_FALSE(binary::parse_record("a.py,h\n"));
  EXPECT_FALSE(binary::parse_record("a.py,h,12x\n"));
  EXPECT_FALSE(binary::parse_record("\"a.py,h,1\n"));
}

// Found by the fuzz harness dist_info (tests/fuzz/corpus/dist_info/empty-record-path).
TEST(WheelParsers, RecordRowWithoutPathIsAnError) {
  auto rows = binary::parse_record("a.py,sha256=x,3\n,sha256=y,1\n");
  ASSERT_FALSE(rows);
  EXPECT_EQ(rows.error().message, "row 2: empty path");
  EXPECT_FALSE(binary::parse_record("\"\",,\n"));
}

TEST(WheelParsers, WheelFileNeedsVersionAndPurelib) {
  EXPECT_FALSE(binary::parse_wheel_file("Root-Is-Purelib: true\n"));
  EXPECT_FALSE(binary::parse_wheel_file("Wheel-Version: 2.0\nRoot-Is-Purelib: true\n"));
  EXPECT_FALSE(binary::parse_wheel_file("Wheel-Version: 1.0\nRoot-Is-Purelib: maybe\n"));
  auto fields = binary::parse_wheel_file(
      "Wheel-Version: 1.0\nRoot-Is-Purelib: True\nTag: py2.py3-none-any\n");
  ASSERT_TRUE(fields);
  EXPECT_EQ(fields->tags.size(), 2u);
}

TEST(WheelParsers, SeveralTagLinesGiveEveryTagOnceInOrder) {
  // Lines out of order and overlapping one another: each line's tags are a
  // sorted run the parser merges with the others', so every count of lines
  // (one run, an even and an odd number of runs) must give what sorting
  // all the lines' tags and dropping duplicates gives.
  const std::vector<std::string> lines = {"py3-none-Z.b.a",   "cp39.cp311-abi3-x",
                                          "py2.py3-none-a.y", "cp311-abi3-x.any",
                                          "aa-none-any",      "py3-none-b"};
  std::string text = "Wheel-Version: 1.0\nRoot-Is-Purelib: false\n";
  std::vector<pkg::Tag> want;
  for (const auto& line : lines) {
    text += "Tag: " + line + "\n";
    auto tags = pkg::parse_tag_set(line);
    ASSERT_TRUE(tags) << line;
    want.insert(want.end(), tags->begin(), tags->end());
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    auto fields = binary::parse_wheel_file(text);
    ASSERT_TRUE(fields) << fields.error().message;
    EXPECT_EQ(fields->tags, want) << "after " << line;
  }
  EXPECT_EQ(want.size(), 10u);  // 13 expanded, 3 of them twice
}

TEST(WheelParsers, TheTagLinesTogetherAreBounded) {
  // One line may expand to 65,536 tags; 65,536 lines of one tag each may
  // not add a 65,537th (each line bounded, and so their sum).
  std::string one_wide = "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-";
  for (int i = 0; i < 65536; ++i) one_wide += (i ? ".p" : "p") + std::to_string(i);
  one_wide += "\n";
  auto fields = binary::parse_wheel_file(one_wide);
  ASSERT_TRUE(fields) << fields.error().message;
  EXPECT_EQ(fields->tags.size(), 65536u);
  auto over = binary::parse_wheel_file(one_wide + "Tag: py2-none-any\n");
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().message, "the Tag lines expand to more than 65536 tags");
}

TEST(WheelParsers, MemberNames) {
  EXPECT_EQ(binary::normalise_member_name("./a//b/./c"), "a/b/c");
  EXPECT_EQ(binary::normalise_member_name("./a/"), "a/");
  EXPECT_EQ(binary::normalise_member_name("./"), "");
  EXPECT_EQ(binary::normalise_member_name(".//./"), "");
  EXPECT_TRUE(binary::unsafe_member_name_reason("a/b..c/d").empty());
  EXPECT_FALSE(binary::unsafe_member_name_reason("C:/x").empty());
}

namespace {

std::shared_ptr<const binary::WheelBytes> bytes_of(std::string_view content) {
  auto bytes = std::make_shared<binary::WheelBytes>();
  bytes->data = std::make_unique_for_overwrite<char[]>(content.size() + 1);
  std::copy(content.begin(), content.end(), bytes->data.get());
  bytes->size = content.size();
  return bytes;
}

}  // namespace

TEST_F(WheelTest, OpenedFromMemoryReadsWhatTheFileHolds) {
  const fs::path path = build_wheel(dir_, valid_spec());
  auto wheel = binary::open_wheel_bytes(path, bytes_of(wheel_fixture::read_file(path)));
  ASSERT_TRUE(wheel) << util::render(wheel.error());
  EXPECT_EQ(wheel->path(), path);
  EXPECT_EQ(wheel->dist_info(), "demo_pkg-1.0.dist-info");
  EXPECT_EQ(wheel->members().size(), 7u);
  EXPECT_EQ(wheel->metadata().name, "demo-pkg");
  EXPECT_EQ(wheel->record().size(), 7u);
  EXPECT_TRUE(problems_of(*wheel).empty());
  const std::string so = "demo_pkg_cuda.cpython-312-x86_64-linux-gnu.so";
  auto result = wheel->verify_records_extracting({so}, dir_);
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->extracted.size(), 1u);
  EXPECT_EQ(wheel_fixture::read_file(result->extracted[0].second), real_elf());
  // Moved: the bytes go with the archive that reads them.
  binary::Wheel moved = std::move(*wheel);
  EXPECT_TRUE(problems_of(moved).empty());
}

TEST_F(WheelTest, BadBytesInMemoryAreRefusedAsTheFileIs) {
  const fs::path path = build_wheel(dir_, valid_spec());
  const std::string whole = wheel_fixture::read_file(path);
  auto truncated = binary::open_wheel_bytes(path, bytes_of(whole.substr(0, whole.size() / 2)));
  ASSERT_FALSE(truncated);
  EXPECT_NE(util::render(truncated.error()).find(path.string()), std::string::npos);
  EXPECT_FALSE(binary::open_wheel_bytes(path, bytes_of("not a zip at all")));
  auto empty = binary::open_wheel_bytes(path, bytes_of(""));
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("empty file"), std::string::npos);
  EXPECT_FALSE(binary::open_wheel_bytes(path, nullptr));
  EXPECT_FALSE(binary::open_wheel_bytes(dir_ / "not-a-wheel-name.zip", bytes_of(whole)));
}

// A wheel of which only the tail is present (its head zeros, as `lock`'s
// ranged read leaves it): its dist-info reads; open_wheel, which compares
// every member's local header with the central directory, refuses it; a
// changed or zeroed dist-info member is refused.
TEST_F(WheelTest, OnlyTheTailPresentOpensForItsDistInfoAlone) {
  const fs::path path = build_wheel(dir_, valid_spec());
  std::string bytes = wheel_fixture::read_file(path);
  const std::size_t tail = 64 << 10;
  ASSERT_GT(bytes.size(), 2 * tail);
  std::fill(bytes.begin(), bytes.end() - static_cast<std::ptrdiff_t>(tail), '\0');
  wheel_fixture::write_file(path, bytes);
  auto partial = binary::open_wheel_dist_info(path);
  ASSERT_TRUE(partial) << util::render(partial.error());
  EXPECT_EQ(partial->metadata().requires_dist,
            (std::vector<std::string>{"torch", "einops ; extra == \"x\""}));
  EXPECT_EQ(partial->members().size(), 7u);
  EXPECT_NE(open_error(path), "<opened>");
  // One byte of METADATA's data changed (after its local header and name):
  // refused, by its CRC or its deflate stream.
  const std::string metadata = "demo_pkg-1.0.dist-info/METADATA";
  const std::size_t header = bytes.find("PK\x03\x04", bytes.size() - tail);
  const std::size_t name_at = bytes.find(metadata, header);
  ASSERT_NE(name_at, std::string::npos);
  // The local header's extra field length sits in the two bytes before the name.
  const auto extra = static_cast<std::size_t>(static_cast<unsigned char>(bytes[name_at - 2])) |
                     static_cast<std::size_t>(static_cast<unsigned char>(bytes[name_at - 1])) << 8;
  std::string flipped = bytes;
  flipped[name_at + metadata.size() + extra + 4] ^= 0x20;
  wheel_fixture::write_file(path, flipped);
  EXPECT_FALSE(binary::open_wheel_dist_info(path));
  // The dist-info files zeroed too: nothing to read.
  std::fill(bytes.begin(), bytes.end() - 1024, '\0');
  wheel_fixture::write_file(path, bytes);
  EXPECT_FALSE(binary::open_wheel_dist_info(path));
}
