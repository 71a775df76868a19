#include "resolve/target.hpp"

#include "resolve/torch_abi.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {

std::optional<pkg::TorchVersion> ResolveTarget::torch_minor() const {
  return torch ? pkg::torch_minor(*torch) : std::nullopt;
}

const ResolveTarget::Derived& ResolveTarget::derived() const {
  if (!derived_) {
    auto parts = std::make_shared<Derived>();
    if (python) {
      if (auto v = pkg::Version::parse(python->str())) parts->python_version = std::move(*v);
    }
    if (tags) {
      for (const pkg::Tag& t : tags->tags()) {
        parts->python.insert(t.interpreter + "-" + t.abi);
        parts->platforms.insert(t.platform);
      }
    }
    derived_ = std::move(parts);
  }
  return *derived_;
}

ResolveTarget target_from_environment(const env::Environment& env) {
  ResolveTarget t;
  if (env.python.version.known()) t.python = *env.python.version;
  if (auto facts = env.tag_facts()) t.tags.emplace(pkg::supported_tags(*facts));
  if (env.machine.arch.known()) t.arch = *env.machine.arch;
  if (env.what_if.arch) t.arch = *env.what_if.arch;
  if (env.what_if.glibc) {
    t.glibc = *env.what_if.glibc;
  } else if (env.machine.libc.known() && env.machine.libc->name == "glibc") {
    t.glibc = env::parse_major_minor(env.machine.libc->version);
  }
  t.torch_installed = env.torch.installed() || env.torch.version.overridden;
  if (env.torch.version.known()) t.torch = *env.torch.version;
  if (env.torch.cuda.known()) {
    if (env.torch.cuda->none()) {
      t.torch_cuda = std::optional<env::MajorMinor>{};
    } else if (auto mm = env::parse_major_minor(*env.torch.cuda->version)) {
      t.torch_cuda = std::optional<env::MajorMinor>{*mm};
    }
  }
  t.torch_rocm = env.torch.hip.known() && !env.torch.hip->none();
  if (t.torch_rocm) {
    // torch.version.hip is "6.2.41133-dd7f95766" in a ROCm wheel, "6.2" from a label.
    const std::string& hip = *env.torch.hip->version;
    const auto second_dot = hip.find('.', hip.find('.') + 1);
    t.torch_hip = env::parse_major_minor(std::string_view(hip).substr(0, second_dot));
  }
  if (env.torch.cxx11_abi.known()) {
    t.cxx11_abi = *env.torch.cxx11_abi;
    if (util::starts_with(env.torch.cxx11_abi.source, "derived"))
      t.cxx11_abi_basis = env.torch.cxx11_abi.source;
  }
  if (env.gpu.gpus.known()) {
    std::vector<env::ComputeCapability> ccs;
    bool all_known = true;
    for (const env::GpuDevice& gpu : *env.gpu.gpus) {
      if (gpu.capability.known()) {
        ccs.push_back(*gpu.capability);
      } else {
        all_known = false;
      }
    }
    if (all_known) t.gpus = std::move(ccs);
  }
  return t;
}

void fill_derived_torch_abi(env::Environment& env) {
  if (env.torch.cxx11_abi.known() || !env.torch.version.known()) return;
  if (!env.torch.installed() && !env.torch.version.overridden) return;
  std::string arch = env.machine.arch.known() ? *env.machine.arch : std::string();
  auto derived = derive_torch_abi(*env.torch.version, arch);
  if (!derived) return;
  env.torch.cxx11_abi = env::Fact<bool>::of(derived->cxx11_abi, derived->basis);
}

std::string describe_torch_cuda(const ResolveTarget& target) {
  if (!target.torch_cuda) return "unknown";
  if (!*target.torch_cuda) return "none";
  return (*target.torch_cuda)->str();
}

}  // namespace flashfit::resolve
