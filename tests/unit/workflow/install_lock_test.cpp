// install --lock's pure parts: what a lock needs before anything is
// installed, and the installer's run over its lines.
#include "workflow/install_lock.hpp"

#include <gtest/gtest.h>

#include <string>

namespace flashfit::workflow {
namespace {

ParsedLock lock_with(std::optional<std::string> compiled_hash,
                     std::optional<std::string> installer_hash) {
  ParsedLock lock;
  lock.document.flashfit.push_back(
      {"flash-attn", "2.8.3",
       "https://h/flash_attn-2.8.3%2Bcu12torch2.8cxx11abiTRUE-cp311-cp311-linux_x86_64.whl",
       std::move(compiled_hash), "flashfit"});
  lock.flashfit_where.push_back("lock.txt:12");
  lock.document.installer.push_back(
      {"numpy", "2.1.0", "https://h/numpy.whl", std::string(64, 'b'), "installer"});
  lock.installer_where.push_back("lock.txt:16");
  lock.document.installer.push_back(
      {"six", "1.16", "file:///w/six.whl", std::move(installer_hash), "installer"});
  lock.installer_where.push_back("lock.txt:18");
  return lock;
}

TEST(InstallLock, EveryInstallerLineNeedsItsHash) {
  auto ok = check_installable(lock_with(std::string(64, 'a'), std::string(64, 'c')));
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->empty());
  auto refused = check_installable(lock_with(std::string(64, 'a'), std::nullopt));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, util::ErrorKind::input);
  EXPECT_EQ(refused.error().context, "lock.txt:18");
  EXPECT_NE(refused.error().message.find("six has no --hash"), std::string::npos);
}

TEST(InstallLock, CompiledLinesWithoutAHashAreNamed) {
  auto unchecked = check_installable(lock_with(std::nullopt, std::string(64, 'c')));
  ASSERT_TRUE(unchecked);
  EXPECT_EQ(*unchecked, std::vector<std::string>{"flash-attn"});
}

// A lock whose installer lines install another torch than its header names
// was written for one torch and would leave another.
TEST(InstallLock, AnInstallerLineMayNotChangeTheHeadersTorch) {
  ParsedLock lock = lock_with(std::string(64, 'a'), std::string(64, 'c'));
  lock.document.key.torch = "1.13.0a0";
  lock.document.installer.push_back(
      {"torch", "9.9", "https://h/torch-9.9-py3-none-any.whl", std::string(64, 'd'), "installer"});
  lock.installer_where.push_back("lock.txt:20");
  auto refused = check_installable(lock);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, util::ErrorKind::input);
  EXPECT_EQ(refused.error().context, "lock.txt:20");
  EXPECT_EQ(refused.error().message,
            "the lock's installer lines change torch (1.13.0a0 -> 9.9): its header names the "
            "torch it was locked for");
  // The file name decides, not the comment above the line.
  lock.document.installer.back().version = "1.13.0a0";
  EXPECT_FALSE(check_installable(lock));
  // The header's own torch is installable.
  lock.document.installer.back().url = "https://h/torch-1.13.0a0-py3-none-any.whl";
  EXPECT_TRUE(check_installable(lock));
  // Not a wheel: the comment's version, and none is a torch the header cannot promise.
  lock.document.installer.back().url = "https://h/torch-1.13.0a0.tar.gz";
  EXPECT_TRUE(check_installable(lock));
  lock.document.installer.back().version.clear();
  refused = check_installable(lock);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("(1.13.0a0 -> an unknown version)"), std::string::npos);
}

// A compiled line's URL is the file install judges: one that is no wheel, or
// another project's wheel, is refused before anything is installed.
TEST(InstallLock, ACompiledLineMustNameAWheelOfItsOwnProject) {
  ParsedLock lock = lock_with(std::string(64, 'a'), std::string(64, 'c'));
  lock.document.flashfit.front().url = "file:///x/dep-1.0-py3-none-any.whl";
  auto refused = check_installable(lock);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, util::ErrorKind::input);
  EXPECT_EQ(refused.error().context, "lock.txt:12");
  EXPECT_EQ(refused.error().message,
            "flash-attn's URL names a wheel of another project (dep: dep-1.0-py3-none-any.whl)");
  lock.document.flashfit.front().url = "https://h/flash_attn-2.8.3.tar.gz";
  refused = check_installable(lock);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().context, "lock.txt:12");
  EXPECT_NE(refused.error().message.find(
                "flash-attn's URL does not name a wheel ('flash_attn-2.8.3.tar.gz': "),
            std::string::npos)
      << refused.error().message;
  // The project's own wheel, its name spelt as the file spells it.
  lock.document.flashfit.front().url = "https://h/Flash.Attn-2.8.3-cp311-cp311-linux_x86_64.whl";
  EXPECT_TRUE(check_installable(lock));
}

TEST(InstallLock, TheInstallersLinesWithTheirHashesInOneRun) {
  const ParsedLock lock = lock_with(std::string(64, 'a'), std::string(64, 'c'));
  EXPECT_EQ(locked_lines_text(lock),
            "numpy @ https://h/numpy.whl --hash=sha256:" + std::string(64, 'b') +
                "\nsix @ file:///w/six.whl --hash=sha256:" + std::string(64, 'c') + "\n");
  install::Installer pip{
      install::InstallerKind::pip, "/v/bin/python", {"/v/bin/python", "-m", "pip"}, "pip 23.0"};
  EXPECT_EQ(locked_lines_argv(pip, "/t/r.txt"),
            (std::vector<std::string>{"/v/bin/python", "-m", "pip", "install",
                                      "--disable-pip-version-check", "--no-input",
                                      "--require-hashes", "--no-deps", "-r", "/t/r.txt"}));
  install::Installer uv{
      install::InstallerKind::uv, "/v/bin/python", {"/usr/bin/uv", "pip"}, "uv 0.8"};
  EXPECT_EQ(locked_lines_argv(uv, "/t/r.txt"),
            (std::vector<std::string>{"/usr/bin/uv", "pip", "install", "--python", "/v/bin/python",
                                      "--require-hashes", "--no-deps", "-r", "/t/r.txt"}));
}

}  // namespace
}  // namespace flashfit::workflow
