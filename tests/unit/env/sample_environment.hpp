#pragma once
// Hand-built pieces of an Environment that several tests share: a Debian 12
// machine and a CUDA 12.8 torch with the C++11 ABI, sourced as a probe would.

#include <cstdint>
#include <string>

#include "env/environment.hpp"

namespace flashfit::env::sample {

inline MachineFacts debian_machine() {
  MachineFacts m;
  m.os = Fact<std::string>::of("Debian GNU/Linux 12 (bookworm)", "/etc/os-release");
  m.kernel = Fact<std::string>::of("6.1.0-18-amd64", "uname");
  m.arch = Fact<std::string>::of("x86_64", "uname");
  m.libc = Fact<LibcInfo>::of(LibcInfo{"glibc", "2.36"}, "gnu_get_libc_version");
  m.cpu_count = Fact<unsigned>::of(16, "sched_getaffinity");
  m.memory_total_bytes = Fact<std::uint64_t>::of(std::uint64_t{128} << 30, "/proc/meminfo");
  m.memory_available_bytes = Fact<std::uint64_t>::of(std::uint64_t{64} << 30, "/proc/meminfo");
  return m;
}

// torch 2.8.0+cu128 installed in `site`.
inline TorchFacts cuda_torch(const std::string& site) {
  TorchFacts t;
  t.package_dir = Fact<std::filesystem::path>::of(site + "/torch", site);
  t.version_text = Fact<std::string>::of("2.8.0+cu128", "torch/version.py");
  t.version = Fact<pkg::Version>::of(*pkg::Version::parse("2.8.0+cu128"), "torch/version.py");
  t.cuda = Fact<ToolkitBuild>::of(ToolkitBuild::of("12.8"), "torch/version.py");
  t.hip = Fact<ToolkitBuild>::of(ToolkitBuild::none_built(), "torch/version.py");
  t.library_dir = Fact<std::filesystem::path>::of(site + "/torch/lib", site);
  t.cxx11_abi = Fact<bool>::of(true, "libc10.so symbols");
  return t;
}

}  // namespace flashfit::env::sample
