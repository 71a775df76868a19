// The checks of the inspect verdict. Each reads what binary/ extracted and the
// LoadHost, and says pass / note / warn / fail / skip with a fix; nothing here
// touches the file system.

#include "binary/verdict.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "pkg/name.hpp"
#include "util/strings.hpp"

namespace flashfit::binary {

namespace {

Check make(std::string_view id, CheckStatus status, std::string summary) {
  Check check;
  check.id = std::string(id);
  check.status = status;
  check.summary = std::move(summary);
  return check;
}

std::string join_tags(const std::vector<pkg::Tag>& tags, std::size_t limit = 4) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < tags.size() && i < limit; ++i) names.push_back(tags[i].str());
  if (tags.size() > limit) names.push_back(fmt::format("... ({} in all)", tags.size()));
  return util::join(names, ", ");
}

// ".cpython-311-x86_64-linux-gnu.so" from "pkg/mod.cpython-311-x86_64-linux-gnu.so".
std::string module_suffix(std::string_view member) {
  const auto slash = member.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? member : member.substr(slash + 1);
  const auto dot = base.find('.');
  return dot == std::string_view::npos ? std::string() : std::string(base.substr(dot));
}

// The versions are numbered "GLIBC_2.32"; true when `tag` is newer than the
// glibc `version` ("2.31").
bool glibc_tag_newer_than(const std::string& tag, const std::string& version) {
  auto order = compare_symbol_versions(tag, "GLIBC_" + version);
  return order && std::is_gt(*order);
}

std::string newest_with_prefix(const std::vector<std::string>& versions, std::string_view prefix) {
  std::string best;
  for (const auto& v : versions) {
    if (!util::starts_with(v, prefix)) continue;
    if (best.empty()) {
      best = v;
      continue;
    }
    auto order = compare_symbol_versions(v, best);
    if (order && std::is_gt(*order)) best = v;
  }
  return best;
}

std::string needed_fix(const std::vector<std::string>& missing) {
  // torch's CUDA libraries alone missing: the torch found is a CPU build (or
  // there is none); another version of torch would still bring them.
  const auto torch_cuda_library = [](const std::string& name) {
    return util::starts_with(name, "libc10_cuda") || util::starts_with(name, "libtorch_cuda");
  };
  const auto torch_library = [](const std::string& name) {
    return util::starts_with(name, "libc10") || util::starts_with(name, "libtorch");
  };
  const bool any_torch = std::any_of(missing.begin(), missing.end(), torch_library);
  if (any_torch && std::all_of(missing.begin(), missing.end(), [&](const std::string& name) {
        return !torch_library(name) || torch_cuda_library(name);
      })) {
    return "the module links against torch's CUDA libraries (libc10_cuda, libtorch_cuda), which "
           "a CPU build of torch does not have: install a CUDA build of torch, and import torch "
           "before the module";
  }
  for (const auto& name : missing) {
    if (util::starts_with(name, "libc10") || util::starts_with(name, "libtorch")) {
      return "install torch in this environment first (the module links against its libraries), "
             "and import torch before the module";
    }
  }
  for (const auto& name : missing) {
    // libcuda.so.1 is the driver's user-mode library: no pip package or
    // toolkit provides it (torch's libcaffe2_nvrtc.so needs it on a machine
    // without a driver, where the CUDA runtime itself is installed).
    if (util::starts_with(name, "libcuda.so")) {
      return "libcuda.so.1 comes with the NVIDIA driver, not with pip packages or the toolkit: "
             "install the "
             "driver (the module cannot load on a machine without one)";
    }
  }
  for (const auto& name : missing) {
    if (util::starts_with(name, "libcudart") || util::starts_with(name, "libcublas") ||
        util::starts_with(name, "libcuda")) {
      return "the module needs the CUDA runtime: install a CUDA build of torch (it brings the "
             "nvidia-*-cu12/13 runtime packages), or the CUDA toolkit";
    }
  }
  return "install the packages that provide these libraries, or put their directory on "
         "LD_LIBRARY_PATH";
}

}  // namespace

std::string_view to_string(CheckStatus status) {
  switch (status) {
    case CheckStatus::pass:
      return "pass";
    case CheckStatus::note:
      return "note";
    case CheckStatus::warn:
      return "warn";
    case CheckStatus::fail:
      return "fail";
    case CheckStatus::skip:
      return "skip";
  }
  return "skip";
}

std::string_view to_string(TargetKind kind) {
  switch (kind) {
    case TargetKind::wheel:
      return "wheel";
    case TargetKind::library:
      return "library";
    case TargetKind::installed:
      return "installed";
  }
  return "library";
}

bool InspectReport::compatible() const {
  auto failed = [](const Check& c) { return c.status == CheckStatus::fail; };
  if (std::any_of(checks.begin(), checks.end(), failed)) return false;
  return std::none_of(modules.begin(), modules.end(), [&](const ModuleReport& m) {
    return std::any_of(m.checks.begin(), m.checks.end(), failed);
  });
}

Check check_module_platform(const ModuleReport& module, const LoadHost& host) {
  const char* id = "platform";
  if (host.arch && module.elf.machine_name() != *host.arch) {
    Check c = make(
        id, CheckStatus::fail,
        fmt::format("built for {}, this machine is {}", module.elf.machine_name(), *host.arch));
    c.fix = fmt::format("use the {} build of the package", *host.arch);
    return c;
  }
  const std::string suffix = module_suffix(module.member);
  const bool versioned =
      util::starts_with(suffix, ".cpython-") || util::starts_with(suffix, ".pypy");
  if (versioned && util::ends_with(suffix, ".so") && host.ext_suffix &&
      suffix != *host.ext_suffix) {
    Check c = make(id, CheckStatus::fail,
                   fmt::format("a module for '{}', but {} loads only '{}', '.abi3.so' and '.so'",
                               suffix, host.interpreter, *host.ext_suffix));
    c.fix = "use the build of the package for this Python version";
    return c;
  }
  std::string summary = host.arch
                            ? fmt::format("{} module", module.elf.machine_name())
                            : fmt::format("{} module (this machine's arch unknown: {})",
                                          module.elf.machine_name(), host.arch_unknown_reason);
  if (!host.ext_suffix && versioned) summary += "; the interpreter's module suffix is unknown";
  return make(id, CheckStatus::pass, summary);
}

Check check_needed_libraries(const ModuleReport& module, const LoadHost& /*host*/) {
  const char* id = "needed-libraries";
  std::vector<std::string> missing;
  Check c = make(id, CheckStatus::pass, "");
  for (const NeededLibrary& lib : module.resolved) {
    if (lib.via == FoundVia::not_found) {
      missing.push_back(lib.name);
      c.details.push_back(fmt::format("{}: not found{}", lib.name,
                                      lib.detail.empty() ? "" : " (" + lib.detail + ")"));
    } else {
      c.details.push_back(
          fmt::format("{} -> {} ({}{})", lib.name, lib.path ? lib.path->string() : std::string("?"),
                      to_string(lib.via), lib.detail.empty() ? "" : ": " + lib.detail));
    }
  }
  if (missing.empty()) {
    c.summary = fmt::format("all {} NEEDED libraries found", module.resolved.size());
    return c;
  }
  c.status = CheckStatus::fail;
  c.summary = fmt::format("{} of {} NEEDED libraries not found: {}", missing.size(),
                          module.resolved.size(), util::join(missing, ", "));
  c.fix = needed_fix(missing);
  return c;
}

Check check_symbol_versions(const ModuleReport& module, const std::vector<DefinedVersions>& defined,
                            const LoadHost& host) {
  const char* id = "symbol-versions";
  Check c = make(id, CheckStatus::pass, "");
  std::size_t checked = 0;
  std::vector<std::string> missing_tags;
  std::string fix;
  for (const VersionNeed& need : module.elf.version_needs) {
    const auto it = std::find_if(defined.begin(), defined.end(),
                                 [&](const DefinedVersions& d) { return d.file == need.file; });
    for (const std::string& tag : need.versions) {
      if (tag == "GLIBC_PRIVATE") continue;
      const bool glibc = util::starts_with(tag, "GLIBC_");
      if (glibc && host.glibc_override) {
        ++checked;
        if (glibc_tag_newer_than(tag, *host.glibc_override)) {
          missing_tags.push_back(tag);
          c.details.push_back(fmt::format("{} needs {}; glibc is {} (--glibc)", need.file, tag,
                                          *host.glibc_override));
        }
        continue;
      }
      if (it == defined.end()) continue;  // not resolved: needed-libraries reports it
      ++checked;
      if (std::find(it->versions.begin(), it->versions.end(), tag) != it->versions.end()) continue;
      missing_tags.push_back(tag);
      const auto dash = tag.find('_');
      const std::string newest =
          newest_with_prefix(it->versions, tag.substr(0, dash == std::string::npos ? 0 : dash + 1));
      c.details.push_back(fmt::format("{} lacks {} (newest it has: {})", need.file, tag,
                                      newest.empty() ? "none" : newest));
    }
  }
  if (missing_tags.empty()) {
    const auto glibc = module.elf.max_needed_version("GLIBC_");
    c.summary = checked == 0 ? "no versioned symbols to check"
                             : fmt::format("all {} symbol versions available{}", checked,
                                           glibc ? " (needs up to " + *glibc + ")" : "");
    return c;
  }
  c.status = CheckStatus::fail;
  c.summary = fmt::format("missing symbol versions: {}", util::join(missing_tags, ", "));
  const bool any_glibc = std::any_of(missing_tags.begin(), missing_tags.end(),
                                     [](const auto& t) { return util::starts_with(t, "GLIBC_"); });
  c.fix =
      any_glibc
          ? "the wheel was built on a newer Linux than this one: use an older release of the "
            "package built for this glibc (see `flashfit resolve`), or build it from source here"
          : "the module needs a newer libstdc++ than the one loaded: upgrade the system's "
            "libstdc++6 (or `conda install libstdcxx-ng` in conda), or build from source here";
  return c;
}

Check check_torch(ModuleReport& module, const LoadHost& host) {
  const char* id = "torch-symbols";
  std::size_t uses = 0;
  const SymbolNames& undefined = module.elf.undefined_symbols;
  for (std::size_t i = 0; i < undefined.size(); ++i) uses += is_torch_symbol(undefined[i]) ? 1 : 0;
  if (uses == 0) return make(id, CheckStatus::skip, "the module does not call into torch");
  if (!host.torch_installed) {
    Check c =
        make(id, CheckStatus::fail,
             fmt::format(
                 "the module calls {} torch functions, and torch is not installed{}", uses,
                 host.torch_unknown_reason.empty() ? "" : " (" + host.torch_unknown_reason + ")"));
    c.fix = "install torch first: the version the wheel was built for";
    return c;
  }
  if (!host.torch) {
    // --torch / --cxx11-abi: no libraries to resolve against, but the ABI
    // label can still be compared with the module's own.
    if (host.torch_abi != CxxAbi::unknown && module.abi.abi != CxxAbi::unknown &&
        host.torch_abi != module.abi.abi) {
      Check c = make(id, CheckStatus::fail,
                     fmt::format("the module uses the {} C++ string ABI, torch the {} one",
                                 to_string(module.abi.abi), to_string(host.torch_abi)));
      c.details.push_back(module.abi.reason);
      c.fix = fmt::format("use a wheel built with cxx11abi{}, or build from source",
                          host.torch_abi == CxxAbi::cxx11 ? "TRUE" : "FALSE");
      return c;
    }
    return make(id, CheckStatus::skip,
                fmt::format("{} torch symbols not resolved: {}", uses, host.torch_unknown_reason));
  }
  module.torch = check_torch_symbols(module.elf, *host.torch);
  const TorchSymbolReport& report = *module.torch;
  const std::string libraries = util::join(host.torch->libraries, ", ");
  if (report.missing.empty()) {
    return make(id, CheckStatus::pass,
                fmt::format("all {} torch symbols are defined by {}", report.checked, libraries));
  }
  Check c = make(id, CheckStatus::fail,
                 fmt::format("{} of {} torch symbols are not defined by the installed torch: {}",
                             report.missing.size(), report.checked, to_string(report.diagnosis)));
  c.details.push_back(report.explanation);
  for (const MissingSymbol& m : report.missing) {
    c.details.push_back(fmt::format("missing: {}  [{}]", m.demangled, m.symbol));
  }
  if (report.diagnosis == SymbolDiagnosis::cxx11_abi_mismatch) {
    c.fix = fmt::format(
        "use a wheel built with cxx11abi{} (torch's real ABI; upstream labels can be wrong), or "
        "build from source against this torch",
        host.torch->abi == CxxAbi::cxx11 ? "TRUE" : "FALSE");
  } else if (report.diagnosis == SymbolDiagnosis::cpu_torch) {
    c.fix =
        "install a CUDA build of torch (this one is a CPU build), or use a wheel built for a "
        "CPU torch";
  } else {
    c.fix = fmt::format(
        "use a wheel built for {}, or pin torch to the version the wheel was "
        "built for, or build from source",
        host.torch_version ? "torch " + *host.torch_version : "this torch");
  }
  return c;
}

Check check_pybind11(const ModuleReport& module, const LoadHost& host) {
  const char* id = "pybind11";
  if (!module.pybind11_id) return make(id, CheckStatus::skip, "no pybind11 internals id");
  if (!host.torch_pybind11_id) {
    return make(id, CheckStatus::skip, fmt::format("{}; torch's is unknown", *module.pybind11_id));
  }
  if (*module.pybind11_id == *host.torch_pybind11_id) {
    return make(id, CheckStatus::pass, fmt::format("same as torch's: {}", *module.pybind11_id));
  }
  // Different ids load fine; pybind11 types are just not shared with torch's
  // bindings (a compiler or libstdc++ ABI difference shows here first).
  Check c =
      make(id, CheckStatus::note,
           fmt::format("{} differs from torch's {}", *module.pybind11_id, *host.torch_pybind11_id));
  return c;
}

Check check_kernel_images(ModuleReport& module, const LoadHost& host) {
  const char* id = "kernel-images";
  if (module.fatbin.empty()) {
    return make(id, CheckStatus::skip, "no CUDA device code in this module");
  }
  std::vector<std::string> images;
  for (const FatbinEntry& e : module.fatbin) {
    if (e.kind != FatbinKind::cubin && e.kind != FatbinKind::ptx) continue;
    const std::string name = e.name();
    if (std::find(images.begin(), images.end(), name) == images.end()) images.push_back(name);
  }
  const std::string carried =
      images.empty() ? std::string("no SASS or PTX") : util::join(images, ", ");
  if (!host.gpus) {
    return make(id, CheckStatus::skip,
                fmt::format("carries {}; GPUs unknown: {}", carried, host.gpus_unknown_reason));
  }
  if (host.gpus->empty()) {
    Check c = make(id, CheckStatus::warn,
                   fmt::format("carries {}, and there is no NVIDIA GPU here to run them", carried));
    c.fix =
        "the module may import, but its CUDA kernels cannot run on this machine; use the "
        "standard attention path (torch.nn.functional.scaled_dot_product_attention) here";
    return c;
  }
  Check c = make(id, CheckStatus::pass, "");
  std::vector<std::string> none, jit, old_driver;
  for (const GpuTarget& gpu : *host.gpus) {
    GpuKernel kernel{gpu, kernel_for_gpu(module.fatbin, gpu.major, gpu.minor, host.driver_cuda)};
    const KernelVerdict& v = kernel.verdict;
    const std::string cc = fmt::format("{}.{}", gpu.major, gpu.minor);
    if (v.source == KernelSource::sass) {
      c.details.push_back(fmt::format("{}, cc {}: SASS {}", gpu.label, cc, v.entry->name()));
    } else if (v.source == KernelSource::ptx_jit && v.driver_ok.value_or(true)) {
      jit.push_back(cc);
      c.details.push_back(fmt::format("{}, cc {}: only via PTX JIT of {}: {}", gpu.label, cc,
                                      v.entry->name(), v.warning));
    } else {
      // PTX the driver is too old to JIT is an image, not "no image": the fix differs.
      (v.source == KernelSource::ptx_jit ? old_driver : none).push_back(cc);
      c.details.push_back(fmt::format("{}, cc {}: {}", gpu.label, cc, v.warning));
    }
    module.kernels.push_back(std::move(kernel));
  }
  if (!none.empty() || !old_driver.empty()) {
    c.status = CheckStatus::fail;
    std::vector<std::string> parts, fixes;
    if (!none.empty()) {
      parts.push_back(
          fmt::format("no kernel image for compute capability {}", util::join(none, ", ")));
      // The package's own arch variable (FLASH_ATTN_CUDA_ARCHS, TORCH_CUDA_ARCH_LIST, or a
      // fixed -gencode list) is the build's business: `flashfit build --archs` knows which.
      fixes.push_back(fmt::format(
          "use a build that includes {} (or PTX it can JIT): flashfit build <package> --archs {}, "
          "when the package supports that GPU",
          none.size() == 1 ? "this GPU's architecture" : "these GPUs' architectures",
          util::join(none, ",")));
    }
    if (!old_driver.empty()) {
      parts.push_back(
          fmt::format("compute capability {} only through PTX this driver is too old to compile",
                      util::join(old_driver, ", ")));
      fixes.push_back(
          "update the NVIDIA driver to one for the CUDA version the details name, or use a build "
          "with SASS for this GPU");
    }
    c.summary = fmt::format("{} (carries {})", util::join(parts, "; "), carried);
    c.fix = util::join(fixes, "; ");
  } else if (!jit.empty()) {
    c.status = CheckStatus::warn;
    c.summary =
        fmt::format("compute capability {} only via PTX JIT (slow first launch; carries {})",
                    util::join(jit, ", "), carried);
    c.fix = "a build with SASS for this GPU avoids the JIT";
  } else {
    c.summary = fmt::format("SASS for every GPU (carries {})", carried);
  }
  return c;
}

Check check_wheel_tags(const std::vector<pkg::Tag>& tags, const LoadHost& host) {
  const char* id = "tags";
  if (!host.tags) {
    return make(id, CheckStatus::skip,
                fmt::format("interpreter unknown: {}", host.tags_unknown_reason));
  }
  if (auto rank = host.tags->best_rank(tags)) {
    return make(id, CheckStatus::pass,
                fmt::format("{} fits {} (rank {} of {})", join_tags(tags), host.interpreter,
                            *rank + 1, host.tags->size()));
  }
  Check c = make(id, CheckStatus::fail,
                 fmt::format("{} does not fit {}", join_tags(tags), host.interpreter));
  c.details.push_back(fmt::format("this interpreter takes: {}", join_tags(host.tags->tags(), 3)));
  c.fix = "use the wheel built for this Python version and platform";
  return c;
}

Check check_record(const std::vector<RecordProblem>& problems) {
  const char* id = "record";
  if (problems.empty()) return make(id, CheckStatus::pass, "every file matches RECORD");
  Check c = make(id, CheckStatus::fail,
                 fmt::format("{} file(s) do not match RECORD: the wheel is corrupt or was altered",
                             problems.size()));
  for (const RecordProblem& p : problems) {
    c.details.push_back(fmt::format("{}: {}", util::printable(p.path), p.detail));
  }
  c.fix = "download the wheel again from its source; do not install a wheel whose RECORD fails";
  return c;
}

Check check_wheel_contents(const Wheel& wheel, std::span<const RequiredModule> required_modules) {
  const char* id = "wheel";
  Check c = make(id, CheckStatus::pass, "");
  const std::string canonical = pkg::canonicalize_name(wheel.filename().name);
  for (const RequiredModule& required : required_modules) {
    if (canonical != required.distribution || wheel.has_extension_module(required.module)) continue;
    c.status = CheckStatus::fail;
    c.details.push_back(
        fmt::format("{} without its compiled module {}: `import {}` fails with ModuleNotFoundError",
                    required.distribution, required.module, required.module));
    c.fix =
        "this is a source-only or SKIP_CUDA_BUILD build; use a binary wheel for this "
        "environment (`flashfit resolve`) or build from source";
  }
  for (const WheelFinding& f : wheel.findings()) {
    const CheckStatus status = f.note ? CheckStatus::note : CheckStatus::warn;
    if (static_cast<int>(status) > static_cast<int>(c.status)) c.status = status;
    c.details.push_back(f.message);
  }
  c.summary = c.status == CheckStatus::pass
                  ? fmt::format("{} {}: file name, WHEEL and METADATA agree", wheel.metadata().name,
                                wheel.metadata().version)
                  : c.details.front();
  return c;
}

}  // namespace flashfit::binary
