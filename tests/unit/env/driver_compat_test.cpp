#include "env/driver_compat.hpp"

#include <gtest/gtest.h>

using flashfit::env::compare_driver_versions;
using flashfit::env::cuda_version_from_int;
using flashfit::env::driver_runs_cuda;
using flashfit::env::DriverSupport;
using flashfit::env::minimum_driver_for_cuda_major;
using flashfit::env::parse_driver_version;
using flashfit::env::parse_proc_driver_version;
using flashfit::pkg::CudaVersion;

namespace {

CudaVersion cuda(int major, std::optional<int> minor = std::nullopt) {
  CudaVersion v;
  v.major = major;
  v.minor = minor;
  return v;
}

}  // namespace

// Suites are named Gpu* so `ctest -R gpu` selects everything about the driver.
TEST(GpuCudaVersionInt, DecodesWhatNvmlAndTheDriverApiReport) {
  EXPECT_EQ(cuda_version_from_int(12080), cuda(12, 8));
  EXPECT_EQ(cuda_version_from_int(11040), cuda(11, 4));
  EXPECT_EQ(cuda_version_from_int(13000), cuda(13, 0));
  EXPECT_EQ(cuda_version_from_int(12090), cuda(12, 9));
  EXPECT_EQ(cuda_version_from_int(10020), cuda(10, 2));
  EXPECT_EQ(cuda_version_from_int(12080)->str(), "12.8");
}

TEST(GpuCudaVersionInt, RejectsGarbledValues) {
  EXPECT_FALSE(cuda_version_from_int(0));
  EXPECT_FALSE(cuda_version_from_int(-12080));
  EXPECT_FALSE(cuda_version_from_int(999));
  EXPECT_FALSE(cuda_version_from_int(12085));
  EXPECT_FALSE(cuda_version_from_int(100000));
  EXPECT_FALSE(cuda_version_from_int(2147483647));
}

TEST(GpuDriverVersion, ParsesAndOrders) {
  EXPECT_EQ(parse_driver_version("570.124.06"), (std::vector<int>{570, 124, 6}));
  EXPECT_EQ(parse_driver_version("580"), (std::vector<int>{580}));
  EXPECT_FALSE(parse_driver_version(""));
  EXPECT_FALSE(parse_driver_version("570..06"));
  EXPECT_FALSE(parse_driver_version("570.124.06 "));
  EXPECT_FALSE(parse_driver_version("v570"));
  EXPECT_FALSE(parse_driver_version("9999999999"));
  auto v = [](const char* s) { return *parse_driver_version(s); };
  EXPECT_LT(compare_driver_versions(v("525.60.12"), v("525.60.13")), 0);
  EXPECT_GT(compare_driver_versions(v("570.26"), v("525.60.13")), 0);
  EXPECT_EQ(compare_driver_versions(v("580"), v("580.0.0")), 0);
  EXPECT_LT(compare_driver_versions(v("450.80"), v("450.80.02")), 0);
}

TEST(GpuProcVersion, ReadsTheProprietaryAndOpenModuleLines) {
  EXPECT_EQ(*parse_proc_driver_version(
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.06  Wed Feb 26 "
                "04:19:33 UTC 2025\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"),
            "570.124.06");
  EXPECT_EQ(*parse_proc_driver_version(
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release "
                "Build  (dvs-builder@U16-I3-B03-4-3)  Thu Jul 31 21:41:54 UTC 2025\n"),
            "580.65.06");
  EXPECT_EQ(*parse_proc_driver_version(
                "NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104.05  Sat Aug 19 2023\n"),
            "535.104.05");
}

TEST(GpuProcVersion, GarbledTextIsAnErrorNotAGuess) {
  EXPECT_FALSE(parse_proc_driver_version(""));
  EXPECT_FALSE(parse_proc_driver_version("garbage\n\x01\xff\n"));
  EXPECT_FALSE(parse_proc_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n"));
  auto r = parse_proc_driver_version("GCC version: 12.2.0\n");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("NVRM"), std::string::npos);
}

TEST(GpuDriverMinimum, FollowsTheMinorVersionCompatibilityTable) {
  EXPECT_EQ(minimum_driver_for_cuda_major(11), "450.80.02");
  EXPECT_EQ(minimum_driver_for_cuda_major(12), "525.60.13");
  EXPECT_EQ(minimum_driver_for_cuda_major(13), "580");
  EXPECT_FALSE(minimum_driver_for_cuda_major(10));
  EXPECT_FALSE(minimum_driver_for_cuda_major(14));
}

TEST(GpuDriverRunsCuda, DecidesFromTheDriversCudaVersionWhenKnown) {
  const auto new_driver = std::optional<std::string>("570.124.06");
  EXPECT_EQ(driver_runs_cuda(new_driver, cuda(12, 8), cuda(12, 8)).support, DriverSupport::yes);
  EXPECT_EQ(driver_runs_cuda(new_driver, cuda(12, 8), cuda(12, 4)).support, DriverSupport::yes);
  EXPECT_EQ(driver_runs_cuda(new_driver, cuda(12, 8), cuda(11, 8)).support, DriverSupport::yes);
  EXPECT_EQ(driver_runs_cuda(new_driver, cuda(12, 8), cuda(12)).support, DriverSupport::yes);
  auto newer_minor = driver_runs_cuda(new_driver, cuda(12, 8), cuda(12, 9));
  EXPECT_EQ(newer_minor.support, DriverSupport::minor_version_compat);
  EXPECT_NE(newer_minor.reason.find("PTX"), std::string::npos);
  auto newer_major = driver_runs_cuda(new_driver, cuda(12, 8), cuda(13, 0));
  EXPECT_EQ(newer_major.support, DriverSupport::no);
  EXPECT_NE(newer_major.reason.find(">= 580"), std::string::npos) << newer_major.reason;
}

TEST(GpuDriverRunsCuda, OldDriver470) {
  const auto old_driver = std::optional<std::string>("470.82.01");
  EXPECT_EQ(driver_runs_cuda(old_driver, cuda(11, 4), cuda(12, 1)).support, DriverSupport::no);
  EXPECT_EQ(driver_runs_cuda(old_driver, cuda(11, 4), cuda(11, 8)).support,
            DriverSupport::minor_version_compat);
  EXPECT_EQ(driver_runs_cuda(old_driver, cuda(11, 4), cuda(11, 3)).support, DriverSupport::yes);
  // Without the CUDA version, the driver version against the §3 floors.
  EXPECT_EQ(driver_runs_cuda(old_driver, std::nullopt, cuda(12, 1)).support, DriverSupport::no);
  EXPECT_EQ(driver_runs_cuda(old_driver, std::nullopt, cuda(11, 8)).support, DriverSupport::yes);
}

TEST(GpuDriverRunsCuda, FallsBackToTheDriverVersionFloors) {
  auto verdict = [](const char* driver, CudaVersion build) {
    return driver_runs_cuda(std::optional<std::string>(driver), std::nullopt, build);
  };
  EXPECT_EQ(verdict("525.60.13", cuda(12, 0)).support, DriverSupport::yes);
  EXPECT_EQ(verdict("525.60.12", cuda(12, 0)).support, DriverSupport::no);
  EXPECT_EQ(verdict("450.80.02", cuda(11, 0)).support, DriverSupport::yes);
  EXPECT_EQ(verdict("450.51", cuda(11, 0)).support, DriverSupport::no);
  EXPECT_EQ(verdict("575.57.08", cuda(13, 0)).support, DriverSupport::no);
  EXPECT_EQ(verdict("580.65.06", cuda(13, 0)).support, DriverSupport::yes);
  EXPECT_NE(verdict("525.60.12", cuda(12, 0)).reason.find("525.60.13"), std::string::npos);
  EXPECT_EQ(verdict("580.65.06", cuda(10, 2)).support, DriverSupport::unknown);
  EXPECT_EQ(verdict("garbage", cuda(12, 0)).support, DriverSupport::unknown);
  EXPECT_EQ(driver_runs_cuda(std::nullopt, std::nullopt, cuda(12, 0)).support,
            DriverSupport::unknown);
}
