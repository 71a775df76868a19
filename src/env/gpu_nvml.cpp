// The NVML source of the GPU probe. The prototypes are declared here, with
// NVML's real C signatures (nvml.h), because flashfit must build without the
// NVIDIA headers and run without the library.

#include <fmt/format.h>

#include <array>
#include <cstring>

#include "env/gpu_sources.hpp"
#include "util/dynamic_library.hpp"
#include "util/strings.hpp"

namespace flashfit::env::detail {
namespace {

using NvmlReturn = int;  // nvmlReturn_t: a C enum, int-sized
struct NvmlDeviceSt;
using NvmlDevice = NvmlDeviceSt*;  // nvmlDevice_t
struct NvmlMemory {                // nvmlMemory_t (v1)
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

constexpr NvmlReturn kSuccess = 0;
constexpr NvmlReturn kDriverNotLoaded = 9;     // NVML_ERROR_DRIVER_NOT_LOADED
constexpr unsigned kDriverVersionBuffer = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
constexpr unsigned kDeviceNameBuffer = 96;     // NVML_DEVICE_NAME_V2_BUFFER_SIZE

struct Nvml {
  const util::DynamicLibrary& lib;
  NvmlReturn (*init)() = lib.symbol<NvmlReturn()>("nvmlInit_v2");
  NvmlReturn (*shutdown)() = lib.symbol<NvmlReturn()>("nvmlShutdown");
  const char* (*error_string)(NvmlReturn) = lib.symbol<const char*(NvmlReturn)>("nvmlErrorString");
  NvmlReturn (*driver_version)(char*, unsigned) =
      lib.symbol<NvmlReturn(char*, unsigned)>("nvmlSystemGetDriverVersion");
  NvmlReturn (*cuda_version_v2)(int*) =
      lib.symbol<NvmlReturn(int*)>("nvmlSystemGetCudaDriverVersion_v2");
  NvmlReturn (*cuda_version_v1)(int*) =
      lib.symbol<NvmlReturn(int*)>("nvmlSystemGetCudaDriverVersion");
  NvmlReturn (*device_count)(unsigned*) =
      lib.symbol<NvmlReturn(unsigned*)>("nvmlDeviceGetCount_v2");
  NvmlReturn (*device_handle)(unsigned, NvmlDevice*) =
      lib.symbol<NvmlReturn(unsigned, NvmlDevice*)>("nvmlDeviceGetHandleByIndex_v2");
  NvmlReturn (*device_name)(NvmlDevice, char*, unsigned) =
      lib.symbol<NvmlReturn(NvmlDevice, char*, unsigned)>("nvmlDeviceGetName");
  NvmlReturn (*device_capability)(NvmlDevice, int*, int*) =
      lib.symbol<NvmlReturn(NvmlDevice, int*, int*)>("nvmlDeviceGetCudaComputeCapability");
  NvmlReturn (*device_memory)(NvmlDevice, NvmlMemory*) =
      lib.symbol<NvmlReturn(NvmlDevice, NvmlMemory*)>("nvmlDeviceGetMemoryInfo");

  // "nvmlInit_v2: Driver Not Loaded (NVML error 9)"
  std::string describe(const char* call, NvmlReturn code) const {
    const char* text = error_string != nullptr ? error_string(code) : nullptr;
    return fmt::format("{}: {} (NVML error {})", call,
                       text != nullptr ? util::printable(text) : std::string("unknown error"),
                       code);
  }
};

std::string missing(const char* symbol, const std::string& library) {
  return fmt::format("{} does not export {}", library, symbol);
}

// Shuts NVML down when the probe leaves, and only after a successful init:
// NVML counts inits, and a stray shutdown would undo someone else's.
class NvmlSession {
 public:
  explicit NvmlSession(const Nvml& nvml) : nvml_(nvml) {}
  ~NvmlSession() {
    if (initialised_) nvml_.shutdown();
  }
  NvmlSession(const NvmlSession&) = delete;
  NvmlSession& operator=(const NvmlSession&) = delete;
  NvmlReturn start() {
    const NvmlReturn rc = nvml_.init();
    initialised_ = rc == kSuccess;
    return rc;
  }

 private:
  const Nvml& nvml_;
  bool initialised_ = false;
};

// A NUL-terminated string from a fixed buffer the library filled; a library
// that forgot the terminator cannot make us read past the buffer.
template <std::size_t N>
std::string from_buffer(const std::array<char, N>& buffer) {
  return std::string(buffer.data(), strnlen(buffer.data(), N));
}

GpuDevice query_device(const Nvml& nvml, const std::string& library, unsigned index) {
  GpuDevice device;
  device.index = index;
  NvmlDevice handle = nullptr;
  const NvmlReturn rc = nvml.device_handle(index, &handle);
  if (rc != kSuccess) {
    const auto why = nvml.describe("nvmlDeviceGetHandleByIndex_v2", rc);
    device.name = Fact<std::string>::unknown(why, kNvmlSource);
    device.capability = Fact<ComputeCapability>::unknown(why, kNvmlSource);
    device.total_memory = Fact<std::uint64_t>::unknown(why, kNvmlSource);
    return device;
  }

  if (nvml.device_name == nullptr) {
    device.name = Fact<std::string>::unknown(missing("nvmlDeviceGetName", library), kNvmlSource);
  } else {
    std::array<char, kDeviceNameBuffer> name{};
    const NvmlReturn name_rc = nvml.device_name(handle, name.data(), kDeviceNameBuffer);
    device.name =
        name_rc == kSuccess
            ? Fact<std::string>::of(util::printable(from_buffer(name)), kNvmlSource)
            : Fact<std::string>::unknown(nvml.describe("nvmlDeviceGetName", name_rc), kNvmlSource);
  }

  if (nvml.device_capability == nullptr) {
    device.capability = Fact<ComputeCapability>::unknown(
        missing("nvmlDeviceGetCudaComputeCapability", library), kNvmlSource);
  } else {
    int major = -1;
    int minor = -1;
    const NvmlReturn cc_rc = nvml.device_capability(handle, &major, &minor);
    if (cc_rc != kSuccess) {
      device.capability = Fact<ComputeCapability>::unknown(
          nvml.describe("nvmlDeviceGetCudaComputeCapability", cc_rc), kNvmlSource);
    } else if (major < 1 || minor < 0 || major > 99 || minor > 9) {
      device.capability = Fact<ComputeCapability>::unknown(
          fmt::format("nvmlDeviceGetCudaComputeCapability answered {}.{}", major, minor),
          kNvmlSource);
    } else {
      device.capability = Fact<ComputeCapability>::of({major, minor}, kNvmlSource);
    }
  }

  if (nvml.device_memory == nullptr) {
    device.total_memory =
        Fact<std::uint64_t>::unknown(missing("nvmlDeviceGetMemoryInfo", library), kNvmlSource);
  } else {
    NvmlMemory memory{};
    const NvmlReturn mem_rc = nvml.device_memory(handle, &memory);
    device.total_memory = mem_rc == kSuccess
                              ? Fact<std::uint64_t>::of(memory.total, kNvmlSource)
                              : Fact<std::uint64_t>::unknown(
                                    nvml.describe("nvmlDeviceGetMemoryInfo", mem_rc), kNvmlSource);
  }
  return device;
}

void query_system(const Nvml& nvml, const std::string& library, SourceReport& report) {
  if (nvml.driver_version == nullptr) {
    report.driver_version =
        Fact<std::string>::unknown(missing("nvmlSystemGetDriverVersion", library), kNvmlSource);
  } else {
    std::array<char, kDriverVersionBuffer> version{};
    const NvmlReturn rc = nvml.driver_version(version.data(), kDriverVersionBuffer);
    const std::string text = from_buffer(version);
    if (rc != kSuccess) {
      report.driver_version =
          Fact<std::string>::unknown(nvml.describe("nvmlSystemGetDriverVersion", rc), kNvmlSource);
    } else if (!parse_driver_version(text)) {
      report.driver_version = Fact<std::string>::unknown(
          "nvmlSystemGetDriverVersion answered '" + util::printable(text) + "'", kNvmlSource);
    } else {
      report.driver_version = Fact<std::string>::of(text, kNvmlSource);
    }
  }

  // _v2 is the documented call; the unversioned one predates it and answers
  // the same, so an older libnvidia-ml still tells us.
  const bool v2 = nvml.cuda_version_v2 != nullptr;
  const auto cuda_call = v2 ? nvml.cuda_version_v2 : nvml.cuda_version_v1;
  const char* cuda_name =
      v2 ? "nvmlSystemGetCudaDriverVersion_v2" : "nvmlSystemGetCudaDriverVersion";
  if (cuda_call == nullptr) {
    report.driver_cuda = Fact<pkg::CudaVersion>::unknown(
        missing("nvmlSystemGetCudaDriverVersion_v2", library), kNvmlSource);
  } else {
    int encoded = 0;
    const NvmlReturn rc = cuda_call(&encoded);
    const auto version = rc == kSuccess ? cuda_version_from_int(encoded) : std::nullopt;
    if (version) {
      report.driver_cuda = Fact<pkg::CudaVersion>::of(*version, kNvmlSource);
    } else {
      report.driver_cuda = Fact<pkg::CudaVersion>::unknown(
          rc != kSuccess ? nvml.describe(cuda_name, rc)
                         : fmt::format("{} answered {}", cuda_name, encoded),
          kNvmlSource);
    }
  }
}

void query_devices(const Nvml& nvml, const std::string& library, SourceReport& report) {
  if (nvml.device_count == nullptr || nvml.device_handle == nullptr) {
    report.gpus = Fact<std::vector<GpuDevice>>::unknown(
        missing(nvml.device_count == nullptr ? "nvmlDeviceGetCount_v2"
                                             : "nvmlDeviceGetHandleByIndex_v2",
                library),
        kNvmlSource);
    return;
  }
  unsigned count = 0;
  const NvmlReturn rc = nvml.device_count(&count);
  if (rc != kSuccess) {
    report.gpus = Fact<std::vector<GpuDevice>>::unknown(nvml.describe("nvmlDeviceGetCount_v2", rc),
                                                        kNvmlSource);
    return;
  }
  // More devices than any machine holds means a garbled answer; do not loop
  // over billions of indices.
  if (count > 1024) {
    report.gpus = Fact<std::vector<GpuDevice>>::unknown(
        fmt::format("nvmlDeviceGetCount_v2 answered {}", count), kNvmlSource);
    return;
  }
  std::vector<GpuDevice> devices;
  devices.reserve(count);
  for (unsigned i = 0; i < count; ++i) devices.push_back(query_device(nvml, library, i));
  report.gpus = Fact<std::vector<GpuDevice>>::of(std::move(devices), kNvmlSource);
  report.state = count == 0 ? SourceState::no_device : SourceState::ok;
}

SourceReport all_unknown(SourceState state, const std::string& why) {
  SourceReport report;
  report.state = state;
  report.detail = why;
  report.driver_version = Fact<std::string>::unknown(why, kNvmlSource);
  report.driver_cuda = Fact<pkg::CudaVersion>::unknown(why, kNvmlSource);
  report.gpus = Fact<std::vector<GpuDevice>>::unknown(why, kNvmlSource);
  report.notes.push_back("NVML: " + why);
  return report;
}

}  // namespace

SourceReport query_nvml(const std::string& library) {
  auto lib = util::DynamicLibrary::open(library);
  if (!lib) {
    return all_unknown(SourceState::library_missing, lib.error().message);
  }
  const Nvml nvml{*lib};
  if (nvml.init == nullptr || nvml.shutdown == nullptr) {
    return all_unknown(SourceState::failed,
                       missing(nvml.init == nullptr ? "nvmlInit_v2" : "nvmlShutdown", library));
  }
  NvmlSession session(nvml);
  const NvmlReturn rc = session.start();
  if (rc != kSuccess) {
    return all_unknown(
        rc == kDriverNotLoaded ? SourceState::driver_not_loaded : SourceState::failed,
        nvml.describe("nvmlInit_v2", rc));
  }
  SourceReport report;
  report.state = SourceState::failed;  // until devices are listed
  query_system(nvml, library, report);
  query_devices(nvml, library, report);
  if (!report.gpus.known()) report.detail = report.gpus.unknown_reason;
  report.notes.push_back(report.gpus.known()
                             ? fmt::format("NVML: {} device(s)", report.gpus->size())
                             : "NVML: " + report.gpus.unknown_reason);
  return report;
}

}  // namespace flashfit::env::detail
