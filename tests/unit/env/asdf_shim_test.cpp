// env::resolve_asdf_shim on asdf trees laid out as asdf leaves them, the shim
// in each of asdf's two templates (the bash line up to 0.15, the Go line from
// 0.16: internal/shims/shims.go's encode()). asdf itself is not installed
// here; the rules are checked against both lines' sources (docs/resolve.md).
#include "env/asdf_shim.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "../temp_dir.hpp"

namespace fs = std::filesystem;
using namespace flashfit::env;
using flashfit::test::TempDir;
using flashfit::test::write;
using flashfit::test::write_executable;

namespace {

// ~/.asdf after `asdf plugin add python`, two `asdf install python ...` and
// a reshim; `asdf` itself and a system python3 in a bin directory on PATH
// after the shims (as asdf's setup puts them); a project two levels down
// in $HOME.
struct FakeAsdf {
  TempDir dir{"asdf"};
  fs::path home = dir.path() / "home";
  fs::path data = home / ".asdf";
  fs::path shim = data / "shims" / "python3";
  fs::path system_bin = dir.path() / "usr-bin";
  fs::path project = home / "work" / "project" / "sub";

  static std::string go_shim() {
    return "#!/usr/bin/env bash\n# asdf-plugin: python 3.11.7\n# asdf-plugin: python 3.12.1\n"
           "exec asdf exec \"python3\" \"$@\"";
  }
  std::string bash_shim() const {
    return "#!/usr/bin/env bash\n# asdf-plugin: python 3.11.7\n# asdf-plugin: python 3.12.1\n"
           "exec " +
           data.string() + "/bin/asdf exec \"python3\" \"$@\" # asdf_allow: ' asdf '\n";
  }

  FakeAsdf() {
    write_executable(shim, go_shim());
    write_executable(data / "bin" / "asdf", "#!/bin/sh\n");  // the bash line's own
    write(data / "defaults", "legacy_version_file = no\nconcurrency = auto\n");
    write_executable(data / "plugins" / "python" / "bin" / "install", "#!/bin/sh\n");
    for (const char* v : {"3.11.7", "3.12.1"}) {
      write_executable(version(v), "#!/bin/sh\n");
    }
    write_executable(system_bin / "python3", "#!/bin/sh\n");
    write_executable(system_bin / "asdf", "#!/bin/sh\n");
    fs::create_directories(project);
  }

  AsdfInputs inputs() const {
    AsdfInputs in;
    in.home = home.string();
    in.path = (data / "shims").string() + ":" + system_bin.string() + ":/usr/bin:/bin";
    in.cwd = project;
    return in;
  }
  fs::path version(const std::string& v) const {
    return data / "installs" / "python" / v / "bin" / "python3";
  }
};

}  // namespace

TEST(AsdfShim, NearestToolVersionsUpTheTree) {
  FakeAsdf t;
  write(t.home / ".tool-versions", "nodejs 20.1.0\npython 3.12.1\n");
  EXPECT_EQ(resolve_asdf_shim(t.shim, t.inputs()), t.version("3.12.1"));
  // A file up the tree that names python wins; one that does not is passed.
  write(t.home / "work" / ".tool-versions", "# pinned\npython 3.11.7 # the CI's\n");
  write(t.project / ".tool-versions", "nodejs 20.1.0\n");
  EXPECT_EQ(resolve_asdf_shim(t.shim, t.inputs()), t.version("3.11.7"));
  // Outside $HOME only asdf 0.16.1 on falls back to $HOME/.tool-versions.
  auto in = t.inputs();
  in.cwd = t.dir.path();
  EXPECT_EQ(resolve_asdf_shim(t.shim, in), std::nullopt);
}

TEST(AsdfShim, BothTemplatesAreRead) {
  FakeAsdf t;
  write(t.project / ".tool-versions", "python 3.11.7\n");
  write_executable(t.shim, t.bash_shim());
  EXPECT_EQ(resolve_asdf_shim(t.shim, t.inputs()), t.version("3.11.7"));
  write_executable(t.shim, FakeAsdf::go_shim() + "\n");
  EXPECT_EQ(resolve_asdf_shim(t.shim, t.inputs()), t.version("3.11.7"));
}

TEST(AsdfShim, TheVariableBeatsFilesAndVersionsNotInstalledAreSkipped) {
  FakeAsdf t;
  write(t.project / ".tool-versions", "python 3.11.7\n");
  auto in = t.inputs();
  in.python_version = "3.10.0  3.12.1";  // 3.10.0: not in the shim, not installed
  EXPECT_EQ(resolve_asdf_shim(t.shim, in), t.version("3.12.1"));
  in.python_version = "system";
  EXPECT_EQ(resolve_asdf_shim(t.shim, in), t.system_bin / "python3");
  write(t.project / ".tool-versions", "python 3.9.1 system\n");
  EXPECT_EQ(resolve_asdf_shim(t.shim, t.inputs()), t.system_bin / "python3");
}

TEST(AsdfShim, DataDirFromTheEnvironment) {
  FakeAsdf t;
  const fs::path moved = t.dir.path() / "asdf-data";
  fs::rename(t.data, moved);
  write(t.project / ".tool-versions", "python 3.12.1\n");
  auto in = t.inputs();
  in.data_dir = moved.string();
  EXPECT_EQ(resolve_asdf_shim(moved / "shims" / "python3", in),
            moved / "installs" / "python" / "3.12.1" / "bin" / "python3");
  // Without it, a shim outside ~/.asdf/shims is not one asdf would read.
  in.data_dir.reset();
  EXPECT_EQ(resolve_asdf_shim(moved / "shims" / "python3", in), std::nullopt);
}

TEST(AsdfShim, ConfigFilesEitherLineReads) {
  FakeAsdf t;
  write(t.project / ".tool-versions", "python 3.12.1\n");
  const auto answer = [&](const AsdfInputs& in) { return resolve_asdf_shim(t.shim, in); };
  const fs::path up_tree = t.home / "work" / ".asdfrc";
  const std::string legacy = "legacy_version_file = yes\n";
  // Harmless keys: the answer stands.
  write(up_tree, "# project\nconcurrency = 4\nlegacy_version_file = no\n");
  EXPECT_EQ(answer(t.inputs()), t.version("3.12.1"));
  // An .asdfrc up the tree (the bash line reads it first), ~/.asdfrc.
  for (const fs::path& file : {up_tree, t.home / ".asdfrc"}) {
    write(file, legacy);
    EXPECT_EQ(answer(t.inputs()), std::nullopt) << file;
    fs::remove(file);
  }
  // $ASDF_CONFIG_FILE and $ASDF_CONFIG_DEFAULT_FILE.
  write(t.dir.path() / "custom-rc", legacy);
  auto in = t.inputs();
  in.config_file = (t.dir.path() / "custom-rc").string();
  EXPECT_EQ(answer(in), std::nullopt);
  in = t.inputs();
  in.config_default_file = (t.dir.path() / "custom-rc").string();
  EXPECT_EQ(answer(in), std::nullopt);
  // The bash install's own `defaults` (next to its bin/asdf).
  write_executable(t.shim, t.bash_shim());
  EXPECT_EQ(answer(t.inputs()), t.version("3.12.1"));
  write(t.data / "defaults", legacy);
  EXPECT_EQ(answer(t.inputs()), std::nullopt);
  write(t.data / "defaults", "legacy_version_file = no\n");
  // Lines the Go line's ini reader takes otherwise, unknown keys, sections.
  for (const char* text :
       {"legacy_version_file: yes\n", "[core]\nconcurrency = 1\n",
        "\"legacy_version_file\" = yes\n", "pre_python_python3 = true\n", "concurrency = 1\r\n"}) {
    write(t.home / ".asdfrc", text);
    EXPECT_EQ(answer(t.inputs()), std::nullopt) << text;
  }
  fs::remove(t.home / ".asdfrc");
  EXPECT_EQ(answer(t.inputs()), t.version("3.12.1"));
  // A config path the Go line would expand, or resolve against elsewhere.
  for (const char* path : {"~/.asdfrc", "rc/asdfrc"}) {
    in = t.inputs();
    in.config_file = path;
    EXPECT_EQ(answer(in), std::nullopt) << path;
  }
}

TEST(AsdfShim, SystemIsWhereBothLinesLook) {
  FakeAsdf t;
  write(t.project / ".tool-versions", "python system\n");
  EXPECT_EQ(resolve_asdf_shim(t.shim, t.inputs()), t.system_bin / "python3");
  // With the shims first, the bash line's PATH starts with an empty entry: the
  // working directory, where a python3 of its own is found first.
  write_executable(t.project / "python3", "#!/bin/sh\n");
  EXPECT_EQ(resolve_asdf_shim(t.shim, t.inputs()), std::nullopt);
  fs::remove(t.project / "python3");
  // A relative entry: not settled here.
  auto in = t.inputs();
  in.path = *in.path + ":bin";
  EXPECT_EQ(resolve_asdf_shim(t.shim, in), std::nullopt);
}

TEST(AsdfShim, TheShimLineOrderOfAsdf016MustAgree) {
  FakeAsdf t;
  // Both set versions are installed; the shim lists 3.11.7 first, so asdf
  // 0.16.0-0.16.7 would run 3.11.7 where later asdf runs 3.12.1.
  write(t.project / ".tool-versions", "python 3.12.1 3.11.7\n");
  EXPECT_EQ(resolve_asdf_shim(t.shim, t.inputs()), std::nullopt);
  write(t.project / ".tool-versions", "python 3.11.7 3.12.1\n");
  EXPECT_EQ(resolve_asdf_shim(t.shim, t.inputs()), t.version("3.11.7"));
}

TEST(AsdfShim, UncertainCasesLeaveItToTheShim) {
  FakeAsdf t;
  write(t.project / ".tool-versions", "python 3.12.1\n");
  ASSERT_EQ(resolve_asdf_shim(t.shim, t.inputs()), t.version("3.12.1"));
  const auto unsure = [&](const AsdfInputs& in) { return resolve_asdf_shim(t.shim, in); };

  // Plugin callbacks that change the executable or its environment.
  for (const char* callback : {"bin/exec-env", "bin/exec-path", "bin/list-bin-paths"}) {
    const fs::path file = t.data / "plugins" / "python" / callback;
    write_executable(file, "#!/bin/sh\n");
    EXPECT_EQ(unsure(t.inputs()), std::nullopt) << callback;
    fs::remove(file);
  }
  // Hooks and legacy version files in the config; a harmless key is fine.
  write(t.home / ".asdfrc", "always_keep_download = no\nlegacy_version_file = no\n");
  EXPECT_EQ(unsure(t.inputs()), t.version("3.12.1"));
  for (const char* line : {"legacy_version_file = yes", "pre_python_python3 = export X=1",
                           "pre_asdf_exec_python3 = true", "post_asdf_install = x"}) {
    write(t.home / ".asdfrc", std::string(line) + "\n");
    EXPECT_EQ(unsure(t.inputs()), std::nullopt) << line;
  }
  fs::remove(t.home / ".asdfrc");
  // Version kinds installed elsewhere, system before a version (the two
  // lines order it differently), a prefix asdf would not expand either.
  for (const char* versions : {"path:/opt/py", "ref:v3.12.1", "system 3.12.1", "../../x"}) {
    write(t.project / ".tool-versions", std::string("python ") + versions + "\n");
    EXPECT_EQ(unsure(t.inputs()), std::nullopt) << versions;
  }
  // Lines the two asdf parsers split differently, or read twice.
  for (const char* text :
       {"python\t3.12.1\n", "python 3.12.1\r\n", "python\n", "python 3.12.1\npython 3.11.7\n",
        "  python 3.12.1\n", "python 3.12.1\xc2\xa0\n"}) {
    write(t.project / ".tool-versions", text);
    EXPECT_EQ(unsure(t.inputs()), std::nullopt) << text;
  }
  write(t.project / ".tool-versions", "python 3.12.1\n");
  // The plugin's own shims; no asdf to exec (Go template: none on PATH; bash
  // template: its path gone); no $HOME.
  fs::create_directories(t.data / "plugins" / "python" / "shims");
  EXPECT_EQ(unsure(t.inputs()), std::nullopt);
  fs::remove(t.data / "plugins" / "python" / "shims");
  fs::remove(t.system_bin / "asdf");
  EXPECT_EQ(unsure(t.inputs()), std::nullopt);
  write_executable(t.shim, t.bash_shim());
  EXPECT_EQ(unsure(t.inputs()), t.version("3.12.1"));
  fs::remove(t.data / "bin" / "asdf");
  EXPECT_EQ(unsure(t.inputs()), std::nullopt);
  write_executable(t.data / "bin" / "asdf", "#!/bin/sh\n");
  auto no_home = t.inputs();
  no_home.home.reset();
  no_home.data_dir = t.data.string();
  EXPECT_EQ(unsure(no_home), std::nullopt);
  // The version file named by a variable; a version listed but not installed.
  auto in = t.inputs();
  in.version_filename_set = true;
  EXPECT_EQ(unsure(in), std::nullopt);
  fs::remove(t.version("3.12.1"));
  EXPECT_EQ(unsure(t.inputs()), std::nullopt);
}

TEST(AsdfShim, TextAndPathsTheTwoLinesReadDifferently) {
  FakeAsdf t;
  write(t.home / ".tool-versions", "python 3.11.7\n");
  const auto answer = [&](const AsdfInputs& in) { return resolve_asdf_shim(t.shim, in); };
  ASSERT_EQ(answer(t.inputs()), t.version("3.11.7"));
  // bash reads `version|source` pairs (3.12.1 here), Go the whole token; a
  // NUL makes grep skip the file (bash goes on up the tree); Go trims U+00A0.
  for (const std::string& text : {std::string("python 3.12.1|x 3.11.7\n"),
                                  std::string("nodejs 20.1.0\0\npython 3.12.1\n", 29),
                                  std::string("\xc2\xa0python 3.12.1\n")}) {
    write(t.project / ".tool-versions", text);
    EXPECT_EQ(answer(t.inputs()), std::nullopt) << text;
  }
  fs::remove(t.project / ".tool-versions");
  auto in = t.inputs();
  for (const char* v : {"3.12.1|x", "3.12.1\xc2\xa0 3.11.7"}) {
    in.python_version = v;
    EXPECT_EQ(answer(in), std::nullopt) << v;
  }
  // Paths bash uses as written and Go cleans (or expands).
  for (const std::string& data : {t.data.string() + "/", t.data.string() + "/./",
                                  t.home.string() + "//.asdf", std::string("~/.asdf")}) {
    in = t.inputs();
    in.data_dir = data;
    EXPECT_EQ(answer(in), std::nullopt) << data;
  }
  in = t.inputs();
  in.home = t.home.string() + "/";
  EXPECT_EQ(answer(in), std::nullopt);
  // $ASDF_DIR's `defaults` (the bash line's install), a value go-ini cannot read.
  write(t.dir.path() / "asdf-dir" / "defaults", "legacy_version_file = yes\n");
  in = t.inputs();
  in.asdf_dir = (t.dir.path() / "asdf-dir").string();
  EXPECT_EQ(answer(in), std::nullopt);
  write(t.home / ".asdfrc", "concurrency = \"\"\"4\n");
  EXPECT_EQ(answer(t.inputs()), std::nullopt);
}

TEST(AsdfShim, WhatBashOrTheAsdfItRunsWouldChange) {
  FakeAsdf t;
  write(t.project / ".tool-versions", "python 3.12.1\n");
  const auto answer = [&](const AsdfInputs& in) { return resolve_asdf_shim(t.shim, in); };
  ASSERT_EQ(answer(t.inputs()), t.version("3.12.1"));
  auto in = t.inputs();
  in.bash_startup_set = true;  // BASH_ENV, BASH_FUNC_python3%%, SHELLOPTS=nounset
  EXPECT_EQ(answer(in), std::nullopt);
  in = t.inputs();
  in.path = (t.data / "shims").string() + ":" + t.system_bin.string();  // no bash
  EXPECT_EQ(answer(in), std::nullopt);
  // An `asdf` among the shims (a tool version ships one) execs itself.
  write_executable(t.data / "shims" / "asdf", FakeAsdf::go_shim());
  in = t.inputs();
  in.path = (t.data / "shims").string() + ":/usr/bin:/bin";
  EXPECT_EQ(answer(in), std::nullopt);
  fs::remove(t.data / "shims" / "asdf");
  // "/" as HOME ("//.asdf" to bash), ':' in the data directory.
  in = t.inputs();
  in.home = "/";
  in.data_dir = t.data.string();
  EXPECT_EQ(answer(in), std::nullopt);
  in = t.inputs();
  in.data_dir = t.dir.path().string() + "/a:b";
  EXPECT_EQ(answer(in), std::nullopt);
  // Versions named like a kind: bash and Go read `path`/`ref` as one.
  for (const char* v : {"path", "ref"}) {
    write_executable(t.version(v), "#!/bin/sh\n");
    write_executable(t.shim, "#!/usr/bin/env bash\n# asdf-plugin: python " + std::string(v) +
                                 "\nexec asdf exec \"python3\" \"$@\"");
    write(t.project / ".tool-versions", "python " + std::string(v) + "\n");
    EXPECT_EQ(answer(t.inputs()), std::nullopt) << v;
  }
  // $ASDF_DIR: the bash line's code comes from it; another install's is not settled.
  write_executable(t.shim, t.bash_shim());
  write(t.project / ".tool-versions", "python 3.12.1\n");
  in = t.inputs();
  in.asdf_dir = t.data.string();  // the install whose bin/asdf the shim execs
  EXPECT_EQ(answer(in), t.version("3.12.1"));
  fs::create_directories(t.dir.path() / "other-asdf");
  in.asdf_dir = (t.dir.path() / "other-asdf").string();
  EXPECT_EQ(answer(in), std::nullopt);
}

TEST(AsdfShim, BashStartupVariablesAreNoticed) {
  for (const char* name : {"BASH_ENV", "SHELLOPTS", "BASH_FUNC_python3%%"}) {
    ::setenv(name, "x", 1);
    EXPECT_TRUE(asdf_inputs_from_environment().bash_startup_set) << name;
    ::unsetenv(name);
  }
  EXPECT_FALSE(asdf_inputs_from_environment().bash_startup_set);
}

TEST(AsdfShim, NoVersionSetLeavesTheErrorToTheShim) {
  FakeAsdf t;
  EXPECT_EQ(resolve_asdf_shim(t.shim, t.inputs()), std::nullopt);
  auto in = t.inputs();
  in.home.reset();
  EXPECT_EQ(resolve_asdf_shim(t.shim, in), std::nullopt);
}

TEST(AsdfShim, OtherProgramsAreNotShims) {
  FakeAsdf t;
  write(t.project / ".tool-versions", "python 3.12.1\n");
  EXPECT_EQ(resolve_asdf_shim(t.version("3.11.7"), t.inputs()), std::nullopt);
  EXPECT_EQ(resolve_asdf_shim(t.data / "shims" / "missing", t.inputs()), std::nullopt);
  // A shim with anything asdf does not write, or for another plugin.
  for (const char* text :
       {"#!/usr/bin/env bash\n# asdf-plugin: python 3.12.1\nexport X=1\nexec asdf exec "
        "\"python3\" \"$@\"\n",
        "#!/usr/bin/env bash\n# asdf-plugin: pypy 7.3\nexec asdf exec \"python3\" \"$@\"\n",
        "#!/usr/bin/env bash\n# asdf-plugin: python 3.12.1\nexec asdf exec \"python\" \"$@\"\n",
        "#!/usr/bin/env bash\n# asdf-plugin: python 3.12.1\nexec $HOME/bin/asdf exec \"python3\" "
        "\"$@\" # asdf_allow: ' asdf '\n",
        "#!/bin/sh\n# asdf-plugin: python 3.12.1\nexec asdf exec \"python3\" \"$@\"\n"}) {
    write_executable(t.shim, text);
    EXPECT_EQ(resolve_asdf_shim(t.shim, t.inputs()), std::nullopt) << text;
  }
}
