#include "env/driver_compat.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "util/strings.hpp"

namespace flashfit::env {
namespace {

bool is_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::optional<pkg::CudaVersion> cuda_version_from_int(int encoded) {
  // 100000 would be CUDA 100: far beyond any release, so a garbled value.
  if (encoded < 1000 || encoded >= 100000 || encoded % 10 != 0) return std::nullopt;
  pkg::CudaVersion version;
  version.major = encoded / 1000;
  version.minor = (encoded % 1000) / 10;
  return version;
}

std::optional<std::vector<int>> parse_driver_version(std::string_view text) {
  std::vector<int> parts;
  for (auto part : util::split(text, '.')) {
    // Five digits per component is more than any driver uses and keeps the
    // value far from int overflow.
    if (!is_digits(part) || part.size() > 5) return std::nullopt;
    int value = 0;
    std::from_chars(part.data(), part.data() + part.size(), value);
    parts.push_back(value);
  }
  if (parts.empty()) return std::nullopt;
  return parts;
}

int compare_driver_versions(const std::vector<int>& a, const std::vector<int>& b) {
  const auto n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const int x = i < a.size() ? a[i] : 0;
    const int y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

util::Result<std::string> parse_proc_driver_version(std::string_view text) {
  constexpr std::string_view kPrefix = "NVRM version:";
  for (auto line : util::split(text, '\n')) {
    line = util::trim(line);
    if (!util::starts_with(line, kPrefix)) continue;
    // The architecture word ("x86_64", "aarch64") is never all digits and
    // dots, so the first token that is names the driver.
    for (auto token : util::split(line.substr(kPrefix.size()), ' ')) {
      token = util::trim(token);
      if (token.find('.') != std::string_view::npos && parse_driver_version(token)) {
        return std::string(token);
      }
    }
    return util::input_error("no driver version on its NVRM line: '" + util::printable(line) + "'");
  }
  return util::input_error("no 'NVRM version:' line in '" + util::printable(text, 80) + "'");
}

std::optional<std::string_view> minimum_driver_for_cuda_major(int major) {
  // docs/background.md §3 (minor-version compatibility, Linux); uv uses
  // the same floors.
  switch (major) {
    case 11:
      return "450.80.02";
    case 12:
      return "525.60.13";
    case 13:
      return "580";
    default:
      return std::nullopt;
  }
}

std::optional<pkg::CudaVersion> cuda_supported_by_driver(const std::string& driver_version) {
  // The first driver of each toolkit release (docs/background.md §3, release notes).
  static const std::pair<const char*, pkg::CudaVersion> kTable[] = {
      {"580.65.06", {13, 0}}, {"575.51.03", {12, 9}}, {"570.26", {12, 8}},
      {"560.28.03", {12, 6}}, {"555.42.02", {12, 5}}, {"550.54.14", {12, 4}},
      {"545.23.06", {12, 3}}, {"535.54.03", {12, 2}}, {"530.30.02", {12, 1}},
      {"525.60.13", {12, 0}}, {"520.61.05", {11, 8}}, {"515.43.04", {11, 7}},
      {"510.39.01", {11, 6}}, {"495.29.05", {11, 5}}, {"470.42.01", {11, 4}},
      {"465.19.01", {11, 3}}, {"460.27.03", {11, 2}}, {"455.23", {11, 1}},
      {"450.80.02", {11, 0}},
  };
  auto driver = parse_driver_version(driver_version);
  if (!driver) return std::nullopt;
  for (const auto& [first_driver, cuda] : kTable) {
    if (compare_driver_versions(*driver, *parse_driver_version(first_driver)) >= 0) return cuda;
  }
  return std::nullopt;
}

std::string_view to_string(DriverSupport support) {
  switch (support) {
    case DriverSupport::yes:
      return "yes";
    case DriverSupport::minor_version_compat:
      return "minor-version-compat";
    case DriverSupport::no:
      return "no";
    case DriverSupport::unknown:
      return "unknown";
  }
  return "unknown";
}

DriverSupportVerdict driver_runs_cuda(const std::optional<std::string>& driver_version,
                                      const std::optional<pkg::CudaVersion>& driver_cuda,
                                      const pkg::CudaVersion& build) {
  const std::string wanted = "CUDA " + build.str();
  if (driver_cuda && driver_cuda->minor) {
    const std::string has = driver_cuda->str();
    if (driver_cuda->major > build.major) {
      return {DriverSupport::yes,
              fmt::format("the driver supports CUDA {}, newer than {}", has, build.str())};
    }
    if (driver_cuda->major < build.major) {
      const auto floor = minimum_driver_for_cuda_major(build.major);
      return {DriverSupport::no,
              fmt::format("the driver supports CUDA {} only; {} builds need a CUDA {} driver{}",
                          has, wanted, build.major,
                          floor ? fmt::format(" (>= {})", *floor) : std::string())};
    }
    if (!build.minor || *build.minor <= *driver_cuda->minor) {
      return {DriverSupport::yes, fmt::format("the driver supports CUDA {}", has)};
    }
    // Minor-version compatibility (§3): the code runs, but PTX newer than the
    // driver will not JIT, so GPUs without matching SASS would fail.
    return {DriverSupport::minor_version_compat,
            fmt::format("the driver supports CUDA {}; {} builds run through minor-version "
                        "compatibility, but their PTX will not JIT on this driver",
                        has, wanted)};
  }
  if (driver_version) {
    const auto floor = minimum_driver_for_cuda_major(build.major);
    const auto have = parse_driver_version(*driver_version);
    if (!floor) {
      return {DriverSupport::unknown,
              fmt::format("no known minimum driver for CUDA {} builds", build.major)};
    }
    if (!have) {
      return {DriverSupport::unknown,
              "unreadable driver version '" + util::printable(*driver_version) + "'"};
    }
    if (compare_driver_versions(*have, *parse_driver_version(*floor)) < 0) {
      return {DriverSupport::no,
              fmt::format("driver {} is older than {}, the minimum for CUDA {}.x builds",
                          *driver_version, *floor, build.major)};
    }
    return {DriverSupport::yes, fmt::format("driver {} meets {}, the minimum for CUDA {}.x builds",
                                            *driver_version, *floor, build.major)};
  }
  return {DriverSupport::unknown, "neither the driver version nor its CUDA version is known"};
}

}  // namespace flashfit::env
