#include "env/environment.hpp"

#include <utility>

#include "env/driver_compat.hpp"
#include "env/interpreter_cache.hpp"
#include "env/pep668.hpp"
#include "util/files.hpp"
#include "util/verbosity.hpp"

namespace flashfit::env {
namespace {

TorchFacts torch_unknown(const std::string& reason) {
  TorchFacts t;
  t.package_dir = Fact<std::filesystem::path>::unknown(reason);
  t.version_text = Fact<std::string>::unknown(reason);
  t.version = Fact<pkg::Version>::unknown(reason);
  t.cuda = Fact<ToolkitBuild>::unknown(reason);
  t.hip = Fact<ToolkitBuild>::unknown(reason);
  t.library_dir = Fact<std::filesystem::path>::unknown(reason);
  t.cxx11_abi = Fact<bool>::unknown(reason);
  t.pybind11_internals_id = Fact<std::string>::unknown(reason);
  t.cuda_runtime_packages = Fact<std::vector<CudaRuntimePackage>>::unknown(reason);
  return t;
}

// "--python: no executable interpreter at '/x'" (no "flashfit:" prefix, no hint).
std::string reason_of(const util::Error& error) {
  return error.context.empty() ? error.message : error.context + ": " + error.message;
}

PythonFacts probe_python(const ProbeOptions& options) {
  PythonFacts python;
  if (auto uv = util::find_on_path("uv", options.path_env.value_or(""))) {
    python.uv = Fact<std::filesystem::path>::of(*uv, "PATH");
  } else {
    python.uv = Fact<std::filesystem::path>::unknown("uv is not on PATH");
  }
  auto choice = choose_interpreter(options.python_option, options.virtual_env, options.path_env);
  if (!choice) {
    python.interpreter = Fact<Interpreter>::unknown(reason_of(choice.error()));
    python.version = Fact<MajorMinor>::unknown("no interpreter");
    python.error = choice.error();
    return python;
  }
  std::optional<InterpreterCache> cache;
  if (options.cache_root) cache.emplace(*options.cache_root);
  auto interpreter = query_interpreter(*choice, cache ? &*cache : nullptr);
  if (!interpreter) {
    python.interpreter =
        Fact<Interpreter>::unknown(reason_of(interpreter.error()), choice->program);
    python.version = Fact<MajorMinor>::unknown("the interpreter could not be asked");
    python.error = interpreter.error();
    return python;
  }
  const std::string source = choice->found_by + (interpreter->from_cache ? " (cached facts)" : "");
  python.version = Fact<MajorMinor>::of(MajorMinor{interpreter->major, interpreter->minor}, source);
  python.externally_managed = externally_managed(*interpreter);
  python.interpreter = Fact<Interpreter>::of(std::move(*interpreter), source);
  return python;
}

}  // namespace

void apply_what_if(Environment& env, const WhatIf& w) {
  env.what_if = w;
  if (w.python_version) {
    env.python.version = Fact<MajorMinor>::overridden_by(*w.python_version, "--python-version");
  }
  if (w.torch) {
    // A what-if torch is not the installed one: what was read from the installed
    // torch's files does not describe it.
    const std::string reason = "not known for the what-if torch " + w.torch->str();
    env.torch = torch_unknown(reason);
    env.torch.version = Fact<pkg::Version>::overridden_by(*w.torch, "--torch");
    env.torch.version_text = Fact<std::string>::overridden_by(w.torch->str(), "--torch");
    const auto hip = hip_from_torch_label(*w.torch);
    env.torch.hip = Fact<ToolkitBuild>::overridden_by(
        hip ? ToolkitBuild::of(*hip) : ToolkitBuild::none_built(), "--torch");
    env.torch.cuda = Fact<ToolkitBuild>::unknown(reason + " (give --cuda, or a +cuXYZ label)");
    env.torch.cxx11_abi = Fact<bool>::unknown(reason + " (give --cxx11-abi)");
  }
  if (w.cuda) {
    const char* flag = w.torch && !w.cuda_explicit ? "--torch" : "--cuda";
    env.torch.cuda = Fact<ToolkitBuild>::overridden_by(
        *w.cuda ? ToolkitBuild::of((*w.cuda)->str()) : ToolkitBuild::none_built(), flag);
  }
  if (w.cxx11_abi) env.torch.cxx11_abi = Fact<bool>::overridden_by(*w.cxx11_abi, "--cxx11-abi");
  if (w.driver) {
    env.gpu.driver_version = Fact<std::string>::overridden_by(*w.driver, "--driver");
    if (auto cuda = cuda_supported_by_driver(*w.driver)) {
      env.gpu.driver_cuda = Fact<pkg::CudaVersion>::overridden_by(*cuda, "--driver");
    } else {
      env.gpu.driver_cuda = Fact<pkg::CudaVersion>::unknown(
          "driver " + *w.driver + " predates every CUDA release flashfit knows", "--driver");
    }
    if (env.gpu.presence == GpuPresence::no_driver) {
      // The machine described has a driver; what GPUs it has was not said,
      // and is not "none" (--gpu none says that).
      env.gpu.presence = GpuPresence::unknown;
      env.gpu.summary = "driver " + *w.driver + " (--driver), GPUs not given (--gpu X.Y)";
      env.gpu.gpus = Fact<std::vector<GpuDevice>>::unknown(
          "not given: --driver describes a machine with a driver; pass --gpu X.Y (or --gpu none)",
          "--driver");
    }
  }
  if (w.gpus) {
    std::vector<GpuDevice> devices;
    for (const auto& cc : *w.gpus) {
      GpuDevice device;
      device.index = static_cast<unsigned>(devices.size());
      device.name = Fact<std::string>::overridden_by("what-if GPU", "--gpu");
      device.capability =
          Fact<ComputeCapability>::overridden_by(ComputeCapability{cc.major, cc.minor}, "--gpu");
      device.total_memory = Fact<std::uint64_t>::unknown("not given", "--gpu");
      devices.push_back(std::move(device));
    }
    env.gpu.presence = devices.empty() ? GpuPresence::no_gpu : GpuPresence::gpus_found;
    env.gpu.summary = devices.empty() ? "no NVIDIA GPU (--gpu none)"
                                      : std::to_string(devices.size()) + " what-if GPU(s) (--gpu)";
    env.gpu.gpus = Fact<std::vector<GpuDevice>>::overridden_by(std::move(devices), "--gpu");
  }
  if (w.glibc) {
    env.machine.libc = Fact<LibcInfo>::overridden_by(LibcInfo{"glibc", w.glibc->str()}, "--glibc");
  }
  if (w.arch) env.machine.arch = Fact<std::string>::overridden_by(*w.arch, "--arch");
}

std::optional<pkg::InterpreterTagFacts> Environment::tag_facts() const {
  pkg::InterpreterTagFacts facts;
  if (python.interpreter.known()) {
    facts = python.interpreter->tag_facts;
  } else if (python.version.known()) {
    // pip --python-version: a CPython of that version on this platform.
    facts.implementation = "cpython";
    facts.system = "Linux";
    facts.platform = "linux-" + machine.arch.value.value_or("x86_64");
    facts.with_pymalloc = true;
    if (machine.libc.known() && machine.libc->name == "glibc") {
      if (auto v = parse_major_minor(machine.libc->version)) {
        facts.glibc = pkg::LibcVersion{v->major, v->minor};
      }
    }
  } else {
    return std::nullopt;
  }
  if (python.version.overridden) {
    facts.python_major = python.version->major;
    facts.python_minor = python.version->minor;
    facts.py_version_nodot =
        std::to_string(python.version->major) + std::to_string(python.version->minor);
  }
  if (machine.libc.overridden) {
    if (auto v = parse_major_minor(machine.libc->version)) {
      facts.glibc = pkg::LibcVersion{v->major, v->minor};
      facts.musl.reset();
    }
  }
  if (machine.arch.overridden) {
    facts.platform = "linux-" + *machine.arch;
    facts.is_32bit = false;
    facts.executable_is_armhf = false;
    facts.executable_is_i686 = false;
  }
  return facts;
}

pkg::MarkerEnvironment Environment::marker_environment() const {
  pkg::MarkerEnvironment markers;
  if (python.interpreter.known()) markers = python.interpreter->markers;
  if (python.version.overridden) {
    const std::string described =
        std::to_string(python.version->major) + "." + std::to_string(python.version->minor);
    if (markers.python_version != described) {
      markers.python_version = described;
      // The interpreter's 3.11.2 is not the described Python's full version,
      // which no flag gives.
      markers.python_full_version.reset();
      markers.implementation_version.reset();
    }
  }
  if (machine.arch.overridden && markers.platform_machine != *machine.arch) {
    markers.platform_machine = *machine.arch;
    // The kernel's release and version strings were this machine's.
    markers.platform_release.reset();
    markers.platform_version.reset();
  }
  return markers;
}

namespace {
// The steps every probe starts with; --verbose traces each with its time.
void probe_machine_and_python(Environment& env, const ProbeOptions& options) {
  {
    util::TraceSpan span("probe: machine");
    env.machine = probe_machine(options.machine);
  }
  util::TraceSpan span("probe: python");
  env.python = probe_python(options);
}
}  // namespace

Environment probe_interpreter_environment(const ProbeOptions& options) {
  Environment env;
  probe_machine_and_python(env, options);
  apply_what_if(env, options.what_if);
  return env;
}

Environment probe_environment(const ProbeOptions& options) {
  Environment env;
  probe_machine_and_python(env, options);
  if (options.what_if.torch) {
    // apply_what_if below replaces every torch fact for a what-if torch (the
    // installed one's files do not describe it): its files are not read.
    env.torch = torch_unknown("replaced by --torch");
  } else if (env.python.interpreter.known()) {
    util::TraceSpan span("probe: torch");
    std::vector<std::filesystem::path> site_dirs;
    for (const auto& dir : env.python.interpreter->site_dirs) site_dirs.emplace_back(dir);
    env.torch = probe_torch(site_dirs);
  } else {
    env.torch = torch_unknown("no interpreter to look in");
  }
  if (options.what_if.gpus && options.what_if.driver) {
    // apply_what_if below replaces every GPU fact: the driver libraries are
    // not searched for (about 50 failed opens on a machine without them).
    env.gpu.notes.emplace_back("driver and GPUs not probed: --gpu and --driver give every fact");
  } else {
    util::TraceSpan span("probe: NVIDIA driver and GPUs");
    env.gpu = probe_gpus(options.gpu);
  }
  if (options.probe_toolkit) {
    util::TraceSpan span("probe: CUDA toolkit");
    env.toolkit = probe_toolkit(options.toolkit);
  } else {
    const char* why = "not probed for this command";
    env.toolkit.nvcc = Fact<std::filesystem::path>::unknown(why);
    env.toolkit.cuda_version = Fact<NvccVersion>::unknown(why);
    env.toolkit.cuda_home = Fact<std::filesystem::path>::unknown(why);
    env.toolkit.ninja = Fact<std::filesystem::path>::unknown(why);
  }
  apply_what_if(env, options.what_if);
  return env;
}

}  // namespace flashfit::env
