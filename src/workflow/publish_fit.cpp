#include "workflow/publish_fit.hpp"

#include <fmt/core.h>

#include <charconv>

#include "build/nvcc_targets.hpp"
#include "pkg/version.hpp"

namespace flashfit::workflow {
namespace {

std::optional<int> to_int(std::string_view s) {
  int v = 0;
  const auto* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc{} || ptr != end) return std::nullopt;
  return v;
}

std::string abi_words(bool cxx11) {
  return cxx11 ? "the C++11 ABI" : "the pre-C++11 ABI";
}

}  // namespace

std::string EnvKey::page_name() const {
  return fmt::format("torch-{}{}.html", torch_version, cxx11_abi ? "" : "-cxx11abi0");
}

util::Result<EnvKey> parse_env_key(std::string_view torch_version, std::optional<bool> abi) {
  auto version = pkg::Version::parse(torch_version);
  if (!version || version->release().size() < 2) {
    return util::input_error(fmt::format("'{}' is not a torch version", torch_version),
                             "--for-torch", "give torch.__version__ as printed, e.g. 2.9.1+cu128");
  }
  EnvKey key;
  key.torch_version = std::string(torch_version);
  key.torch_major = to_int(version->release()[0]).value_or(0);
  key.torch_minor = to_int(version->release()[1]).value_or(0);
  const std::string local = version->local();
  if (local == "cpu") {
    key.cpu_only = true;
  } else if (local.size() >= 4 && local.rfind("cu", 0) == 0) {
    // cu128 -> 12.8, cu118 -> 11.8, cu92 -> 9.2: the last digit is the minor.
    const auto digits = std::string_view(local).substr(2);
    const auto major = to_int(digits.substr(0, digits.size() - 1));
    const auto minor = to_int(digits.substr(digits.size() - 1));
    if (major && minor) {
      key.cuda_major = major;
      key.cuda_minor = minor;
    }
  }
  if (abi) {
    key.cxx11_abi = *abi;
  } else if (key.torch_major > 2 || (key.torch_major == 2 && key.torch_minor >= 7)) {
    key.cxx11_abi = true;  // every torch build from 2.7 on uses the C++11 ABI
  } else {
    return util::input_error(
        fmt::format("torch {} was built with either C++ string ABI; which one is unknown",
                    torch_version),
        "--for-torch",
        "say --torch-cxx11-abi 1 or 0 (python -c 'import torch; "
        "print(torch._C._GLIBCXX_USE_CXX11_ABI)')");
  }
  return key;
}

std::optional<std::string> contradiction(const WheelFacts& wheel, const EnvKey& key) {
  if (wheel.torch_major && wheel.torch_minor &&
      (*wheel.torch_major != key.torch_major || *wheel.torch_minor != key.torch_minor)) {
    return fmt::format("built for torch {}.{}, not torch {}", *wheel.torch_major,
                       *wheel.torch_minor, key.torch_version);
  }
  if (wheel.cxx11_abi && *wheel.cxx11_abi != key.cxx11_abi) {
    return fmt::format("built with {} (read from its symbols); torch {} uses {}",
                       abi_words(*wheel.cxx11_abi), key.torch_version, abi_words(key.cxx11_abi));
  }
  if (wheel.uses_cuda) {
    if (key.cpu_only) return fmt::format("needs CUDA; torch {} is a CPU build", key.torch_version);
    if (wheel.cuda_major && key.cuda_major && *wheel.cuda_major != *key.cuda_major) {
      return fmt::format("built for CUDA {}; torch {} uses CUDA {}", *wheel.cuda_major,
                         key.torch_version, *key.cuda_major);
    }
  }
  return std::nullopt;
}

bool is_arch_limited(const WheelFacts& wheel, const EnvKey& key) {
  if (wheel.sass_archs.empty() && wheel.ptx_archs.empty()) return false;
  if (wheel.ptx_archs.empty()) return true;  // no PTX: no GPU newer than its SASS
  // Every GPU arch the page's CUDA major supports (build/nvcc_targets'
  // history, Jetson and Thor included; newer GPUs than the table knows run
  // only PTX). A major the table does not know: no claim it covers them all.
  const std::vector<unsigned> gpus =
      key.cuda_major ? build::targets_of(*key.cuda_major) : std::vector<unsigned>{};
  if (gpus.empty()) return true;
  for (unsigned number : gpus) {
    const int gpu = static_cast<int>(number);
    bool runs = false;
    for (int sass : wheel.sass_archs) runs = runs || (sass / 10 == gpu / 10 && sass <= gpu);
    for (int ptx : wheel.ptx_archs) runs = runs || ptx <= gpu;
    if (!runs) return true;
  }
  return false;
}

std::string arch_page_name(const EnvKey& key, const WheelFacts& wheel) {
  std::string archs;
  for (int arch : wheel.sass_archs) archs += fmt::format("-sm{}", arch);
  for (int arch : wheel.ptx_archs) archs += fmt::format("-compute{}", arch);
  return fmt::format("torch-{}{}{}.html", key.torch_version, key.cxx11_abi ? "" : "-cxx11abi0",
                     archs);
}

std::optional<std::string> why_not_on_page(const WheelFacts& wheel, const EnvKey& key,
                                           bool ignore_arch_subset) {
  if (auto why = contradiction(wheel, key)) return why;
  bool placed = false;
  for (const auto& k : wheel.for_torch) placed = placed || k == key;
  if (!placed && !(wheel.torch_major && wheel.torch_minor)) {
    return "its torch build is unknown (no variant label); place it with --for-torch";
  }
  if (wheel.uses_cuda && !key.cpu_only && !key.cuda_major) {
    return fmt::format("needs CUDA; the CUDA of torch {} is unknown (no +cuXYZ label)",
                       key.torch_version);
  }
  if (!ignore_arch_subset && is_arch_limited(wheel, key)) {
    const auto oldest = key.cuda_major ? build::oldest_target(*key.cuda_major) : std::nullopt;
    const std::string which =
        wheel.ptx_archs.empty() ? "no PTX for newer GPUs"
        : oldest
            ? fmt::format("not every GPU CUDA {} supports, from sm_{} on", *key.cuda_major, *oldest)
            : "which GPUs its CUDA supports is not known to flashfit";
    return fmt::format("kernels for some GPUs only ({}): listed on {}", which,
                       arch_page_name(key, wheel));
  }
  return std::nullopt;
}

std::optional<EnvKey> label_key(const WheelFacts& wheel) {
  if (!wheel.torch_major || !wheel.torch_minor || !wheel.cxx11_abi) return std::nullopt;
  EnvKey key;
  key.torch_major = *wheel.torch_major;
  key.torch_minor = *wheel.torch_minor;
  key.cxx11_abi = *wheel.cxx11_abi;
  std::string local;
  if (!wheel.uses_cuda) {
    key.cpu_only = true;
    local = "cpu";
  } else if (wheel.cuda_major) {
    key.cuda_major = wheel.cuda_major;
    key.cuda_minor = wheel.cuda_minor;
    local = wheel.cuda_minor ? fmt::format("cu{}{}", *wheel.cuda_major, *wheel.cuda_minor)
                             : fmt::format("cu{}", *wheel.cuda_major);
  } else {
    return std::nullopt;
  }
  key.torch_version = fmt::format("{}.{}+{}", key.torch_major, key.torch_minor, local);
  return key;
}

}  // namespace flashfit::workflow
