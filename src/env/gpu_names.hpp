#pragma once
// GPU names for --gpu: the one table of NVIDIA GPUs by name with their compute
// capability, and the forms a capability may be written in (8.9, sm_89, sm89,
// 89, L4, "RTX 4090"). Pure; documented in docs/gpus.md.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "env/what_if.hpp"
#include "util/error.hpp"

namespace flashfit::env {

struct GpuName {
  std::string_view name;          // as NVIDIA writes it: "RTX 4090"
  MajorMinor capability;          // {8, 9}
  std::string_view architecture;  // "Ada Lovelace"
};

// Every GPU flashfit knows by name, oldest architecture first.
const std::vector<GpuName>& gpu_names();

// The name as a shell word: spaces become hyphens ("RTX-4090"); --gpu accepts it.
std::string gpu_name_token(std::string_view name);

// One --gpu item: X.Y, sm_XY / smXY / XY (the last digit is the minor: sm_120
// = 12.0), or a GPU name in any case, with spaces, hyphens or an "NVIDIA",
// "GeForce" or "Tesla" prefix. An unknown name is a usage error with the
// nearest names.
util::Result<MajorMinor> parse_gpu(std::string_view text);

}  // namespace flashfit::env
