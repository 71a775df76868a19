// The build gate's words (build/gate.*): what the supervisor writes parses
// back to the same program and argv; anything else is a usage error; the
// program is found as the build's spawn would find it, or not at all (the
// build is then spawned ungated and reports the missing program as before).
#include "build/gate.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "../temp_dir.hpp"

namespace flashfit::build {
namespace {

TEST(GateCall, TheSupervisorsArgvParsesBack) {
  const std::vector<std::string> build = {"python3", "-m", "pip", "wheel", "--", "-x", ""};
  const auto argv = gate_argv("/proc/self/exe", "/usr/bin/python3", build);
  ASSERT_GE(argv.size(), 4u);
  EXPECT_EQ(argv[0], "/proc/self/exe");
  EXPECT_EQ(argv[1], kGateCommand);
  const auto call = parse_gate_call(std::vector<std::string>(argv.begin() + 2, argv.end()));
  ASSERT_TRUE(call) << call.error().message;
  EXPECT_EQ(call->program, "/usr/bin/python3");
  EXPECT_EQ(call->argv, build);  // a "--" and empty words of the build's own stay its
}

TEST(GateCall, BadWordsAreUsageErrors) {
  const std::vector<std::vector<std::string>> bad = {
      {}, {"/bin/true"}, {"/bin/true", "--"}, {"/bin/true", "true"}, {"", "--", "true"},
  };
  for (const auto& words : bad) {
    const auto call = parse_gate_call(words);
    ASSERT_FALSE(call) << words.size();
    EXPECT_EQ(call.error().kind, util::ErrorKind::usage);
  }
}

TEST(GateProgram, FoundAsTheSpawnWouldFindIt) {
  test::TempDir dir("gate-test");
  const auto tool = dir.path() / "bin" / "buildtool";
  std::filesystem::create_directories(tool.parent_path());
  std::ofstream(tool) << "#!/bin/sh\n";
  ::chmod(tool.c_str(), 0755);
  const auto plain = dir.path() / "bin" / "notes.txt";
  std::ofstream(plain) << "not a program\n";

  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path != nullptr ? old_path : "";
  ::setenv("PATH", (dir.path() / "bin").c_str(), 1);
  EXPECT_EQ(gate_program("buildtool", std::nullopt), tool);  // on PATH
  EXPECT_FALSE(gate_program("notes.txt", std::nullopt));     // not executable
  EXPECT_FALSE(gate_program("missing", std::nullopt));
  // A relative PATH entry is the build's cwd's for posix_spawnp, not ours:
  // not gated (spawned as before).
  {
    test::InDirectory here(dir.path());
    ::setenv("PATH", "bin", 1);
    EXPECT_FALSE(gate_program("buildtool", dir.path()));
  }
  ::setenv("PATH", saved.c_str(), 1);

  EXPECT_EQ(gate_program(tool.string(), std::nullopt), tool);  // absolute
  // Relative with a '/': from the build's cwd, and kept relative (the gate
  // runs there).
  EXPECT_EQ(gate_program("bin/buildtool", dir.path()), std::filesystem::path("bin/buildtool"));
  EXPECT_FALSE(gate_program("bin/buildtool", dir.path() / "bin"));
  EXPECT_FALSE(gate_program("", std::nullopt));
}

}  // namespace
}  // namespace flashfit::build
