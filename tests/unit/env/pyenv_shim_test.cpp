#include "env/pyenv_shim.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "../temp_dir.hpp"

namespace fs = std::filesystem;
using namespace flashfit::env;
using flashfit::test::TempDir;
using flashfit::test::write;
using flashfit::test::write_executable;

namespace {

// A pyenv tree as `pyenv install` and `pyenv rehash` leave it: a shim that
// names its root, versions with bin/python3, a system python3 elsewhere.
struct FakePyenv {
  TempDir dir{"pyenv"};
  fs::path root = dir.path() / "pyenv";
  fs::path shim = root / "shims" / "python3";
  fs::path system_bin = dir.path() / "usr-bin";
  fs::path project = dir.path() / "work" / "project" / "sub";

  FakePyenv() {
    write_executable(shim,
                     "#!/usr/bin/env bash\nset -e\nprogram=\"${0##*/}\"\n\nexport PYENV_ROOT=\"" +
                         root.string() + "\"\nexec \"" + root.string() +
                         "/libexec/pyenv\" exec \"$program\" \"$@\"\n");
    for (const char* v : {"3.11.7", "3.12.1"}) {
      write_executable(root / "versions" / v / "bin" / "python3", "#!/bin/sh\n");
    }
    fs::create_directories(root / "versions" / "2.7.18" / "bin");  // no python3 in it
    write_executable(system_bin / "python3", "#!/bin/sh\n");
    fs::create_directories(project);
  }

  PyenvInputs inputs() const {
    PyenvInputs in;
    in.path = (root / "shims").string() + ":" + system_bin.string();
    in.cwd = project;
    return in;
  }
  fs::path version(const std::string& v) const { return root / "versions" / v / "bin" / "python3"; }
};

}  // namespace

TEST(PyenvShim, NoVersionAnywhereIsSystemPythonOnPathWithoutTheShims) {
  FakePyenv t;
  EXPECT_EQ(resolve_pyenv_shim(t.shim, t.inputs()), t.system_bin / "python3");
}

TEST(PyenvShim, GlobalVersionFile) {
  FakePyenv t;
  write(t.root / "version", "3.12.1\n");
  EXPECT_EQ(resolve_pyenv_shim(t.shim, t.inputs()), t.version("3.12.1"));
}

TEST(PyenvShim, LocalVersionFileUpTheTreeBeatsTheGlobalOne) {
  FakePyenv t;
  write(t.root / "version", "3.12.1\n");
  write(t.dir.path() / "work" / ".python-version", "# pinned\n\n  3.11.7  extra words\n");
  EXPECT_EQ(resolve_pyenv_shim(t.shim, t.inputs()), t.version("3.11.7"));
}

TEST(PyenvShim, PyenvVersionBeatsFilesAndSkipsVersionsWithoutTheCommand) {
  FakePyenv t;
  write(t.project / ".python-version", "3.11.7\n");
  auto in = t.inputs();
  in.pyenv_version = "2.7.18:3.12.1";
  EXPECT_EQ(resolve_pyenv_shim(t.shim, in), t.version("3.12.1"));
  in.pyenv_version = "system";
  EXPECT_EQ(resolve_pyenv_shim(t.shim, in), t.system_bin / "python3");
}

TEST(PyenvShim, PyenvDirIsSearchedBeforeTheWorkingDirectory) {
  FakePyenv t;
  write(t.project / ".python-version", "3.11.7\n");
  write(t.dir.path() / "elsewhere" / ".python-version", "3.12.1\n");
  auto in = t.inputs();
  in.pyenv_dir = (t.dir.path() / "elsewhere").string();
  EXPECT_EQ(resolve_pyenv_shim(t.shim, in), t.version("3.12.1"));
}

TEST(PyenvShim, UncertainCasesLeaveItToTheShim) {
  FakePyenv t;
  auto in = t.inputs();
  in.pyenv_version = "3.11";  // pyenv would expand the prefix itself
  EXPECT_EQ(resolve_pyenv_shim(t.shim, in), std::nullopt);
  in.pyenv_version = "../../elsewhere";  // a path, checked by pyenv
  EXPECT_EQ(resolve_pyenv_shim(t.shim, in), std::nullopt);
  in.pyenv_version.reset();
  write(t.root / "pyenv.d" / "which" / "choose.bash", "PYENV_COMMAND_PATH=/x\n");
  EXPECT_EQ(resolve_pyenv_shim(t.shim, in), std::nullopt);  // a hook may choose
}

TEST(PyenvShim, WhichHooksThatOnlyActWhenNothingWasFoundAreHarmless) {
  FakePyenv t;
  write(t.root / "version", "3.11.7\n");
  const fs::path hooks = t.root / "plugins" / "pyenv-virtualenv" / "etc" / "pyenv.d" / "which";
  // pyenv-virtualenv's shape: the whole body under the not-found guard.
  write(hooks / "system-site-packages.bash",
        "# comment\nif [ ! -x \"${PYENV_COMMAND_PATH}\" ]; then\n  if [ -f x ]; then\n"
        "    PYENV_COMMAND_PATH=/elsewhere\n  fi\nfi\n");
  EXPECT_EQ(resolve_pyenv_shim(t.shim, t.inputs()), t.version("3.11.7"));
  // Code after the guard's `fi` runs whatever was found.
  write(hooks / "after.bash",
        "if [ ! -x \"${PYENV_COMMAND_PATH}\" ]; then\n  :\nfi\nPYENV_COMMAND_PATH=/elsewhere\n");
  EXPECT_EQ(resolve_pyenv_shim(t.shim, t.inputs()), std::nullopt);
  fs::remove(hooks / "after.bash");
  write(t.root / "pyenv.d" / "version-name" / "pick.bash", "PYENV_VERSION=3.12.1\n");
  EXPECT_EQ(resolve_pyenv_shim(t.shim, t.inputs()), std::nullopt);
}

TEST(PyenvShim, NoInterpreterAnywhereLeavesTheErrorToTheShim) {
  FakePyenv t;
  fs::remove(t.system_bin / "python3");
  auto in = t.inputs();
  in.pyenv_version = "2.7.18";
  EXPECT_EQ(resolve_pyenv_shim(t.shim, in), std::nullopt);
}

TEST(PyenvShim, OtherProgramsAreNotShims) {
  FakePyenv t;
  EXPECT_EQ(resolve_pyenv_shim(t.version("3.11.7"), t.inputs()), std::nullopt);
  EXPECT_EQ(resolve_pyenv_shim(t.dir.path() / "missing", t.inputs()), std::nullopt);
  // The same script outside its root's shims directory (a copy elsewhere).
  fs::copy_file(t.shim, t.system_bin / "python3", fs::copy_options::overwrite_existing);
  EXPECT_EQ(resolve_pyenv_shim(t.system_bin / "python3", t.inputs()), std::nullopt);
}
