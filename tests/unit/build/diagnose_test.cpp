// The failure texts of real builds (gcc, nvcc, torch's cpp_extension, the
// kernel's OOM killer; docs/background.md §16, docs/background.md §4, §8.3)
// must each lead to their cause and fix.
#include "build/diagnose.hpp"

#include <gtest/gtest.h>

namespace flashfit::build {
namespace {

std::deque<std::string> lines(std::initializer_list<const char*> l) {
  return {l.begin(), l.end()};
}

std::string id_of(std::initializer_list<const char*> l, int signal = 0) {
  auto d = diagnose_build_failure(lines(l), signal);
  return d ? d->id : "none";
}

TEST(Diagnose, KnownFailures) {
  EXPECT_EQ(id_of({"[12/73] nvcc ...", "nvcc error   : 'cicc' died due to signal 9 (Kill signal)",
                   "ninja: build stopped: subcommand failed."}),
            "oom-killed");
  EXPECT_EQ(id_of({"g++: fatal error: Killed signal terminated program cc1plus",
                   "compilation terminated."}),
            "oom-killed");
  EXPECT_EQ(id_of({"  Killed"}), "oom-killed");
  EXPECT_EQ(id_of({"ninja: build stopped"}, 9), "oom-killed");
  EXPECT_EQ(id_of({"/usr/local/cuda/include/crt/host_config.h:143:2: error: #error -- unsupported "
                   "GNU version! gcc "
                   "versions later than 15 are not supported! The nvcc flag "
                   "'-allow-unsupported-compiler' can be used"}),
            "host-compiler");
  EXPECT_EQ(id_of({"RuntimeError: The detected CUDA version (12.3) mismatches the version that was "
                   "used to compile",
                   "PyTorch (11.7). Please make sure to use the same CUDA versions."}),
            "cuda-mismatch");
  EXPECT_EQ(id_of({"csrc/x.cpp:1:10: fatal error: Python.h: No such file or directory"}),
            "python-headers");
  EXPECT_EQ(id_of({"ModuleNotFoundError: No module named 'torch'"}), "torch-missing");
  EXPECT_EQ(id_of({"nvcc fatal   : Unsupported gpu architecture 'compute_86a'"}), "arch-token");
  EXPECT_EQ(id_of({"ValueError: Unknown CUDA arch (8.6x) or GPU not supported"}), "arch-token");
  EXPECT_EQ(id_of({"OSError: [Errno 28] No space left on device"}), "disk-full");
  EXPECT_EQ(id_of({"csrc/add.cpp:4:1: error: 'this' does not name a type"}), "compile-error");
}

TEST(Diagnose, TorchsCpuBuildNoticeIsNoFailure) {
  EXPECT_EQ(id_of({"  No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'",
                   "csrc/add.cpp:4:1: error: expected unqualified-id before 'this'"}),
            "compile-error");
}

TEST(Diagnose, WordsThatOnlyLookLikeFailures) {
  // Every compile line carries -Werror=format-security; "Killed" inside a word is not the shell's
  // report.
  EXPECT_EQ(id_of({"[1/4] c++ -Wformat -Werror=format-security -c add.cpp", "KilledBy = 3"}),
            "none");
  EXPECT_EQ(id_of({}), "none");
  EXPECT_EQ(id_of({"\x01\x02\xff garbage \xfe"}), "none");
}

TEST(Diagnose, EvidenceIsShortAndPrintable) {
  std::deque<std::string> many;
  for (int i = 0; i < 50; ++i)
    many.push_back("x.cpp:1: error: bad \x1b[31m thing " + std::to_string(i));
  auto d = diagnose_build_failure(many, 0);
  ASSERT_TRUE(d);
  EXPECT_LE(d->evidence.size(), 3u);
  for (const auto& e : d->evidence) EXPECT_EQ(e.find('\x1b'), std::string::npos) << e;
  EXPECT_FALSE(d->fix.empty());
}

TEST(Diagnose, RelevantLinesStartAtTheFirstError) {
  auto got =
      relevant_lines(lines({"[1/4] c++ -Werror=format-security a", "noise", "b.cpp:3: error: oops",
                            "after", "ninja: build stopped: subcommand failed."}),
                     10);
  ASSERT_GE(got.size(), 3u);
  EXPECT_EQ(got[0], "noise");
  EXPECT_EQ(got[1], "b.cpp:3: error: oops");
  auto tail = relevant_lines(lines({"a", "b", "c", "d"}), 2);
  EXPECT_EQ(tail, (std::vector<std::string>{"c", "d"}));
}

}  // namespace
}  // namespace flashfit::build
