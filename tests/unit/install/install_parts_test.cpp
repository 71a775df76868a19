// The install workflow's parts against real things: Debian's python for the
// import check, real files for backups, the argv given to pip and uv.
#include <gtest/gtest.h>

#include <fstream>

#include "../temp_dir.hpp"
#include "install/import_check.hpp"
#include "install/installed.hpp"
#include "install/installer.hpp"

namespace flashfit::install {
namespace {
namespace fs = std::filesystem;

using test::write;

TEST(ModuleNames, ExtensionModulesAndTopLevelPackages) {
  EXPECT_EQ(
      module_names(
          {"flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so", "flash_attn/__init__.py",
           "flash_attn/ops/_C.abi3.so", "x-1.0.data/scripts/tool.so", "x-1.0.dist-info/RECORD"},
          {"flash_attn", "", "  hopper "}),
      (std::vector<std::string>{"flash_attn_2_cuda", "flash_attn.ops._C", "flash_attn", "hopper"}));
  EXPECT_TRUE(module_names({}, {}).empty());
}

// Issue 13 item 7: without top_level.txt (flit, hatchling, maturin wheels) the
// import check had nothing to import and still said "imports".
TEST(ModuleNames, WithoutTopLevelTxtTheTopLevelNamesComeFromThePaths) {
  EXPECT_EQ(module_names({"purepkg/__init__.py", "purepkg/sub/x.py", "nsonly/a.py", "single.py",
                          "purepkg-1.0.dist-info/METADATA", "purepkg-1.0.dist-info/RECORD",
                          "purepkg-1.0.data/scripts/tool", "purepkg-1.0.data/headers/x.h",
                          "purepkg-1.0.data/purelib/fromdata/__init__.py",
                          "purepkg-1.0.data/platlib/plat.py", "not-an-identifier/x.py", "9lives.py",
                          "README.txt"},
                         {}),
            (std::vector<std::string>{"purepkg", "nsonly", "single", "fromdata", "plat"}));
  // An empty top_level.txt is no list either; extension modules come first, once.
  EXPECT_EQ(module_names({"ext.cpython-311-x86_64-linux-gnu.so", "pkg/__init__.py"}, {"", " "}),
            (std::vector<std::string>{"ext", "pkg"}));
  // top_level.txt, when it lists something, is what setuptools says is importable.
  EXPECT_EQ(module_names({"pkg/__init__.py", "other/__init__.py"}, {"pkg"}),
            (std::vector<std::string>{"pkg"}));
  // Nothing importable (data and scripts only): empty, and install says no import was checked.
  EXPECT_TRUE(module_names({"d-1.0.data/scripts/tool", "d-1.0.dist-info/RECORD"}, {}).empty());
}

TEST(ImportCheck, ImportsTorchAndEachModuleInAFreshInterpreter) {
  auto check = check_imports({FLASHFIT_TEST_PYTHON,
                              {"json", "no_such_module_ffx"},
                              false,
                              true,
                              std::chrono::seconds{120}});
  ASSERT_TRUE(check) << check.error().message;
  EXPECT_TRUE(check->torch_ok) << check->torch_error;  // Debian's torch
  ASSERT_EQ(check->modules.size(), 2u);
  EXPECT_TRUE(check->modules[0].ok);
  EXPECT_FALSE(check->modules[1].ok);
  EXPECT_NE(check->modules[1].error.find("ModuleNotFoundError"), std::string::npos)
      << check->modules[1].error;
  EXPECT_FALSE(check->ok());
  EXPECT_EQ(check->gpu_test, "skipped: no GPU here");
  EXPECT_NE(check->first_failure().find("no_such_module_ffx"), std::string::npos);
}

TEST(ImportCheck, AnInterpreterThatCrashesIsAFailureNotAHang) {
  test::TempDir dir;
  write(dir.path() / "python", "#!/bin/sh\nkill -SEGV $$\n");
  fs::permissions(dir.path() / "python", fs::perms::owner_all);
  auto check = check_imports(
      {(dir.path() / "python").string(), {"ffinst"}, false, true, std::chrono::seconds{30}});
  ASSERT_TRUE(check);
  EXPECT_FALSE(check->ok());
  ASSERT_EQ(check->modules.size(), 1u);
  EXPECT_NE(check->modules[0].error.find("signal"), std::string::npos) << check->modules[0].error;
}

TEST(Installer, AlwaysNoDepsAndByPath) {
  Installer pip{InstallerKind::pip, "/venv/bin/python", {"/venv/bin/python", "-m", "pip"}, ""};
  auto argv = install_argv(
      pip, "/cache/flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--no-deps"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--no-index"), argv.end());
  EXPECT_EQ(argv.back(),
            "/cache/flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl");
  Installer uv{InstallerKind::uv, "/venv/bin/python", {"/usr/bin/uv", "pip"}, ""};
  auto uv_argv = install_argv(uv, "/w.whl");
  EXPECT_EQ(
      std::vector<std::string>(uv_argv.begin(), uv_argv.begin() + 5),
      (std::vector<std::string>{"/usr/bin/uv", "pip", "install", "--python", "/venv/bin/python"}));
  EXPECT_NE(std::find(uv_argv.begin(), uv_argv.end(), "--no-deps"), uv_argv.end());
  EXPECT_EQ(uninstall_argv(pip, "ffinst").back(), "ffinst");
}

TEST(Backup, RestoresEveryRecordedFileExactly) {
  test::TempDir dir;
  const fs::path site = dir.path() / "site";
  write(site / "ffinst.cpython-311-x86_64-linux-gnu.so", "old module");
  write(site / "ffinst-0.9.dist-info/METADATA", "Name: ffinst\nVersion: 0.9\n");
  write(site / "ffinst-0.9.dist-info/RECORD",
        "ffinst.cpython-311-x86_64-linux-gnu.so,sha256=x,10\nffinst-0.9.dist-info/METADATA,,\n"
        "ffinst-0.9.dist-info/RECORD,,\n../bin/ffinst-tool,,\nffinst/__pycache__/gone.pyc,,\n");
  write(dir.path() / "bin/ffinst-tool", "#!/bin/sh\n");
  auto found = find_installed({(dir.path() / "empty").string(), site.string()}, "ffinst");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->version, "0.9");
  auto backup = backup_installed(*found, dir.path() / "backup");
  ASSERT_TRUE(backup) << backup.error().message;
  EXPECT_EQ(backup->files.size(), 4u);  // the .pyc that no longer exists is skipped
  fs::remove_all(site);
  fs::remove(dir.path() / "bin/ffinst-tool");
  ASSERT_TRUE(restore_backup(*backup));
  std::ifstream in(site / "ffinst.cpython-311-x86_64-linux-gnu.so");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "old module");
  EXPECT_TRUE(fs::exists(dir.path() / "bin/ffinst-tool"));
  EXPECT_TRUE(find_installed({site.string()}, "FFINST"));
}

TEST(Backup, HostileOrMissingRecordsAreRefused) {
  test::TempDir dir;
  const fs::path site = dir.path() / "site";
  write(site / "bad-1.0.dist-info/RECORD", "/etc/passwd,,\n");
  auto bad = find_installed({site.string()}, "bad");
  ASSERT_TRUE(bad);
  auto refused = backup_installed(*bad, dir.path() / "b1");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("unsafe path"), std::string::npos);
  fs::create_directories(site / "norecord-1.0.dist-info");
  auto none = find_installed({site.string()}, "norecord");
  ASSERT_TRUE(none);
  EXPECT_FALSE(backup_installed(*none, dir.path() / "b2"));
  write(site / "garbage-1.0.dist-info/RECORD", std::string("a\0b,\"unterminated\n", 19));
  auto garbage = find_installed({site.string()}, "garbage");
  ASSERT_TRUE(garbage);
  EXPECT_FALSE(backup_installed(*garbage, dir.path() / "b3"));
  EXPECT_FALSE(find_installed({site.string()}, "absent"));
}

TEST(TreeFingerprint, ChangesWhenAFileChanges) {
  test::TempDir dir;
  write(dir.path() / "a/b.py", "x");
  auto before = tree_fingerprint(dir.path());
  EXPECT_EQ(before, tree_fingerprint(dir.path()));
  write(dir.path() / "a/b.py", "xy");
  EXPECT_NE(before, tree_fingerprint(dir.path()));
}

}  // namespace
}  // namespace flashfit::install

namespace flashfit::install {
namespace {
namespace fs = std::filesystem;

// Issue 13 item 8: distributions as importlib.metadata finds them.
TEST(FindInstalled, EggInfoDirectoriesAndFilesAsImportlibMetadataDoes) {
  test::TempDir dir;
  const fs::path site = dir.path() / "site";
  fs::create_directories(site / "torch-1.13.0a0+gitunknown.egg-info");
  std::ofstream(site / "torch-1.13.0a0+gitunknown.egg-info/PKG-INFO")
      << "Name: torch\nVersion: 1.13.0a0+gitunknown\n";
  std::ofstream(site / "Foo_Bar-2.0.egg-info") << "Name: Foo-Bar\nVersion: 2.0\n";  // a file
  fs::create_directories(site / "cryptography.egg-info");
  std::ofstream(site / "cryptography.egg-info/PKG-INFO") << "Name: cryptography\nVersion: 38.0.4\n";
  fs::create_directories(site / "both-1.0.egg-info");
  fs::create_directories(site / "both-2.0.dist-info");
  auto torch = find_installed({site.string()}, "torch");
  ASSERT_TRUE(torch);
  EXPECT_TRUE(torch->egg_info);
  EXPECT_EQ(torch->version, "1.13.0a0+gitunknown");
  auto foo = find_installed({site.string()}, "foo.bar");
  ASSERT_TRUE(foo);
  EXPECT_EQ(foo->version, "2.0");
  EXPECT_EQ(foo->dist_info, site / "Foo_Bar-2.0.egg-info");
  auto crypto = find_installed({site.string()}, "Cryptography");
  ASSERT_TRUE(crypto);
  EXPECT_EQ(crypto->version, "38.0.4");  // from PKG-INFO: the name carries none
  EXPECT_EQ(find_installed({site.string()}, "both")->version,
            "2.0");  // a dist-info wins in its site dir
  EXPECT_FALSE(find_installed({site.string()}, "numpy"));
}

}  // namespace
}  // namespace flashfit::install
