#pragma once
// Paths of the nvcc-built fatbin fixtures (tests/fixtures/fatbin), and
// REQUIRE_NVCC() to skip, with a reason, on a machine without nvcc.

#include <gtest/gtest.h>

#include "binary/fatbin.hpp"

#ifdef FLASHFIT_FATBIN_NVCC_MISSING
#define FLASHFIT_FATBIN_DEFAULT ""
#define FLASHFIT_FATBIN_NOCOMPRESS ""
#define FLASHFIT_FATBIN_SM90A ""
#define FLASHFIT_FATBIN_TORCHLIKE ""
#define FLASHFIT_FATBIN_RDC ""
#define REQUIRE_NVCC() GTEST_SKIP() << "nvcc was not found at configure time: no fatbin fixtures"
#else
#define REQUIRE_NVCC() (void)0
#endif

namespace flashfit::binary::fixtures {

inline FatbinInfo read_ok(const char* path) {
  auto info = read_fatbins(path);
  EXPECT_TRUE(info.has_value()) << (info ? "" : info.error().message);
  return info ? *info : FatbinInfo{};
}

}  // namespace flashfit::binary::fixtures
