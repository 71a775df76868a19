// The CUDA driver API source of the GPU probe, used when NVML is missing or
// fails. Prototypes declared here with the driver API's real C signatures
// (cuda.h), so flashfit builds without the toolkit and runs without libcuda.

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <cstring>

#include "env/gpu_sources.hpp"
#include "util/dynamic_library.hpp"
#include "util/strings.hpp"

namespace flashfit::env::detail {
namespace {

using CuResult = int;     // CUresult: a C enum, int-sized
using CuDevice = int;     // CUdevice
using CuAttribute = int;  // CUdevice_attribute

constexpr CuResult kSuccess = 0;
constexpr CuResult kNoDevice = 100;           // CUDA_ERROR_NO_DEVICE
constexpr CuAttribute kCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr CuAttribute kCapabilityMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
constexpr int kNameBuffer = 256;

struct CudaDriver {
  const util::DynamicLibrary& lib;
  CuResult (*init)(unsigned) = lib.symbol<CuResult(unsigned)>("cuInit");
  CuResult (*driver_version)(int*) = lib.symbol<CuResult(int*)>("cuDriverGetVersion");
  CuResult (*device_count)(int*) = lib.symbol<CuResult(int*)>("cuDeviceGetCount");
  CuResult (*device_get)(CuDevice*, int) = lib.symbol<CuResult(CuDevice*, int)>("cuDeviceGet");
  CuResult (*device_name)(char*, int,
                          CuDevice) = lib.symbol<CuResult(char*, int, CuDevice)>("cuDeviceGetName");
  CuResult (*device_attribute)(int*, CuAttribute, CuDevice) =
      lib.symbol<CuResult(int*, CuAttribute, CuDevice)>("cuDeviceGetAttribute");
  CuResult (*device_memory)(std::size_t*, CuDevice) =
      lib.symbol<CuResult(std::size_t*, CuDevice)>("cuDeviceTotalMem_v2");
  CuResult (*error_name)(CuResult, const char**) =
      lib.symbol<CuResult(CuResult, const char**)>("cuGetErrorName");
  CuResult (*error_string)(CuResult, const char**) =
      lib.symbol<CuResult(CuResult, const char**)>("cuGetErrorString");

  // "cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected (CUDA error 100)"
  std::string describe(const char* call, CuResult code) const {
    const char* name = nullptr;
    const char* text = nullptr;
    if (error_name == nullptr || error_name(code, &name) != kSuccess) name = nullptr;
    if (error_string == nullptr || error_string(code, &text) != kSuccess) text = nullptr;
    std::string what;
    if (name != nullptr) what = util::printable(name);
    if (text != nullptr) what += (what.empty() ? "" : ": ") + util::printable(text);
    if (what.empty()) what = "unknown error";
    return fmt::format("{}: {} (CUDA error {})", call, what, code);
  }
};

std::string missing(const char* symbol, const std::string& library) {
  return fmt::format("{} does not export {}", library, symbol);
}

GpuDevice query_device(const CudaDriver& cuda, const std::string& library, int ordinal) {
  GpuDevice device;
  device.index = static_cast<unsigned>(ordinal);
  CuDevice handle = 0;
  const CuResult rc = cuda.device_get(&handle, ordinal);
  if (rc != kSuccess) {
    const auto why = cuda.describe("cuDeviceGet", rc);
    device.name = Fact<std::string>::unknown(why, kCudaSource);
    device.capability = Fact<ComputeCapability>::unknown(why, kCudaSource);
    device.total_memory = Fact<std::uint64_t>::unknown(why, kCudaSource);
    return device;
  }

  if (cuda.device_name == nullptr) {
    device.name = Fact<std::string>::unknown(missing("cuDeviceGetName", library), kCudaSource);
  } else {
    std::array<char, kNameBuffer> name{};
    const CuResult name_rc = cuda.device_name(name.data(), kNameBuffer, handle);
    device.name =
        name_rc == kSuccess
            ? Fact<std::string>::of(
                  util::printable(std::string(name.data(), strnlen(name.data(), kNameBuffer))),
                  kCudaSource)
            : Fact<std::string>::unknown(cuda.describe("cuDeviceGetName", name_rc), kCudaSource);
  }

  if (cuda.device_attribute == nullptr) {
    device.capability =
        Fact<ComputeCapability>::unknown(missing("cuDeviceGetAttribute", library), kCudaSource);
  } else {
    int major = -1;
    int minor = -1;
    CuResult cc_rc = cuda.device_attribute(&major, kCapabilityMajor, handle);
    if (cc_rc == kSuccess) cc_rc = cuda.device_attribute(&minor, kCapabilityMinor, handle);
    if (cc_rc != kSuccess) {
      device.capability = Fact<ComputeCapability>::unknown(
          cuda.describe("cuDeviceGetAttribute", cc_rc), kCudaSource);
    } else if (major < 1 || minor < 0 || major > 99 || minor > 9) {
      device.capability = Fact<ComputeCapability>::unknown(
          fmt::format("cuDeviceGetAttribute answered compute capability {}.{}", major, minor),
          kCudaSource);
    } else {
      device.capability = Fact<ComputeCapability>::of({major, minor}, kCudaSource);
    }
  }

  if (cuda.device_memory == nullptr) {
    device.total_memory =
        Fact<std::uint64_t>::unknown(missing("cuDeviceTotalMem_v2", library), kCudaSource);
  } else {
    std::size_t bytes = 0;
    const CuResult mem_rc = cuda.device_memory(&bytes, handle);
    device.total_memory = mem_rc == kSuccess
                              ? Fact<std::uint64_t>::of(bytes, kCudaSource)
                              : Fact<std::uint64_t>::unknown(
                                    cuda.describe("cuDeviceTotalMem_v2", mem_rc), kCudaSource);
  }
  return device;
}

// Returns whether cuInit succeeded, after which the library must stay loaded.
bool query_devices(const CudaDriver& cuda, const std::string& library, SourceReport& report) {
  auto unknown = [&](std::string why, SourceState state) {
    report.state = state;
    report.detail = why;
    report.gpus = Fact<std::vector<GpuDevice>>::unknown(std::move(why), kCudaSource);
  };
  const char* absent = cuda.init == nullptr           ? "cuInit"
                       : cuda.device_count == nullptr ? "cuDeviceGetCount"
                       : cuda.device_get == nullptr   ? "cuDeviceGet"
                                                      : nullptr;
  if (absent != nullptr) {
    unknown(missing(absent, library), SourceState::failed);
    return false;
  }
  const CuResult rc = cuda.init(0);
  if (rc == kNoDevice) {
    // The driver answered: there is nothing to list. A known-empty list, not
    // an unknown one.
    report.state = SourceState::no_device;
    report.detail = cuda.describe("cuInit", rc);
    report.gpus = Fact<std::vector<GpuDevice>>::of({}, kCudaSource);
    return false;
  }
  if (rc != kSuccess) {
    unknown(cuda.describe("cuInit", rc), SourceState::failed);
    return false;
  }

  int count = 0;
  const CuResult count_rc = cuda.device_count(&count);
  if (count_rc != kSuccess) {
    unknown(cuda.describe("cuDeviceGetCount", count_rc), SourceState::failed);
    return true;
  }
  if (count < 0 || count > 1024) {
    unknown(fmt::format("cuDeviceGetCount answered {}", count), SourceState::failed);
    return true;
  }
  std::vector<GpuDevice> devices;
  devices.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) devices.push_back(query_device(cuda, library, i));
  report.gpus = Fact<std::vector<GpuDevice>>::of(std::move(devices), kCudaSource);
  report.state = count == 0 ? SourceState::no_device : SourceState::ok;
  return true;
}

}  // namespace

SourceReport query_cuda_driver(const std::string& library, bool need_gpus) {
  SourceReport report;
  auto lib = util::DynamicLibrary::open(library);
  if (!lib) {
    const auto why = lib.error().message;
    report.state = SourceState::library_missing;
    report.detail = why;
    report.driver_cuda = Fact<pkg::CudaVersion>::unknown(why, kCudaSource);
    report.gpus = Fact<std::vector<GpuDevice>>::unknown(why, kCudaSource);
    report.notes.push_back("CUDA driver API: " + why);
    return report;
  }
  const CudaDriver cuda{*lib};

  // cuDriverGetVersion needs no cuInit, so it answers even where init fails.
  if (cuda.driver_version == nullptr) {
    report.driver_cuda =
        Fact<pkg::CudaVersion>::unknown(missing("cuDriverGetVersion", library), kCudaSource);
  } else {
    int encoded = 0;
    const CuResult rc = cuda.driver_version(&encoded);
    const auto version = rc == kSuccess ? cuda_version_from_int(encoded) : std::nullopt;
    report.driver_cuda =
        version ? Fact<pkg::CudaVersion>::of(*version, kCudaSource)
                : Fact<pkg::CudaVersion>::unknown(
                      rc != kSuccess ? cuda.describe("cuDriverGetVersion", rc)
                                     : fmt::format("cuDriverGetVersion answered {}", encoded),
                      kCudaSource);
  }

  if (!need_gpus) {
    report.state = SourceState::ok;
    report.gpus = Fact<std::vector<GpuDevice>>::unknown("not asked", kCudaSource);
    return report;
  }
  if (query_devices(cuda, library, report)) lib->keep_loaded();
  report.notes.push_back(report.gpus.known()
                             ? fmt::format("CUDA driver API: {} device(s)", report.gpus->size())
                             : "CUDA driver API: " + report.gpus.unknown_reason);
  return report;
}

}  // namespace flashfit::env::detail
