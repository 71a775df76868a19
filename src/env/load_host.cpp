#include "env/load_host.hpp"

#include <elf.h>
#include <fmt/core.h>

#include <system_error>

#include "util/strings.hpp"

namespace flashfit::env {

namespace {

std::uint16_t e_machine_for(const std::string& arch) {
  if (arch == "aarch64" || arch == "arm64") return EM_AARCH64;
  return EM_X86_64;
}

// "cpython-311" in an EXT_SUFFIX rewritten for --python-version.
std::optional<std::string> ext_suffix_for(const Interpreter& interpreter,
                                          const Fact<MajorMinor>& version) {
  if (!interpreter.ext_suffix) return std::nullopt;
  if (!version.overridden) return interpreter.ext_suffix;
  const std::string own = fmt::format("cpython-{}{}", interpreter.major, interpreter.minor);
  std::string suffix = *interpreter.ext_suffix;
  const auto at = suffix.find(own);
  if (at == std::string::npos) return std::nullopt;
  suffix.replace(at, own.size(), fmt::format("cpython-{}{}", version->major, version->minor));
  return suffix;
}

void fill_interpreter(const Environment& env, binary::LoadHost& host) {
  if (auto facts = env.tag_facts()) {
    host.tags.emplace(pkg::supported_tags(*facts));
  } else {
    host.tags_unknown_reason = env.python.interpreter.known()
                                   ? "the interpreter's tags are unknown"
                                   : env.python.interpreter.unknown_reason;
  }
  if (env.python.interpreter.known()) {
    const Interpreter& py = *env.python.interpreter;
    const std::string version =
        env.python.version.known() ? env.python.version->str() : py.version_str();
    host.interpreter = fmt::format("CPython {} ({})", version, py.executable);
    if (py.implementation != "cpython") {
      host.interpreter = fmt::format("{} {} ({})", py.implementation, version, py.executable);
    }
    host.ext_suffix = ext_suffix_for(py, env.python.version);
    if (!py.platlib.empty()) host.install_dir = py.platlib;
  } else if (env.python.version.known()) {
    host.interpreter = fmt::format("CPython {}", env.python.version->str());
  } else {
    host.interpreter = "the interpreter";
  }
}

// torch's facts, without reading its libraries: true when they are there to read.
bool fill_torch_facts(const Environment& env, binary::LoadHost& host) {
  const TorchFacts& torch = env.torch;
  host.torch_installed = torch.installed() || torch.version.overridden;
  if (torch.version_text.known()) host.torch_version = *torch.version_text;
  if (torch.version.known() && !host.torch_version) host.torch_version = torch.version->str();
  if (torch.cxx11_abi.known()) {
    host.torch_abi = *torch.cxx11_abi ? binary::CxxAbi::cxx11 : binary::CxxAbi::pre_cxx11;
  }
  if (torch.pybind11_internals_id.known()) host.torch_pybind11_id = *torch.pybind11_internals_id;
  if (!host.torch_installed) {
    host.torch_unknown_reason = torch.package_dir.unknown_reason;
    return false;
  }
  if (torch.version.overridden) {
    host.torch_unknown_reason =
        "torch is given by --torch, so its libraries are not here to check against";
    return false;
  }
  if (!torch.library_dir.known()) {
    host.torch_unknown_reason = torch.library_dir.unknown_reason;
    return false;
  }
  return true;
}

}  // namespace

void fill_torch_libraries(const Environment& env, binary::LoadHost& host) {
  if (host.torch || !fill_torch_facts(env, host)) return;
  auto libraries = binary::read_torch_libraries(*env.torch.library_dir);
  if (!libraries) {
    host.torch_unknown_reason = libraries.error().message;
    return;
  }
  libraries->version = host.torch_version;
  host.torch = std::move(*libraries);
}

namespace {

void fill_gpus(const Environment& env, binary::LoadHost& host) {
  if (env.gpu.driver_cuda.known()) {
    host.driver_cuda =
        binary::CudaVersion{env.gpu.driver_cuda->major, env.gpu.driver_cuda->minor.value_or(0)};
  }
  if (!env.gpu.gpus.known()) {
    host.gpus_unknown_reason = env.gpu.gpus.unknown_reason;
    return;
  }
  std::vector<binary::GpuTarget> gpus;
  std::vector<std::string> unreadable;
  for (const GpuDevice& device : *env.gpu.gpus) {
    if (!device.capability.known()) {
      unreadable.push_back(fmt::format("GPU {}", device.index));
      continue;
    }
    std::string label =
        env.gpu.gpus.overridden ? std::string("what-if GPU") : fmt::format("GPU {}", device.index);
    if (device.name.known() && !env.gpu.gpus.overridden)
      label += fmt::format(" ({})", *device.name);
    gpus.push_back({label, device.capability->major, device.capability->minor});
  }
  if (gpus.empty() && !unreadable.empty()) {
    host.gpus_unknown_reason =
        fmt::format("the compute capability of {} is unknown", util::join(unreadable, ", "));
    return;
  }
  host.gpus = std::move(gpus);
}

// Libraries a process already has once `import torch` ran: torch's own, and
// the nvidia-* pip packages' that torch's libraries load through their RPATH.
std::vector<binary::PreloadedDir> preloaded_dirs(const Environment& env) {
  std::vector<binary::PreloadedDir> dirs;
  if (env.torch.library_dir.known() && !env.torch.version.overridden) {
    dirs.push_back({*env.torch.library_dir, "loaded by import torch"});
  }
  if (!env.python.interpreter.known()) return dirs;
  for (const std::string& site : env.python.interpreter->site_dirs) {
    std::error_code ec;
    const std::filesystem::path nvidia = std::filesystem::path(site) / "nvidia";
    for (std::filesystem::directory_iterator it(nvidia, ec), end; !ec && it != end;
         it.increment(ec)) {
      const std::filesystem::path lib = it->path() / "lib";
      std::error_code dir_ec;
      if (std::filesystem::is_directory(lib, dir_ec)) {
        dirs.push_back({lib, fmt::format("nvidia-{} pip package, loaded by import torch",
                                         it->path().filename().string())});
      }
    }
  }
  return dirs;
}

}  // namespace

binary::LoadHost load_host_for(const Environment& env, bool read_torch_libraries) {
  binary::LoadHost host;
  if (env.machine.arch.known()) {
    host.arch = *env.machine.arch;
  } else {
    host.arch_unknown_reason = env.machine.arch.unknown_reason;
  }
  if (env.what_if.glibc) host.glibc_override = env.what_if.glibc->str();
  fill_interpreter(env, host);
  if (read_torch_libraries) {
    fill_torch_libraries(env, host);
  } else {
    fill_torch_facts(env, host);
  }
  fill_gpus(env, host);
  host.search = binary::system_library_search(e_machine_for(host.arch.value_or("x86_64")),
                                              preloaded_dirs(env));
  return host;
}

}  // namespace flashfit::env
