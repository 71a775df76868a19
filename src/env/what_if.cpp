#include "env/what_if.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "env/gpu_names.hpp"
#include "util/strings.hpp"

namespace flashfit::env {
namespace {

std::optional<int> small_number(std::string_view text) {
  if (text.empty() || text.size() > 4) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

tl::unexpected<util::Error> bad_flag(const std::string& flag, const std::string& value,
                                     const std::string& accepted) {
  return util::fail(util::ErrorKind::usage,
                    "invalid value '" + util::printable(value) + "' for " + flag, "",
                    "accepted: " + accepted);
}

bool is_none(std::string_view text) {
  return util::ascii_lower(util::trim(text)) == "none";
}

}  // namespace

std::optional<MajorMinor> parse_major_minor(std::string_view text) {
  // Exactly two '.'-separated parts (no vector of them: the resolver asks per wheel).
  text = util::trim(text);
  const auto dot = text.find('.');
  if (dot == std::string_view::npos || text.find('.', dot + 1) != std::string_view::npos)
    return std::nullopt;
  auto major = small_number(text.substr(0, dot));
  auto minor = small_number(text.substr(dot + 1));
  if (!major || !minor) return std::nullopt;
  return MajorMinor{*major, *minor};
}

std::optional<std::string> hip_from_torch_label(const pkg::Version& torch) {
  const std::string local = torch.local();
  if (!util::starts_with(local, "rocm")) return std::nullopt;
  const std::string_view version = std::string_view(local).substr(4);
  // rocm6.2, rocm6.2.4: numbers and dots, a number first and last.
  if (version.empty() || !std::isdigit(static_cast<unsigned char>(version.front())) ||
      !std::isdigit(static_cast<unsigned char>(version.back())) ||
      !std::all_of(
          version.begin(), version.end(),
          [](char c) { return c == '.' || std::isdigit(static_cast<unsigned char>(c)); }) ||
      version.find("..") != std::string_view::npos)
    return std::nullopt;
  return std::string(version);
}

std::optional<std::optional<MajorMinor>> cuda_from_torch_label(const pkg::Version& torch) {
  const std::string local = torch.local();
  std::optional<std::optional<MajorMinor>> implied;
  if (local == "cpu" || local == "xpu" || hip_from_torch_label(torch)) {
    implied.emplace();  // known: no CUDA (download.pytorch.org's CPU, XPU and ROCm builds)
  } else if (local.size() == 5 && util::starts_with(local, "cu")) {
    // torch's own labels: cu118, cu121, cu128, cu130 (major 2 digits, minor 1).
    auto major = small_number(local.substr(2, 2));
    auto minor = small_number(local.substr(4, 1));
    if (major && minor) implied.emplace(MajorMinor{*major, *minor});
  }
  return implied;
}

bool WhatIf::any() const {
  return python_version || torch || cuda || cxx11_abi || gpus || driver || glibc || arch;
}

std::vector<std::string> WhatIf::describe() const {
  std::vector<std::string> out;
  if (python_version) out.push_back("--python-version " + python_version->str());
  if (torch) out.push_back("--torch " + torch->str());
  // Only what the user typed: a CUDA implied by the --torch label is not a flag.
  if (cuda && cuda_explicit)
    out.push_back("--cuda " + (*cuda ? (*cuda)->str() : std::string("none")));
  if (cxx11_abi) out.push_back(std::string("--cxx11-abi ") + (*cxx11_abi ? "TRUE" : "FALSE"));
  if (gpus) {
    std::vector<std::string> list;
    for (const auto& g : *gpus) list.push_back(g.str());
    out.push_back("--gpu " + (list.empty() ? std::string("none") : util::join(list, ",")));
  }
  if (driver) out.push_back("--driver " + *driver);
  if (glibc) out.push_back("--glibc " + glibc->str());
  if (arch) out.push_back("--arch " + *arch);
  return out;
}

util::Result<WhatIf> parse_what_if(const WhatIfOptions& o) {
  WhatIf w;
  if (o.python_version) {
    w.python_version = parse_major_minor(*o.python_version);
    if (!w.python_version || w.python_version->major != 3) {
      return bad_flag("--python-version", *o.python_version, "3.Y, e.g. 3.12");
    }
  }
  if (o.torch) {
    auto version = pkg::Version::parse(*o.torch);
    if (!version) {
      return bad_flag(
          "--torch", *o.torch,
          "a PEP 440 version, e.g. 2.8.0 or 2.8.0+cu128 (" + version.error().message + ")");
    }
    w.torch = *version;
  }
  if (o.cuda) {
    w.cuda_explicit = true;
    if (is_none(*o.cuda)) {
      w.cuda = std::optional<MajorMinor>{};
    } else if (auto cuda = parse_major_minor(*o.cuda)) {
      w.cuda = std::optional<MajorMinor>(*cuda);
    } else {
      return bad_flag("--cuda", *o.cuda, "X.Y (torch's CUDA, e.g. 12.8) or none");
    }
  } else if (w.torch) {
    // The torch label carries its CUDA; an explicit --cuda wins over it.
    if (auto implied = cuda_from_torch_label(*w.torch)) w.cuda = *implied;
  }
  if (o.cxx11_abi) {
    const auto value = util::ascii_lower(util::trim(*o.cxx11_abi));
    if (value == "true" || value == "1") {
      w.cxx11_abi = true;
    } else if (value == "false" || value == "0") {
      w.cxx11_abi = false;
    } else {
      return bad_flag("--cxx11-abi", *o.cxx11_abi, "TRUE or FALSE");
    }
  }
  if (o.gpu) {
    std::vector<MajorMinor> gpus;
    if (!is_none(*o.gpu)) {
      for (auto item : util::split(*o.gpu, ',')) {
        auto cc = parse_gpu(item);  // 8.9, sm_89, L4, RTX-4090 (env/gpu_names)
        if (!cc) return tl::unexpected(cc.error());
        gpus.push_back(*cc);
      }
    }
    w.gpus = std::move(gpus);
  }
  if (o.driver) {
    const auto parts = util::split(util::trim(*o.driver), '.');
    bool ok = parts.size() >= 2 && parts.size() <= 3;
    for (auto p : parts) ok = ok && small_number(p).has_value();
    if (!ok) return bad_flag("--driver", *o.driver, "an NVIDIA driver version, e.g. 570.124.06");
    w.driver = std::string(util::trim(*o.driver));
  }
  if (o.glibc) {
    w.glibc = parse_major_minor(*o.glibc);
    if (!w.glibc || w.glibc->major != 2) return bad_flag("--glibc", *o.glibc, "2.Y, e.g. 2.31");
  }
  if (o.arch) {
    if (*o.arch != "x86_64" && *o.arch != "aarch64") {
      return bad_flag("--arch", *o.arch, "x86_64 or aarch64");
    }
    w.arch = *o.arch;
  }
  return w;
}

}  // namespace flashfit::env
