#include "env/host_compiler_limits.hpp"

#include <gtest/gtest.h>

using flashfit::env::check_host_compiler;
using flashfit::env::CompilerKind;
using flashfit::env::HostCompilerVerdict;
using flashfit::env::nvcc_host_compiler_limits;

namespace {

struct Row {
  int cuda_major;
  int cuda_minor;
  std::optional<int> gcc;
  std::optional<int> clang;
};

// docs/background.md §4, row by row, including the edges of each range.
TEST(ToolkitHostCompilerLimits, TableRows) {
  const Row rows[] = {
      {11, 0, 9, 14},
      {11, 1, 10, 14},
      {11, 3, 10, 14},
      {11, 5, 11, 14},
      {11, 6, 11, 14},
      {11, 8, 11, 14},
      {12, 0, 12, 14},
      {12, 1, 12, 15},
      {12, 2, 12, 16},
      {12, 3, 12, 16},
      {12, 4, 13, 17},
      {12, 5, 13, 17},
      {12, 6, 13, 18},
      {12, 8, 14, 19},
      {12, 9, 14, 19},
      {13, 0, 15, 20},
      {13, 1, 15, std::nullopt},
      {13, 2, 15, std::nullopt},
      {13, 4, 16, std::nullopt},
  };
  for (const auto& row : rows) {
    const auto limits = nvcc_host_compiler_limits(row.cuda_major, row.cuda_minor);
    EXPECT_EQ(limits.max_gcc_major, row.gcc) << row.cuda_major << "." << row.cuda_minor;
    EXPECT_EQ(limits.max_clang_major, row.clang) << row.cuda_major << "." << row.cuda_minor;
  }
}

TEST(ToolkitHostCompilerLimits, UnrecordedToolkitsAreUnknown) {
  for (auto [major, minor] : {std::pair{10, 2}, {12, 7}, {13, 3}, {13, 5}, {14, 0}, {9, 0}}) {
    const auto limits = nvcc_host_compiler_limits(major, minor);
    EXPECT_FALSE(limits.max_gcc_major) << major << "." << minor;
    EXPECT_FALSE(limits.max_clang_major) << major << "." << minor;
  }
}

TEST(ToolkitHostCompilerLimits, Cuda114DependsOnTheUpdate) {
  EXPECT_EQ(nvcc_host_compiler_limits(11, 4).max_gcc_major, 10);  // unknown update: stricter 11.4.0
  EXPECT_EQ(nvcc_host_compiler_limits(11, 4, 48).max_gcc_major, 10);
  const auto later = nvcc_host_compiler_limits(11, 4, 120);
  EXPECT_EQ(later.max_gcc_major, 11);
  EXPECT_EQ(later.gcc_minor_below, 2);
  EXPECT_EQ(nvcc_host_compiler_limits(11, 5).gcc_minor_below, 2);
  EXPECT_EQ(nvcc_host_compiler_limits(11, 6).gcc_minor_below, std::nullopt);
}

TEST(ToolkitHostCompilerCheck, Verdicts) {
  using V = HostCompilerVerdict;
  const auto cuda130 = nvcc_host_compiler_limits(13, 0);
  EXPECT_EQ(check_host_compiler(cuda130, CompilerKind::gcc, 12, 2).verdict, V::ok);
  EXPECT_EQ(check_host_compiler(cuda130, CompilerKind::gcc, 15, 9).verdict, V::ok);
  EXPECT_EQ(check_host_compiler(cuda130, CompilerKind::gcc, 16, 0).verdict, V::too_new);
  EXPECT_EQ(check_host_compiler(cuda130, CompilerKind::clang, 20, 1).verdict, V::ok);
  EXPECT_EQ(check_host_compiler(cuda130, CompilerKind::clang, 21, 0).verdict, V::too_new);
  EXPECT_EQ(check_host_compiler(cuda130, CompilerKind::other, 1, 0).verdict, V::unknown);

  const auto cuda118 = nvcc_host_compiler_limits(11, 8);
  const auto too_new = check_host_compiler(cuda118, CompilerKind::gcc, 12, 2);
  EXPECT_EQ(too_new.verdict, V::too_new);
  EXPECT_NE(too_new.reason.find("up to 11"), std::string::npos) << too_new.reason;
  EXPECT_EQ(check_host_compiler(cuda118, CompilerKind::clang, 15, 0).verdict, V::too_new);

  const auto cuda115 = nvcc_host_compiler_limits(11, 5);
  EXPECT_EQ(check_host_compiler(cuda115, CompilerKind::gcc, 11, 1).verdict, V::ok);
  EXPECT_EQ(check_host_compiler(cuda115, CompilerKind::gcc, 11, 2).verdict, V::too_new);
  EXPECT_EQ(check_host_compiler(cuda115, CompilerKind::gcc, 10, 5).verdict, V::ok);

  const auto cuda131 = nvcc_host_compiler_limits(13, 1);
  EXPECT_EQ(check_host_compiler(cuda131, CompilerKind::clang, 14, 0).verdict, V::unknown);
  EXPECT_EQ(check_host_compiler(nvcc_host_compiler_limits(14, 0), CompilerKind::gcc, 12, 0).verdict,
            V::unknown);
}

}  // namespace
