// Environment::marker_environment: the PEP 508 markers of the machine the
// what-if flags describe, as install -r and lock evaluate recipe lines.
#include <gtest/gtest.h>

#include "env/environment.hpp"
#include "pkg/marker.hpp"

namespace flashfit::env {
namespace {

// An environment whose interpreter is a CPython 3.11.2 on x86_64 Linux.
Environment with_interpreter() {
  Interpreter interpreter;
  interpreter.executable = "/usr/bin/python3";
  interpreter.markers.python_version = "3.11";
  interpreter.markers.python_full_version = "3.11.2";
  interpreter.markers.implementation_version = "3.11.2";
  interpreter.markers.platform_machine = "x86_64";
  interpreter.markers.platform_release = "6.1.0-18-amd64";
  interpreter.markers.sys_platform = "linux";
  Environment env;
  env.python.interpreter = Fact<Interpreter>::of(interpreter, "--python");
  env.python.version = Fact<MajorMinor>::of(MajorMinor{3, 11}, "--python");
  env.machine.arch = Fact<std::string>::of("x86_64", "uname");
  return env;
}

TEST(MarkerEnvironment, TheInterpretersOwnWithoutFlags) {
  const auto described = with_interpreter().marker_environment();
  EXPECT_EQ(described.python_version, "3.11");
  EXPECT_EQ(described.python_full_version, "3.11.2");
  EXPECT_EQ(described.platform_machine, "x86_64");
  EXPECT_EQ(described.platform_release, "6.1.0-18-amd64");
}

TEST(MarkerEnvironment, WhatIfFlagsDescribeAnotherPythonAndMachine) {
  WhatIfOptions o;
  o.python_version = "3.10";
  o.arch = "aarch64";
  auto what_if = parse_what_if(o);
  ASSERT_TRUE(what_if) << what_if.error().message;
  Environment env = with_interpreter();
  apply_what_if(env, *what_if);
  const auto described = env.marker_environment();
  EXPECT_EQ(described.python_version, "3.10");
  // Only 3.10 is known: the interpreter's 3.11.2 is not the described Python's.
  EXPECT_EQ(described.python_full_version, std::nullopt);
  EXPECT_EQ(described.implementation_version, std::nullopt);
  EXPECT_EQ(described.platform_machine, "aarch64");
  EXPECT_EQ(described.platform_release, std::nullopt);
  EXPECT_EQ(described.sys_platform, "linux");
  // A marker on the described Python's version reads the flag's value...
  auto marker = pkg::Marker::parse("python_version < \"3.11\" and platform_machine == \"aarch64\"");
  ASSERT_TRUE(marker);
  EXPECT_EQ(marker->evaluate(described).value_or(false), true);
  // ...and one on what no flag gives is not evaluated as if it were known.
  auto full = pkg::Marker::parse("python_full_version >= \"3.10.4\"");
  ASSERT_TRUE(full);
  EXPECT_FALSE(full->evaluate(described).has_value());
}

}  // namespace
}  // namespace flashfit::env
