#include "env/findings.hpp"

#include <fmt/core.h>

#include "env/driver_compat.hpp"
#include "env/torch_releases.hpp"
#include "util/strings.hpp"

namespace flashfit::env {
namespace {

// One nvcc compile of a FlashAttention-2 kernel peaks at 5-8 GB (docs/background.md §11).
constexpr std::uint64_t kBuildMemoryFloor = std::uint64_t{8} << 30;

// The PyTorch CUDA indexes, newest first (docs/background.md §8.1).
struct TorchIndex {
  int major, minor;
  const char* tag;
};
constexpr TorchIndex kTorchIndexes[] = {{13, 0, "cu130"}, {12, 9, "cu129"}, {12, 8, "cu128"},
                                        {12, 6, "cu126"}, {12, 4, "cu124"}, {12, 1, "cu121"},
                                        {11, 8, "cu118"}};

// The probed interpreter's pip, quoted for a shell; under PEP 668 (pip
// refuses outside a venv) a venv on it first, as resolve's advice does.
std::string python_command(const Environment& env) {
  // What-if flags describe another machine: its pip, not this interpreter's.
  if (env.what_if.any()) return "(on the machine described) python3 -m pip";
  if (!env.python.interpreter.known()) return "python3 -m pip";
  const std::string python = util::shell_quote(env.python.interpreter->executable);
  if (env.python.externally_managed)
    return python + " -m venv --system-site-packages .venv && .venv/bin/python -m pip";
  return python + " -m pip";
}

// What the driver runs (nullopt: not known); a driver known only by its
// major ("12.x") runs every minor of it.
std::optional<MajorMinor> driver_runs(const Environment& env) {
  if (!env.gpu.driver_cuda.known()) return std::nullopt;
  return MajorMinor{env.gpu.driver_cuda->major, env.gpu.driver_cuda->minor.value_or(99)};
}

// The command that installs the CUDA build of torch nearest the one here that
// the driver runs, its version pinned with the index's label (an installed
// 2.9.1+cpu or +cu130 satisfies a bare `torch`, and pip would keep it), from
// download.pytorch.org's builds (env/torch_releases). "": none fits.
// `for_driver`: only a build the driver is known to run (else, with the
// driver's CUDA unknown, the newest build, said to be so).
std::string cuda_torch_command(const Environment& env, bool for_driver) {
  if (!env.torch.version.known() || (for_driver && !driver_runs(env))) return {};
  const auto pick = cuda_torch_for(*env.torch.version, driver_runs(env));
  if (!pick) return {};
  std::string command =
      fmt::format("(torch {}, CUDA {}) {} install {}", pick->version, pick->cuda.str(),
                  python_command(env), torch_cuda_requirement(pick->version, pick->cuda));
  if (!driver_runs(env))
    command += " (its newest CUDA build: pick one the driver supports, see nvidia-smi)";
  return command;
}

std::string install_cuda_torch_fix(const Environment& env) {
  if (env.torch.installed() || env.torch.version.overridden) {
    std::string pinned = cuda_torch_command(env, false);
    if (!pinned.empty()) return pinned;
    return "install a CUDA build of torch with its label in the version (torch==X.Y.Z+cuXYZ "
           "--index-url https://download.pytorch.org/whl/cuXYZ: a bare `torch` keeps the CPU "
           "build installed), from https://pytorch.org/get-started/previous-versions/";
  }
  const auto index = torch_index_for_driver(env.gpu.driver_cuda.value);
  const std::string command = python_command(env) + " install torch --index-url ";
  if (index) return command + *index;
  return command +
         "https://download.pytorch.org/whl/cu128 (pick the cuXYZ index whose CUDA "
         "version the driver supports: see nvidia-smi)";
}

std::optional<pkg::CudaVersion> torch_cuda(const Environment& env) {
  if (!env.torch.cuda.known() || env.torch.cuda->none()) return std::nullopt;
  if (auto mm = parse_major_minor(*env.torch.cuda->version)) {
    return pkg::CudaVersion{mm->major, mm->minor};
  }
  return std::nullopt;
}

// The newest GCC this nvcc surely accepts. The fix names a GCC even when the
// rejected compiler is clang (host_compiler_max_major is then clang's limit,
// and "g++-19" does not exist): torch builds extensions with GCC by default.
std::optional<int> accepted_gcc_major(const ToolkitFacts& toolkit) {
  if (!toolkit.cuda_version.known()) return std::nullopt;
  const auto& nvcc = *toolkit.cuda_version;
  const auto limits = nvcc_host_compiler_limits(nvcc.major, nvcc.minor, nvcc.build);
  if (!limits.max_gcc_major) return std::nullopt;
  // "GCC 11 only below 11.2": the g++-11 that distributions ship is newer, so one major down.
  return limits.gcc_minor_below ? *limits.max_gcc_major - 1 : *limits.max_gcc_major;
}

bool torch_present(const Environment& env) {
  return env.torch.installed() || env.torch.version.overridden;
}

void check_python(const Environment& env, std::vector<Finding>& out) {
  if (!env.python.interpreter.known() && env.python.version.known()) {
    out.push_back(
        {"no-interpreter", Severity::note,
         "no Python interpreter could be asked (" + env.python.interpreter.unknown_reason +
             "); Python facts come from --python-version alone, and torch was not looked for",
         "pass --python /path/to/python to probe a real interpreter and its torch"});
    return;
  }
  if (!env.python.interpreter.known() && !env.python.version.known()) {
    out.push_back({"no-interpreter", Severity::problem,
                   "no Python interpreter could be asked: " + env.python.interpreter.unknown_reason,
                   "pass --python /path/to/python, or activate the virtual environment"});
    return;
  }
  if (env.python.interpreter.known() && !env.python.interpreter->has_pip &&
      !env.python.uv.known()) {
    out.push_back(
        {"no-installer", Severity::warning,
         "neither pip (for " + env.python.interpreter->executable + ") nor uv is available",
         env.python.interpreter->executable + " -m ensurepip, or install uv"});
  }
}

void check_torch(const Environment& env, std::vector<Finding>& out) {
  if (!torch_present(env)) {
    if (env.python.interpreter.known()) {
      out.push_back({"no-torch", Severity::problem,
                     "torch is not installed for " + env.python.interpreter->executable,
                     install_cuda_torch_fix(env)});
    }
    return;
  }
  if (env.torch.hip.known() && !env.torch.hip->none()) {
    out.push_back({"rocm-torch", Severity::note,
                   "torch is a ROCm build (HIP " + *env.torch.hip->version +
                       "); flashfit's recipes cover the CUDA wheels",
                   ""});
    return;
  }
  if (env.torch.cuda.known() && env.torch.cuda->none()) {
    out.push_back({"cpu-only-torch", Severity::problem,
                   "torch " + env.torch.version_text.value.value_or("?") +
                       " is a CPU-only build; flash-attn needs a CUDA build of torch",
                   install_cuda_torch_fix(env)});
  }
  if (env.torch.installed() && !env.torch.cxx11_abi.known()) {
    out.push_back({"torch-abi-unknown", Severity::note,
                   "torch's C++11 ABI could not be read: " + env.torch.cxx11_abi.unknown_reason,
                   "pass --cxx11-abi TRUE|FALSE if you know it"});
  }
}

void check_driver(const Environment& env, std::vector<Finding>& out) {
  const auto cuda = torch_cuda(env);
  if (!cuda || env.gpu.presence == GpuPresence::no_driver) return;
  const auto verdict =
      driver_runs_cuda(env.gpu.driver_version.value, env.gpu.driver_cuda.value, *cuda);
  const std::string older_torch = cuda_torch_command(env, true);
  const auto minimum = minimum_driver_for_cuda_major(cuda->major);
  const std::string update =
      minimum ? "update the NVIDIA driver to " + std::string(*minimum) + " or newer"
              : "update the NVIDIA driver";
  if (verdict.support == DriverSupport::no) {
    out.push_back(
        {"driver-too-old", Severity::problem,
         "torch is built for CUDA " + cuda->str() + " but " + verdict.reason,
         update +
             (older_torch.empty() ? "" : ", or install a torch the driver runs: " + older_torch)});
  } else if (verdict.support == DriverSupport::minor_version_compat) {
    out.push_back({"driver-older-minor", Severity::warning,
                   "torch is built for CUDA " + cuda->str() + "; " + verdict.reason,
                   // The major's floor is already met here (that is what minor-version
                   // compatibility means), so name the CUDA version the driver should report.
                   "update the NVIDIA driver to one that supports CUDA " + cuda->str() +
                       " (nvidia-smi shows \"CUDA Version\") to be safe"});
  }
}

void check_toolkit(const Environment& env, std::vector<Finding>& out) {
  const auto cuda = torch_cuda(env);
  if (!env.toolkit.nvcc.known()) {
    out.push_back(
        {"no-nvcc", Severity::note,
         "no nvcc found (" + env.toolkit.nvcc.unknown_reason +
             "): prebuilt wheels need none, source builds do",
         cuda ? "install the CUDA " + std::to_string(cuda->major) + ".x toolkit and set CUDA_HOME"
              : "install the CUDA toolkit matching torch's CUDA and set CUDA_HOME"});
  } else if (cuda && env.toolkit.cuda_version.known()) {
    const auto& nvcc = *env.toolkit.cuda_version;
    if (nvcc.major != cuda->major) {
      out.push_back({"nvcc-major-mismatch", Severity::warning,
                     "nvcc is CUDA " + nvcc.text + " but torch is built for CUDA " + cuda->str() +
                         ": source builds will fail (torch refuses a CUDA major mismatch)",
                     "install the CUDA " + std::to_string(cuda->major) +
                         ".x toolkit and point CUDA_HOME at it"});
    } else if (cuda->minor && nvcc.minor != *cuda->minor) {
      out.push_back({"nvcc-minor-mismatch", Severity::note,
                     "nvcc is CUDA " + nvcc.text + ", torch is built for CUDA " + cuda->str() +
                         ": torch only warns about a minor difference",
                     ""});
    }
  }
  if (env.toolkit.host_compiler_check.verdict == HostCompilerVerdict::too_new) {
    const auto gcc = accepted_gcc_major(env.toolkit);
    out.push_back(
        {"host-compiler-too-new", Severity::warning, env.toolkit.host_compiler_check.reason,
         gcc ? "install g++-" + std::to_string(*gcc) + " and set CUDAHOSTCXX=/usr/bin/g++-" +
                   std::to_string(*gcc) + " (and CC/CXX) for source builds"
             : std::string("install a host compiler this nvcc accepts and set "
                           "CUDAHOSTCXX (and CC/CXX) to it for source builds")});
  }
  if (!env.toolkit.ninja.known()) {
    out.push_back({"no-ninja", Severity::warning,
                   "ninja is not installed: a source build would compile one file at a time "
                   "(hours instead of minutes)",
                   python_command(env) + " install ninja, or apt-get install ninja-build"});
  }
}

// What to use where flash-attn's kernels cannot run: PyTorch's SDPA, which
// torch 1.x does not have (then flashfit_attention's plain-PyTorch path).
std::string attention_advice(const Environment& env) {
  if (env.torch.version.known() && !has_sdpa(*env.torch.version)) {
    return "torch " + env.torch.version->public_str() +
           " has no scaled_dot_product_attention (it came with torch 2.0): upgrade torch, or "
           "use flashfit_attention, which runs flash-attn's call in plain PyTorch on this torch "
           "(flashfit fallback)";
  }
  return "use PyTorch's scaled_dot_product_attention (transformers: "
         "attn_implementation=\"sdpa\"; flash-attn's own call on it: flashfit fallback)";
}

void check_gpus(const Environment& env, std::vector<Finding>& out) {
  if (env.gpu.presence == GpuPresence::no_driver || env.gpu.presence == GpuPresence::no_gpu) {
    out.push_back({"no-gpu", Severity::warning,
                   "no NVIDIA GPU here (" + env.gpu.summary +
                       "): flash-attn's kernels cannot run on this machine",
                   attention_advice(env) + "; to plan for another machine, pass --gpu X.Y"});
    return;
  }
  if (!env.gpu.gpus.known()) return;
  for (const auto& gpu : *env.gpu.gpus) {
    if (!gpu.capability.known() || gpu.capability->major >= 8) continue;
    out.push_back({"gpu-too-old", Severity::problem,
                   "GPU " + std::to_string(gpu.index) + " (" + gpu.name.value.value_or("?") +
                       ") has compute capability " + gpu.capability->str() +
                       "; FlashAttention-2 needs 8.0 (Ampere) or newer",
                   attention_advice(env) + " on this GPU"});
  }
}

void check_machine(const Environment& env, std::vector<Finding>& out) {
  if (env.machine.memory_available_bytes.known() &&
      *env.machine.memory_available_bytes < kBuildMemoryFloor) {
    out.push_back({"low-memory-for-build", Severity::warning,
                   "only " + std::to_string(*env.machine.memory_available_bytes >> 20) +
                       " MiB of memory is available; one flash-attn kernel compile needs 5-8 GB",
                   "prefer a prebuilt wheel; for a source build add swap or free memory"});
  }
  if (env.machine.libc.known() && env.machine.libc->name == "glibc") {
    auto v = parse_major_minor(env.machine.libc->version);
    if (v && (v->major < 2 || (v->major == 2 && v->minor < 32))) {
      out.push_back({"old-glibc", Severity::warning,
                     "glibc " + env.machine.libc->version +
                         " is older than 2.32, which official flash-attn wheels from 2.8.0.post1 "
                         "on need",
                     "use flash-attn <= 2.7.4.post1 wheels or a source build"});
    }
  }
}

}  // namespace

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::problem:
      return "problem";
    case Severity::warning:
      return "warning";
    case Severity::note:
      return "note";
  }
  return "note";
}

std::optional<std::string> torch_index_for_driver(
    const std::optional<pkg::CudaVersion>& driver_cuda) {
  if (!driver_cuda) return std::nullopt;
  const int minor = driver_cuda->minor.value_or(0);
  for (const auto& index : kTorchIndexes) {
    if (index.major < driver_cuda->major ||
        (index.major == driver_cuda->major && index.minor <= minor)) {
      return std::string("https://download.pytorch.org/whl/") + index.tag;
    }
  }
  return std::nullopt;
}

std::vector<Finding> diagnose(const Environment& env) {
  std::vector<Finding> out;
  check_python(env, out);
  check_torch(env, out);
  check_driver(env, out);
  check_gpus(env, out);
  check_toolkit(env, out);
  check_machine(env, out);
  return out;
}

}  // namespace flashfit::env
