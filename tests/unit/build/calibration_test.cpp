// The calibration run: the real nvcc compiles the fixed unit once (a few CPU
// seconds; skipped without nvcc), the figure is cached by nvcc version and
// CPU, a damaged cache entry is measured again, and a broken nvcc is an error.
#include "build/calibration.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "../temp_dir.hpp"
#include "util/process.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::optional<fs::path> local_nvcc() {
  for (const char* candidate :
       {"/usr/local/cuda/bin/nvcc", "/usr/local/bin/nvcc", "/usr/bin/nvcc"}) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return fs::path(candidate);
  }
  return std::nullopt;
}

TEST(Calibration, CompilesOnceThenReadsTheCache) {
  const auto nvcc = local_nvcc();
  if (!nvcc) GTEST_SKIP() << "no nvcc here";
  test::TempDir cache("calibration");
  EXPECT_FALSE(cached_calibration(cache.path(), "13.0.88"));
  auto first = calibrate(*nvcc, "13.0.88", cache.path());
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE(first->cached);
  EXPECT_GT(first->cpu_seconds, 0.1);  // nvcc's cicc and ptxas did real work
  EXPECT_EQ(first->cpu, describe_cpu());
  EXPECT_FALSE(fs::exists(cache.path() / "tmp" / ("calibration-" + std::to_string(::getpid()))));

  auto again = calibrate(*nvcc, "13.0.88", cache.path());
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->cached);
  EXPECT_DOUBLE_EQ(again->cpu_seconds, first->cpu_seconds);
  // Another nvcc version is another entry.
  EXPECT_FALSE(cached_calibration(cache.path(), "12.8.93"));

  // A damaged or foreign entry is not believed.
  const fs::path file = calibration_cache_file(cache.path(), "13.0.88", describe_cpu());
  for (const char* garbage : {"13.0.88 other cpu\n2.5\n", "", "nonsense", "13.0.88 x\n-1\n"}) {
    std::ofstream(file) << garbage;
    EXPECT_FALSE(cached_calibration(cache.path(), "13.0.88")) << garbage;
  }
  std::ofstream(file) << "13.0.88 " << describe_cpu() << "\nNaN\n";
  EXPECT_FALSE(cached_calibration(cache.path(), "13.0.88"));
}

TEST(Calibration, ANvccThatFailsIsAnErrorWithItsLastLine) {
  test::TempDir dir("calibration");
  const fs::path fake = dir.path() / "nvcc";
  std::ofstream(fake)
      << "#!/bin/sh\necho 'nvcc fatal   : Unsupported gpu architecture' >&2\nexit 1\n";
  fs::permissions(fake, fs::perms::owner_all);
  auto result = calibrate(fake, "0.1", dir.path());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, util::ErrorKind::failed);
  EXPECT_THAT(result.error().message,
              HasSubstr("could not compile the calibration unit (exited with status 1)"));
  EXPECT_THAT(result.error().message, HasSubstr("Unsupported gpu architecture"));
  EXPECT_FALSE(cached_calibration(dir.path(), "0.1"));  // failures are not cached
}

TEST(Calibration, DescribesTheCpu) {
  EXPECT_THAT(describe_cpu(), ::testing::MatchesRegex(".+ x [0-9]+"));
  EXPECT_NE(calibration_cache_file("/c", "13.0", "a"), calibration_cache_file("/c", "13.0", "b"));
  EXPECT_EQ(calibration_cache_file("/c", "13.0", "a").parent_path(), fs::path("/c/calibration"));
}

}  // namespace
}  // namespace flashfit::build
