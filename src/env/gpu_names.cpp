#include "env/gpu_names.hpp"

#include <algorithm>
#include <cctype>

#include "util/strings.hpp"

namespace flashfit::env {
namespace {

// Lower case, letters and digits only, without a vendor or brand prefix, so
// "NVIDIA GeForce RTX 4090", "rtx-4090" and "RTX4090" meet.
std::string normalized(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  for (std::string_view prefix : {"nvidia", "geforce", "tesla"}) {
    if (util::starts_with(out, prefix) && out.size() > prefix.size()) out.erase(0, prefix.size());
  }
  return out;
}

// sm_89, sm89, compute_89 or 89: all digits, the last one the minor.
std::optional<MajorMinor> parse_sm(std::string_view text) {
  for (std::string_view prefix : {"sm_", "sm", "compute_"}) {
    if (util::starts_with(text, prefix)) {
      text.remove_prefix(prefix.size());
      break;
    }
  }
  if (text.size() < 2 || text.size() > 3) return std::nullopt;
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  const int major = std::stoi(std::string(text.substr(0, text.size() - 1)));
  const int minor = text.back() - '0';
  return MajorMinor{major, minor};
}

bool sane(const MajorMinor& cc) {
  return cc.major >= 1 && cc.major <= 20;
}

}  // namespace

const std::vector<GpuName>& gpu_names() {
  // Compute capabilities as NVIDIA's "CUDA GPUs" list gives them. 10.3 (B300),
  // 11.0 (Thor, 10.1 before CUDA 13) and 12.1 (GB10): docs/background.md §12.
  static const std::vector<GpuName> table = {
      {"P100", {6, 0}, "Pascal"},
      {"P40", {6, 1}, "Pascal"},
      {"P4", {6, 1}, "Pascal"},
      {"GTX 1080 Ti", {6, 1}, "Pascal"},
      {"V100", {7, 0}, "Volta"},
      {"Titan V", {7, 0}, "Volta"},
      {"T4", {7, 5}, "Turing"},
      {"RTX 2080 Ti", {7, 5}, "Turing"},
      {"RTX 2080", {7, 5}, "Turing"},
      {"RTX 2070", {7, 5}, "Turing"},
      {"RTX 2060", {7, 5}, "Turing"},
      {"Titan RTX", {7, 5}, "Turing"},
      {"Quadro RTX 6000", {7, 5}, "Turing"},
      {"Quadro RTX 8000", {7, 5}, "Turing"},
      {"A100", {8, 0}, "Ampere"},
      {"A800", {8, 0}, "Ampere"},
      {"A30", {8, 0}, "Ampere"},
      {"A40", {8, 6}, "Ampere"},
      {"A10", {8, 6}, "Ampere"},
      {"A10G", {8, 6}, "Ampere"},
      {"A16", {8, 6}, "Ampere"},
      {"A2", {8, 6}, "Ampere"},
      {"RTX A6000", {8, 6}, "Ampere"},
      {"RTX A5000", {8, 6}, "Ampere"},
      {"RTX A4000", {8, 6}, "Ampere"},
      {"RTX 3090 Ti", {8, 6}, "Ampere"},
      {"RTX 3090", {8, 6}, "Ampere"},
      {"RTX 3080", {8, 6}, "Ampere"},
      {"RTX 3070", {8, 6}, "Ampere"},
      {"RTX 3060", {8, 6}, "Ampere"},
      {"Jetson AGX Orin", {8, 7}, "Ampere"},
      {"Jetson Orin Nano", {8, 7}, "Ampere"},
      {"L4", {8, 9}, "Ada Lovelace"},
      {"L40", {8, 9}, "Ada Lovelace"},
      {"L40S", {8, 9}, "Ada Lovelace"},
      {"RTX 6000 Ada", {8, 9}, "Ada Lovelace"},
      {"RTX 4090", {8, 9}, "Ada Lovelace"},
      {"RTX 4080", {8, 9}, "Ada Lovelace"},
      {"RTX 4070", {8, 9}, "Ada Lovelace"},
      {"RTX 4060", {8, 9}, "Ada Lovelace"},
      {"H100", {9, 0}, "Hopper"},
      {"H800", {9, 0}, "Hopper"},
      {"H200", {9, 0}, "Hopper"},
      {"H20", {9, 0}, "Hopper"},
      {"GH200", {9, 0}, "Hopper"},
      {"B200", {10, 0}, "Blackwell"},
      {"GB200", {10, 0}, "Blackwell"},
      {"B300", {10, 3}, "Blackwell"},
      {"GB300", {10, 3}, "Blackwell"},
      {"Jetson Thor", {11, 0}, "Blackwell"},
      {"RTX 5090", {12, 0}, "Blackwell"},
      {"RTX 5080", {12, 0}, "Blackwell"},
      {"RTX 5070", {12, 0}, "Blackwell"},
      {"RTX 5060", {12, 0}, "Blackwell"},
      {"RTX PRO 6000", {12, 0}, "Blackwell"},
      {"GB10", {12, 1}, "Blackwell"},
  };
  return table;
}

std::string gpu_name_token(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), ' ', '-');
  return out;
}

util::Result<MajorMinor> parse_gpu(std::string_view text) {
  const auto trimmed = util::trim(text);
  const std::string lower = util::ascii_lower(trimmed);
  std::optional<MajorMinor> cc =
      lower.find('.') != std::string::npos ? parse_major_minor(lower) : parse_sm(lower);
  if (cc) {
    if (sane(*cc)) return *cc;
  } else {
    const std::string key = normalized(trimmed);
    for (const auto& gpu : gpu_names()) {
      if (normalized(gpu.name) == key) return gpu.capability;
    }
  }
  // Nearest names for "did you mean"; a number that is not a capability gets none.
  std::vector<util::NearName> near;
  const std::string key = normalized(trimmed);
  if (!key.empty() && !cc) {
    std::vector<std::string> candidates;
    for (const auto& gpu : gpu_names()) candidates.push_back(normalized(gpu.name));
    near = util::near_names(key, candidates, util::within_a_third(1));
  }
  std::string hint =
      "accepted: a compute capability (8.9, sm_89, sm89, 89) or a GPU name (L4, H100, RTX-4090; "
      "the list is in docs/gpus.md), several separated by commas, or none";
  if (!near.empty()) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < near.size() && i < 3; ++i)
      names.push_back(gpu_name_token(gpu_names()[near[i].index].name));
    hint = "did you mean " + util::join(names, ", ") + "? " + hint;
  }
  return util::fail(util::ErrorKind::usage,
                    "unknown GPU '" + util::printable(trimmed) + "' for --gpu", "", hint);
}

}  // namespace flashfit::env
