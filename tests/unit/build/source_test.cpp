#include "build/source.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../http_server.hpp"
#include "../temp_dir.hpp"
#include "archive_writer.hpp"
#include "build/archive.hpp"
#include "build/source_sdist.hpp"
#include "util/sha256.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;
using test::ArchiveFormat;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

void write_text(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  test::write_bytes(file, text);
}

// An sdist as setuptools makes one: <stem>/ with setup.py, PKG-INFO and sources.
void write_sdist(const fs::path& file, const std::string& stem, const std::string& version,
                 ArchiveFormat format = ArchiveFormat::tar_gz) {
  fs::create_directories(file.parent_path());
  test::write_archive(
      file, format,
      {test::dir_item(stem + "/"),
       test::file_item(stem + "/setup.py", "from setuptools import setup\n"),
       test::file_item(
           stem + "/PKG-INFO",
           fmt::format("Metadata-Version: 2.1\nName: demo-pkg\nVersion: {}\n\nbody\n", version)),
       test::file_item(stem + "/csrc/a.cu", "__global__ void a() {}\n"),
       test::file_item(stem + "/csrc/b.cu", "__global__ void b() {}\n"),
       test::file_item(stem + "/csrc/api.cpp", "int api();\n"),
       test::file_item(stem + "/csrc/api.h", "int api();\n")});
}

std::string sha256_of(const fs::path& file) {
  return util::sha256_hex(test::read_bytes(file));
}

constexpr const char* kJsonType = "application/vnd.pypi.simple.v1+json";

// A real index: /simple (PEP 503 HTML), /json (PEP 691), /badsha (a wrong
// hash), /garbage, /broken (500), /links.html (a find-links page), /files.
class SourceTest : public ::testing::Test {
 protected:
  SourceTest() {
    const fs::path files = root_.path() / "files";
    write_sdist(files / "demo_pkg-1.0.tar.gz", "demo_pkg-1.0", "1.0");
    write_sdist(files / "demo-pkg-1.1.tar.gz", "demo-pkg-1.1", "1.1");
    write_sdist(files / "demo_pkg-1.1.zip", "demo_pkg-1.1", "1.1", ArchiveFormat::zip);
    write_sdist(files / "Demo-Pkg-0.9.tar.gz", "Demo-Pkg-0.9", "0.9");
    write_sdist(files / "demo_pkg-1.2.tar.gz", "demo_pkg-1.2", "1.2");
    write_sdist(files / "demo_pkg-2.0rc1.tar.gz", "demo_pkg-2.0rc1", "2.0rc1");
    write_sdist(files / "demo_pkg-latest.tar.gz", "demo_pkg-latest", "9.9");
    write_sdist(files / "demo_pkg_extra-3.0.tar.gz", "demo_pkg_extra-3.0", "3.0");
    test::write_bytes(files / "demo_pkg-1.1-py3-none-any.whl", "not really a wheel");
    sha_1_0_ = sha256_of(files / "demo_pkg-1.0.tar.gz");

    const std::string anchors = fmt::format(
        "<a href=\"../../files/demo_pkg-1.0.tar.gz#sha256={}\">demo_pkg-1.0.tar.gz</a>\n"
        "<a href=\"../../files/demo_pkg-1.1.zip\">zip</a>\n"
        "<a href=\"../../files/demo-pkg-1.1.tar.gz\">demo-pkg-1.1.tar.gz</a>\n"
        "<a href=\"../../files/Demo-Pkg-0.9.tar.gz\">old spelling</a>\n"
        "<a href=\"../../files/demo_pkg-1.2.tar.gz\" data-yanked=\"broken build\">yanked</a>\n"
        "<a href=\"../../files/demo_pkg-2.0rc1.tar.gz\">pre</a>\n"
        "<a href=\"../../files/demo_pkg-1.1-py3-none-any.whl\">wheel</a>\n"
        "<a href=\"../../files/demo_pkg-latest.tar.gz\">no version</a>\n"
        "<a href=\"../../files/demo_pkg_extra-3.0.tar.gz\">other project</a>\n",
        sha_1_0_);
    write_text(root_.path() / "simple/demo-pkg/index.html",
               "<html><body>\n" + anchors + "</body></html>\n");
    write_text(root_.path() / "badsha/demo-pkg/index.html",
               fmt::format("<a href=\"../../files/demo_pkg-1.0.tar.gz#sha256={}\">x</a>\n",
                           std::string(64, '0')));
    write_text(root_.path() / "links.html",
               "<a href=\"files/demo_pkg-1.0.tar.gz\">a</a>\n"
               "<a href=\"files/demo-pkg-1.1.tar.gz\">b</a>\n");
    write_text(root_.path() / "json-page.json",
               fmt::format(R"({{"meta": {{"api-version": "1.0"}}, "name": "demo-pkg", "files": [
                 {{"filename": "demo_pkg-1.0.tar.gz", "url": "../../files/demo_pkg-1.0.tar.gz",
                   "hashes": {{"sha256": "{}"}}}},
                 {{"filename": "demo-pkg-1.1.tar.gz", "url": "../../files/demo-pkg-1.1.tar.gz", "hashes": {{}},
                   "yanked": "do not use"}},
                 {{"filename": "Demo-Pkg-0.9.tar.gz", "url": "../../files/Demo-Pkg-0.9.tar.gz", "hashes": {{}}}}
               ]}})",
                           sha_1_0_));
    write_text(root_.path() / "bad-json.json",
               R"({"meta": {"api-version": "1.0"}, "files": [{"filename": 3}]})");
    const std::string routes = fmt::format(
        R"({{"/json/demo-pkg/": {{"body_file": "json-page.json", "content_type": "{0}"}},
             "/badjson/demo-pkg/": {{"body_file": "bad-json.json", "content_type": "{0}"}},
             "/garbage/demo-pkg/": {{"body": "\u0000\u0001binary", "content_type": "text/html"}},
             "/broken/demo-pkg/": {{"status": 500}}}})",
        kJsonType);
    server_ = std::make_unique<test::HttpServer>(root_.path(), routes);
  }

  SourceRequest request(const std::string& spec) const {
    SourceRequest r;
    r.spec = spec;
    r.work_dir = work_.path();
    r.quiet = true;
    return r;
  }
  SourceRequest from_index(const std::string& spec, const std::string& index_path) const {
    SourceRequest r = request(spec);
    r.index_urls = {server_->url(index_path)};
    return r;
  }
  fs::path files() const { return root_.path() / "files"; }

  test::TempDir root_{"source-index"};
  test::TempDir work_{"source-work"};
  std::string sha_1_0_;
  std::unique_ptr<test::HttpServer> server_;
};

TEST_F(SourceTest, ADirectoryWithSetupPyIsUsedInPlace) {
  test::TempDir tree("source-tree");
  write_text(tree.path() / "setup.py", "x\n");
  write_text(tree.path() / "csrc/k.cu", "k\n");
  auto source = prepare_source(request(tree.path().string() + "/./"));
  ASSERT_TRUE(source) << source.error().message;
  EXPECT_EQ(source->kind, SourceKind::directory);
  EXPECT_EQ(source->root, fs::canonical(tree.path()));
  EXPECT_FALSE(source->archive_sha256);
  EXPECT_EQ(source->scan.cuda_files, 1u);
  EXPECT_TRUE(source->scan.has_setup_py);
  EXPECT_TRUE(listing(work_.path()).empty()) << "a directory is not copied";
}

TEST_F(SourceTest, ADirectoryWithoutBuildFilesIsAnInputErrorWithAHint) {
  test::TempDir tree("source-empty");
  write_text(tree.path() / "README", "x\n");
  auto source = prepare_source(request(tree.path().string()));
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().kind, util::ErrorKind::input);
  EXPECT_THAT(source.error().message, HasSubstr("neither setup.py nor pyproject.toml"));
  EXPECT_THAT(source.error().hint, HasSubstr("setup.py"));
}

TEST_F(SourceTest, ALocalArchiveIsUnpackedUnderTheWorkDir) {
  const fs::path archive = files() / "demo_pkg-1.0.tar.gz";
  auto source = prepare_source(request(archive.string()));
  ASSERT_TRUE(source) << source.error().message;
  EXPECT_EQ(source->kind, SourceKind::archive);
  EXPECT_EQ(source->root, work_.path() / "source" / "demo_pkg-1.0");
  EXPECT_EQ(source->archive_sha256, sha_1_0_);
  EXPECT_EQ(source->origin, archive.string());
  EXPECT_EQ(source->scan.name, "demo-pkg");
  EXPECT_EQ(source->scan.version, "1.0");
  EXPECT_EQ(source->scan.cuda_files, 2u);
  EXPECT_EQ(source->scan.cpp_files, 1u);

  // A second preparation in the same work dir does not collide.
  auto again = prepare_source(request((files() / "demo_pkg-1.1.zip").string()));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->root, work_.path() / "source-2" / "demo_pkg-1.1");
}

TEST_F(SourceTest, AnArchiveThatIsNoPackageOrIsHostileLeavesNothing) {
  test::write_archive(files() / "docs-1.0.tar.gz", ArchiveFormat::tar_gz,
                      {test::file_item("docs-1.0/README", "x")});
  auto docs = prepare_source(request((files() / "docs-1.0.tar.gz").string()));
  ASSERT_FALSE(docs);
  EXPECT_EQ(docs.error().kind, util::ErrorKind::input);
  EXPECT_THAT(docs.error().message, HasSubstr("neither setup.py nor pyproject.toml"));

  test::write_archive(
      files() / "evil-1.0.tar.gz", ArchiveFormat::tar_gz,
      {test::file_item("evil-1.0/setup.py", "x"), test::file_item("../evil.txt", "x")});
  auto evil = prepare_source(request((files() / "evil-1.0.tar.gz").string()));
  ASSERT_FALSE(evil);
  EXPECT_EQ(evil.error().kind, util::ErrorKind::input);
  EXPECT_THAT(evil.error().message, HasSubstr("'..'"));
  EXPECT_TRUE(listing(work_.path()).empty());
}

TEST_F(SourceTest, SpecsThatAreNothingAreInputErrorsWithAHint) {
  test::write_bytes(work_.path() / "x.whl", "wheel");
  for (const std::string& spec :
       {std::string("missing-1.0.tar.gz"), std::string("./no/such/dir"),
        std::string("!!not a thing!!"), std::string("   "), (work_.path() / "x.whl").string()}) {
    SCOPED_TRACE(spec);
    auto source = prepare_source(request(spec));
    ASSERT_FALSE(source);
    EXPECT_EQ(source.error().kind, util::ErrorKind::input) << source.error().message;
    EXPECT_FALSE(source.error().hint.empty());
  }
  auto wheel = prepare_source(request((work_.path() / "x.whl").string()));
  EXPECT_THAT(wheel.error().hint, HasSubstr("flashfit install"));
}

TEST_F(SourceTest, AUrlIsDownloadedCheckedAndUnpacked) {
  const std::string url = server_->url("/files/demo-pkg-1.1.tar.gz");
  auto source = prepare_source(request(url));
  ASSERT_TRUE(source) << source.error().message;
  EXPECT_EQ(source->kind, SourceKind::url);
  EXPECT_EQ(source->origin, url);
  EXPECT_EQ(source->archive_sha256, sha256_of(files() / "demo-pkg-1.1.tar.gz"));
  EXPECT_EQ(source->scan.version, "1.1");
  EXPECT_EQ(listing(work_.path()), std::vector<std::string>{"source"}) << "the archive is not kept";

  auto wrong = prepare_source(request(url + "#sha256=" + std::string(64, 'a')));
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().kind, util::ErrorKind::input);
  EXPECT_THAT(wrong.error().message, HasSubstr("sha256"));
  EXPECT_EQ(listing(work_.path()), std::vector<std::string>{"source"});

  auto missing = prepare_source(request(server_->url("/files/none-1.0.tar.gz")));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, util::ErrorKind::failed);
  EXPECT_EQ(listing(work_.path()), std::vector<std::string>{"source"});
  auto not_archive = prepare_source(request(server_->url("/files/demo_pkg-1.1-py3-none-any.whl")));
  ASSERT_FALSE(not_archive);
  EXPECT_EQ(not_archive.error().kind, util::ErrorKind::input);
}

TEST_F(SourceTest, ARequirementTakesTheHighestFinalVersionFromAnHtmlIndex) {
  auto source = prepare_source(from_index("demo-pkg", "/simple"));
  ASSERT_TRUE(source) << source.error().message;
  EXPECT_EQ(source->kind, SourceKind::requirement);
  // 1.2 is yanked and 2.0rc1 a pre-release; of 1.1's .tar.gz and .zip the .tar.gz.
  EXPECT_EQ(source->origin, server_->url("/files/demo-pkg-1.1.tar.gz"));
  EXPECT_EQ(source->scan.version, "1.1");
  EXPECT_EQ(source->archive_sha256, sha256_of(files() / "demo-pkg-1.1.tar.gz"));
}

TEST_F(SourceTest, RequirementSpecifiersPinsOldSpellingsAndPreReleases) {
  struct Case {
    const char* spec;
    const char* version;
  };
  for (const Case& c : {Case{"Demo_Pkg==1.0", "1.0"}, Case{"demo-pkg<1.0", "0.9"},
                        Case{"demo-pkg>=2.0rc1", "2.0rc1"}, Case{"demo.pkg~=1.0", "1.1"},
                        Case{"demo-pkg[cuda]>=0.9; python_version >= '3'", "1.1"}}) {
    SCOPED_TRACE(c.spec);
    auto source = prepare_source(from_index(c.spec, "/simple/"));
    ASSERT_TRUE(source) << source.error().message << " / " << source.error().hint;
    EXPECT_EQ(source->scan.version, c.version);
  }
}

TEST_F(SourceTest, NoMatchListsTheVersionsFoundAndWhereItLooked) {
  auto source = prepare_source(from_index("demo-pkg>5", "/simple"));
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().kind, util::ErrorKind::input);
  EXPECT_THAT(source.error().message,
              AllOf(HasSubstr("demo-pkg>5"), HasSubstr("0.9, 1.0, 1.1, 2.0rc1"),
                    HasSubstr("1.2 (yanked)"), Not(HasSubstr("3.0")), Not(HasSubstr("9.9"))));
  EXPECT_THAT(source.error().hint, HasSubstr(server_->url("/simple/demo-pkg/")));

  auto yanked = prepare_source(from_index("demo-pkg==1.2", "/simple"));
  ASSERT_FALSE(yanked);
  EXPECT_THAT(yanked.error().message, HasSubstr("1.2 (yanked)"));
  EXPECT_TRUE(listing(work_.path()).empty());
}

TEST_F(SourceTest, AJsonIndexIsReadByItsContentType) {
  // 1.1 is yanked there: 1.0 is the highest, and its hash is checked.
  auto source = prepare_source(from_index("demo-pkg", "/json"));
  ASSERT_TRUE(source) << source.error().message;
  EXPECT_EQ(source->scan.version, "1.0");
  EXPECT_EQ(source->archive_sha256, sha_1_0_);

  auto bad = prepare_source(from_index("demo-pkg", "/badjson"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, util::ErrorKind::input);
  EXPECT_THAT(bad.error().message, HasSubstr("cannot look up"));
}

TEST_F(SourceTest, AWrongSha256IsRefusedAndLeavesNothing) {
  auto source = prepare_source(from_index("demo-pkg==1.0", "/badsha"));
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().kind, util::ErrorKind::input);
  EXPECT_THAT(source.error().message, HasSubstr("sha256 mismatch"));
  EXPECT_TRUE(listing(work_.path()).empty());
}

TEST_F(SourceTest, IndexesThatFailAreReportedAndOthersStillCount) {
  auto missing = prepare_source(from_index("demo-pkg", "/nothing"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, util::ErrorKind::input);
  EXPECT_THAT(missing.error().message, HasSubstr("no source distribution of demo-pkg found"));
  EXPECT_THAT(missing.error().hint, HasSubstr("(not found)"));

  auto garbage = prepare_source(from_index("demo-pkg", "/garbage"));
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().kind, util::ErrorKind::input);

  auto broken = prepare_source(from_index("demo-pkg", "/broken"));
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().kind, util::ErrorKind::failed);
  EXPECT_THAT(broken.error().message, HasSubstr("500"));

  SourceRequest mixed = request("demo-pkg");
  mixed.index_urls = {server_->url("/broken"), server_->url("/garbage"), server_->url("/simple")};
  auto source = prepare_source(mixed);
  ASSERT_TRUE(source) << source.error().message;
  EXPECT_EQ(source->scan.version, "1.1");
}

TEST_F(SourceTest, FindLinksDirectoriesAndPages) {
  test::TempDir links("source-links");
  write_sdist(links.path() / "demo_pkg-1.0.tar.gz", "demo_pkg-1.0", "1.0");
  write_sdist(links.path() / "demo_pkg-1.3.zip", "demo_pkg-1.3", "1.3", ArchiveFormat::zip);
  test::write_bytes(links.path() / "notes.txt", "x");
  SourceRequest dir = request("demo-pkg");
  dir.find_links = {links.path().string()};
  auto source = prepare_source(dir);
  ASSERT_TRUE(source) << source.error().message;
  EXPECT_EQ(source->kind, SourceKind::requirement);
  EXPECT_EQ(source->scan.version, "1.3");
  EXPECT_EQ(source->origin, (links.path() / "demo_pkg-1.3.zip").string());
  EXPECT_EQ(source->archive_sha256, sha256_of(links.path() / "demo_pkg-1.3.zip"));

  SourceRequest page = request("demo-pkg<1.1");
  page.find_links = {server_->url("/links.html")};
  auto from_page = prepare_source(page);
  ASSERT_TRUE(from_page) << from_page.error().message;
  EXPECT_EQ(from_page->scan.version, "1.0");

  SourceRequest missing = request("demo-pkg");
  missing.find_links = {(links.path() / "nope").string()};
  auto none = prepare_source(missing);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().kind, util::ErrorKind::input);
  EXPECT_THAT(none.error().hint, HasSubstr("no such directory"));
}

TEST_F(SourceTest, ARequirementWithoutAnIndexSaysWhatToPass) {
  auto source = prepare_source(request("flash-attn==2.8.3"));
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().kind, util::ErrorKind::input);
  EXPECT_THAT(source.error().hint, HasSubstr("--index-url"));
}

TEST_F(SourceTest, ABareNameThatIsAlsoADirectoryWithoutSetupPyIsARequirement) {
  test::TempDir cwd("source-cwd");
  fs::create_directories(cwd.path() / "demo-pkg" / "junk");
  test::InDirectory in(cwd.path());
  auto source = prepare_source(from_index("demo-pkg", "/simple"));
  ASSERT_TRUE(source) << source.error().message;
  EXPECT_EQ(source->kind, SourceKind::requirement);

  write_text(cwd.path() / "demo-pkg" / "setup.py", "x\n");
  auto local = prepare_source(from_index("demo-pkg", "/simple"));
  ASSERT_TRUE(local) << local.error().message;
  EXPECT_EQ(local->kind, SourceKind::directory);
}

TEST_F(SourceTest, ARequirementWithAUrlDownloadsIt) {
  auto source =
      prepare_source(request("demo-pkg @ " + server_->url("/files/demo_pkg-2.0rc1.tar.gz")));
  ASSERT_TRUE(source) << source.error().message;
  EXPECT_EQ(source->kind, SourceKind::requirement);
  EXPECT_EQ(source->scan.version, "2.0rc1");
}

TEST(SdistNames, VersionsByCanonicalName) {
  auto version = [](const char* file, const char* project) {
    auto v = detail::sdist_version(file, project);
    return v ? v->str() : std::string("-");
  };
  EXPECT_EQ(version("flash_attn-2.8.3.tar.gz", "flash-attn"), "2.8.3");
  EXPECT_EQ(version("flash-attn-2.8.3.tar.gz", "flash-attn"), "2.8.3");
  EXPECT_EQ(version("Flash.Attn-2.8.3.zip", "flash-attn"), "2.8.3");
  EXPECT_EQ(version("foo-1.0-1.tgz", "foo"), "1.0.post1");
  EXPECT_EQ(version("foo-bar-1.0.tar.xz", "foo"), "-");
  EXPECT_EQ(version("foo-bar-1.0.tar.bz2", "foo-bar"), "1.0");
  EXPECT_EQ(version("foo-latest.tar.gz", "foo"), "-");
  EXPECT_EQ(version("foo-1.0-py3-none-any.whl", "foo"), "-");
  EXPECT_EQ(version("foo.tar.gz", "foo"), "-");
  EXPECT_EQ(version("-1.0.tar.gz", ""), "-");
}

TEST(SourceKinds, Names) {
  EXPECT_STREQ(to_string(SourceKind::directory), "directory");
  EXPECT_STREQ(to_string(SourceKind::archive), "archive");
  EXPECT_STREQ(to_string(SourceKind::url), "url");
  EXPECT_STREQ(to_string(SourceKind::requirement), "requirement");
}

class ScanTest : public ::testing::Test {
 protected:
  fs::path root() const { return dir_.path(); }
  test::TempDir dir_{"scan"};
};

TEST_F(ScanTest, CountsTranslationUnitsSkippingGitBuildAndLinks) {
  write_text(root() / "setup.py", "x");
  write_text(root() / "csrc/a.cu", "x");
  write_text(root() / "csrc/deep/b.cu", "x");
  write_text(root() / "csrc/c.cpp", "x");
  write_text(root() / "csrc/d.cc", "x");
  write_text(root() / "csrc/e.cxx", "x");
  write_text(root() / "csrc/f.c", "x");
  write_text(root() / "csrc/g.h", "x");
  write_text(root() / "csrc/h.cuh", "x");
  write_text(root() / "csrc/.cu", "x");
  write_text(root() / "third_party/lib/build/kept.cu", "x");  // only the top build/ is output
  write_text(root() / "build/temp/skipped.cu", "x");
  write_text(root() / ".git/objects/skipped.cpp", "x");
  test::TempDir outside("scan-outside");
  write_text(outside.path() / "far.cu", "x");
  fs::create_directory_symlink(outside.path(), root() / "linked");
  fs::create_symlink(root() / "csrc/a.cu", root() / "csrc/alias.cu");

  SourceScan scan = scan_source_tree(root());
  EXPECT_TRUE(scan.has_setup_py);
  EXPECT_FALSE(scan.has_pyproject);
  EXPECT_EQ(scan.cuda_files, 3u);
  EXPECT_EQ(scan.cpp_files, 4u);
  EXPECT_FALSE(scan.name);
  EXPECT_FALSE(scan.version);
}

TEST_F(ScanTest, NameAndVersionFromPkgInfoElsePyproject) {
  write_text(root() / "PKG-INFO",
             "Metadata-Version: 2.1\r\nSummary: multi\n  line\nNAME:  flash_attn \nVersion: "
             "2.8.3\n\nVersion: 9\n");
  write_text(root() / "pyproject.toml", "[project]\nname = \"other\"\nversion = \"1.0\"\n");
  SourceScan scan = scan_source_tree(root());
  EXPECT_TRUE(scan.has_pyproject);
  EXPECT_EQ(scan.name, "flash_attn");
  EXPECT_EQ(scan.version, "2.8.3");

  // A PKG-INFO without a usable version: pyproject fills it in.
  write_text(root() / "PKG-INFO", "Name: flash-attn\nVersion: not a version\n");
  scan = scan_source_tree(root());
  EXPECT_EQ(scan.name, "flash-attn");
  EXPECT_EQ(scan.version, "1.0");
}

// A git checkout has only setup.py: its literal name is what finds the recipe
// (flash-attn's own tree says PACKAGE_NAME = "flash_attn").
TEST_F(ScanTest, NameFromSetupPyLiteralsOnly) {
  write_text(root() / "setup.py",
             "import os\n# name = 'comment'\nmy_name = 'nope'\nPACKAGE_NAME = \"flash_attn\"\n"
             "setup(name=PACKAGE_NAME, version=get_version())\n");
  EXPECT_EQ(scan_source_tree(root()).name, "flash_attn");
  write_text(root() / "setup.py", "setup(\n    name='ffbuild',\n    version=os.environ['V'])\n");
  EXPECT_EQ(scan_source_tree(root()).name, "ffbuild");
  for (const char* text : {"setup(name=compute())\n", "if name == 'x': pass\n",
                           "name = '\"unclosed\n", "name = 'bad name!'\n", "\x00\xffname='\x01'"}) {
    write_text(root() / "setup.py", text);
    EXPECT_FALSE(scan_source_tree(root()).name) << text;
  }
}

TEST_F(ScanTest, GarbageMetadataLeavesTheFieldsUnknown) {
  write_text(root() / "PKG-INFO", std::string("\x00\xff\xfeName\x01: \x02\n", 12));
  write_text(root() / "pyproject.toml", "[project\nname = ");
  SourceScan scan = scan_source_tree(root());
  EXPECT_FALSE(scan.name);
  EXPECT_FALSE(scan.version);

  write_text(root() / "PKG-INFO", "Name: bad name with spaces\nVersion: 1.0\x07\n");
  write_text(root() / "pyproject.toml", "[project]\nname = 3\ndynamic = [\"version\"]\n");
  scan = scan_source_tree(root());
  EXPECT_FALSE(scan.name);
  EXPECT_FALSE(scan.version);

  // A missing tree is not an error: nothing is found.
  SourceScan missing = scan_source_tree(root() / "nope");
  EXPECT_EQ(missing.cuda_files, 0u);
  EXPECT_FALSE(missing.has_setup_py);
}

}  // namespace
}  // namespace flashfit::build
